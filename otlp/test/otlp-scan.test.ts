import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { otelSpans, protobufRequest } from '@sieve/testkit/otlp'
import { makeSpan, makeTraces, seededRandom } from '@sieve/testkit'
import { decodeProtobufRequest, scanProtobufRequest } from '../src/index.js'

/*
 * The Kafka path scans protobuf requests instead of decoding them. Whatever decoding would do with
 * a body (keep a span, reject it with a reason, refuse the request as malformed), scanning must do
 * the same, or the collector would acknowledge spans the ingester cannot read.
 */

type Outcome = { error: string } | { rejected: number; errorMessage: string; traceIds: string[]; origins: number }

function decodeOutcome(body: Buffer): Outcome {
  try {
    const out = decodeProtobufRequest(body, 'p')
    return { rejected: out.rejected, errorMessage: out.errorMessage, traceIds: out.spans.map((s) => s.traceId), origins: out.spans.length }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

function scanOutcome(body: Buffer): Outcome {
  try {
    const out = scanProtobufRequest(body, 'p')
    return { rejected: out.rejected, errorMessage: out.errorMessage, traceIds: out.traceIds, origins: out.origin.spans.length }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

/** Every field the SDK writes (events, links, nested attribute values), plus spans the checks reject. */
async function mixedRequest(): Promise<Buffer> {
  const [good] = makeTraces(1, 1)
  const invalid = [
    makeSpan({ spanId: '0'.repeat(16) }),
    makeSpan({ traceId: '00ff' }),
    makeSpan({ startTimeUnixNano: '20', endTimeUnixNano: '10' }),
    makeSpan({ parentSpanId: 'abcd' }),
  ]
  return Buffer.concat([Buffer.from(ProtobufTraceSerializer.serializeRequest(await otelSpans())!), protobufRequest([good!, ...invalid])])
}

test('scanning keeps and rejects exactly the spans decoding does, with the same reasons', async () => {
  const body = await mixedRequest()
  const scanned = scanOutcome(body)
  assert.deepEqual(scanned, decodeOutcome(body))
  assert.ok('rejected' in scanned && scanned.rejected === 4 && scanned.traceIds.length === 4, JSON.stringify(scanned))
})

test('a body cut anywhere fails the scan with the message decoding gives', async () => {
  const body = await mixedRequest()
  for (let cut = 1; cut < body.length; cut++) {
    const part = body.subarray(0, cut)
    assert.deepEqual(scanOutcome(part), decodeOutcome(part), `cut at ${cut}`)
  }
})

test('a body with bytes changed anywhere is kept, rejected or refused by the scan exactly as by decoding', async () => {
  const body = await mixedRequest()
  const { below } = seededRandom(4242)
  let refused = 0
  for (let i = 0; i < 3000; i++) {
    const changed = Buffer.from(body)
    for (let n = 1 + below(3); n > 0; n--) changed[below(changed.length)] = below(256)
    const expected = decodeOutcome(changed)
    if ('error' in expected) refused++
    assert.deepEqual(scanOutcome(changed), expected, `change ${i}`)
  }
  // Both kinds of outcome must have been exercised for the comparison to mean anything.
  assert.ok(refused > 100 && refused < 2900, `${refused} of 3000 refused`)
})
