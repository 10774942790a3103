import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { ExportResultCode } from '@opentelemetry/core'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { SpanQueue } from '@sieve/core'
import protobuf from 'protobufjs'
import { otelSpans } from '@sieve/testkit/otlp'
import { QueueRecorder } from './support/queue-recorder.js'
import { startReceiver, type ReceiverServer } from './support/receiver-server.js'

type BodyInit = NonNullable<RequestInit['body']>

const LIMIT = 256 * 1024
const API_KEYS = new Map([
  ['k-acme', 'acme'],
  ['k-beta', 'beta'],
])
let queue: QueueRecorder
let authed: ReceiverServer
let openQueue: QueueRecorder
let open: ReceiverServer

before(async () => {
  queue = await QueueRecorder.start()
  authed = await startReceiver({ queue: queue.queue, apiKeys: API_KEYS, maxBodyBytes: LIMIT })
  openQueue = await QueueRecorder.start()
  open = await startReceiver({ queue: openQueue.queue })
})
after(async () => {
  await authed.close()
  await open.close()
  await queue.queue.close()
  await openQueue.queue.close()
})

const PROTOBUF = { 'content-type': 'application/x-protobuf', authorization: 'Bearer k-acme' }
const JSON_TYPE = { 'content-type': 'application/json', authorization: 'Bearer k-acme' }

const validSpan = (i: number) => ({
  traceId: '0102030405060708090A0B0C0D0E0F10',
  spanId: `00000000000000${(i + 1).toString(16).padStart(2, '0')}`,
  name: `span ${i}`,
  startTimeUnixNano: '1700000000000000000',
  endTimeUnixNano: '1700000000500000000',
})
const jsonRequest = (spans: unknown[]) => JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })

/** google.rpc.Status read with protobufjs's own wire reader, independent of the receiver's. */
function readStatus(bytes: Uint8Array): { code: number; message: string } {
  const reader = protobuf.Reader.create(bytes)
  const status = { code: 0, message: '' }
  while (reader.pos < reader.len) {
    const tag = reader.uint32()
    if (tag >>> 3 === 1) status.code = reader.int32()
    else if (tag >>> 3 === 2) status.message = reader.string()
    else reader.skipType(tag & 7)
  }
  return status
}

async function post(url: string, headers: Record<string, string>, body: BodyInit) {
  const res = await fetch(url, { method: 'POST', headers, body, duplex: 'half' } as RequestInit)
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) }
}
const json = (bytes: Uint8Array) => JSON.parse(Buffer.from(bytes).toString('utf8'))

function exportWith(exporter: JsonExporter | ProtobufExporter, spans: Awaited<ReturnType<typeof otelSpans>>) {
  return new Promise<{ code: ExportResultCode; error?: Error }>((resolve) => exporter.export(spans, resolve))
}

test("takes protobuf from the real OTLP proto exporter and queues the spans under the key's project", async () => {
  const before = queue.spans.length
  const spans = await otelSpans()
  const exporter = new ProtobufExporter({ url: authed.url, headers: { Authorization: 'Bearer k-acme' } })
  const result = await exportWith(exporter, spans)
  await exporter.shutdown()
  assert.equal(result.code, ExportResultCode.SUCCESS, result.error?.message)
  const got = queue.spans.slice(before)
  assert.deepEqual(got.map((s) => s.spanId).sort(), spans.map((s) => s.spanContext().spanId).sort())
  assert.ok(got.every((s) => s.projectId === 'acme' && s.serviceName === 'support-agent'))
})

test('takes gzip-compressed JSON from the real OTLP HTTP exporter, authenticated by x-api-key', async () => {
  const before = queue.spans.length
  const spans = await otelSpans()
  const exporter = new JsonExporter({ url: authed.url, headers: { 'x-api-key': 'k-beta' }, compression: 'gzip' as never })
  const result = await exportWith(exporter, spans)
  await exporter.shutdown()
  assert.equal(result.code, ExportResultCode.SUCCESS, result.error?.message)
  const got = queue.spans.slice(before)
  assert.equal(got.length, 3)
  assert.ok(got.every((s) => s.projectId === 'beta'))
})

test('with no API keys configured, everything goes to project default', async () => {
  const res = await post(open.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0)]))
  assert.equal(res.status, 200)
  assert.deepEqual(json(res.bytes), {})
  assert.equal(openQueue.spans.at(-1)!.projectId, 'default')
})

test("acks only after the queue's storing consumer has handled the spans", async () => {
  let release!: () => void
  queue.next(() => new Promise<void>((resolve) => (release = resolve)))
  const batches = queue.batches
  let answered = false
  const response = post(authed.url, JSON_TYPE, jsonRequest([validSpan(0)])).then((r) => {
    answered = true
    return r
  })
  await queue.batchesSeen(batches + 1)
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
  assert.equal(answered, false, 'answered before publish resolved')
  release()
  assert.equal((await response).status, 200)
})

test('keeps the valid spans of a partly bad request and reports the rejected ones in partial_success', async () => {
  const before = queue.spans.length
  const res = await post(authed.url, JSON_TYPE, jsonRequest([validSpan(0), { ...validSpan(1), traceId: 'abcd' }, validSpan(2)]))
  assert.equal(res.status, 200)
  assert.deepEqual(json(res.bytes), {
    partialSuccess: { rejectedSpans: '1', errorMessage: 'rejected 1 span: resourceSpans[0].scopeSpans[0].spans[1]: trace id must be 16 bytes, got 2' },
  })
  assert.deepEqual(
    queue.spans.slice(before).map((s) => s.name),
    ['span 0', 'span 2'],
  )
})

test('answers partial success in protobuf for a protobuf request', async () => {
  const spans = await otelSpans()
  const bad = Object.create(spans[0]!, { spanContext: { value: () => ({ ...spans[0]!.spanContext(), spanId: 'ff' }) } })
  const res = await post(authed.url, PROTOBUF, ProtobufTraceSerializer.serializeRequest([bad, spans[1]!, spans[2]!])! as BodyInit)
  assert.equal(res.status, 200)
  assert.equal(res.headers.get('content-type'), 'application/x-protobuf')
  const answer = ProtobufTraceSerializer.deserializeResponse(res.bytes)
  assert.equal(Number(answer.partialSuccess?.rejectedSpans), 1)
  assert.match(answer.partialSuccess?.errorMessage ?? '', /span id must be 8 bytes, got 1/)
})

test('a request whose every span is invalid is a 400 naming the problem', async () => {
  const res = await post(authed.url, JSON_TYPE, jsonRequest([{ ...validSpan(0), traceId: '0102' }]))
  assert.equal(res.status, 400)
  assert.deepEqual(json(res.bytes), { code: 3, message: 'rejected 1 span: resourceSpans[0].scopeSpans[0].spans[0]: trace id must be 16 bytes, got 2' })
})

test('a 64-bit field of more than 18 characters that is no integer rejects its span by name, never a 500', async () => {
  const badTime = { ...validSpan(0), startTimeUnixNano: '1796175930781000@00' }
  const badInt = { ...validSpan(1), attributes: [{ key: 'n', value: { intValue: '-12345678901234567890x' } }] }
  const res = await post(authed.url, JSON_TYPE, jsonRequest([badTime, badInt, validSpan(2)]))
  assert.equal(res.status, 200)
  const { partialSuccess } = json(res.bytes)
  assert.equal(partialSuccess.rejectedSpans, '2')
  assert.match(partialSuccess.errorMessage, /spans\[0\]: startTimeUnixNano: expected an unsigned 64-bit integer/)
  assert.match(partialSuccess.errorMessage, /spans\[1\]: attributes\[0\]\.value\.intValue: expected a signed 64-bit integer/)
})

test('truncated protobuf is a 400 with a google.rpc.Status in protobuf', async () => {
  const body = ProtobufTraceSerializer.serializeRequest(await otelSpans())!
  const batches = queue.batches
  const res = await post(authed.url, PROTOBUF, body.subarray(0, body.length - 7) as BodyInit)
  assert.equal(res.status, 400)
  const status = readStatus(res.bytes)
  assert.equal(status.code, 3)
  assert.match(status.message, /^malformed protobuf: .* at byte \d+ of \d+$/)
  assert.equal(queue.batches, batches)
})

test('invalid JSON and JSON of the wrong shape are 400s naming the problem', async () => {
  const broken = await post(authed.url, JSON_TYPE, '{"resourceSpans": [')
  assert.equal(broken.status, 400)
  assert.match(json(broken.bytes).message, /^invalid JSON: /)
  const wrong = await post(authed.url, JSON_TYPE, '{"resourceSpans": [{"scopeSpans": "nope"}]}')
  assert.equal(wrong.status, 400)
  assert.match(json(wrong.bytes).message, /^not an OTLP ExportTraceServiceRequest: resourceSpans\[0\]\.scopeSpans: /)
})

test('an empty body or a request without spans is an empty export: 200 with a note, nothing queued', async () => {
  const batches = queue.batches
  for (const [headers, body] of [
    [PROTOBUF, ''],
    [JSON_TYPE, ''],
    [JSON_TYPE, '{"resourceSpans": [{"scopeSpans": []}]}'],
  ] as const) {
    const res = await post(authed.url, headers, body)
    assert.equal(res.status, 200)
    if (headers === JSON_TYPE) {
      assert.deepEqual(json(res.bytes), { partialSuccess: { rejectedSpans: '0', errorMessage: 'empty request: no spans received' } })
    } else {
      assert.equal(ProtobufTraceSerializer.deserializeResponse(res.bytes).partialSuccess?.errorMessage, 'empty request: no spans received')
    }
  }
  assert.equal(queue.batches, batches)
})

test('a body over the limit is a 413, whether its length is declared or streamed', async () => {
  const big = Buffer.alloc(LIMIT + 1, 0x20)
  const declared = await post(authed.url, JSON_TYPE, big)
  assert.equal(declared.status, 413)
  assert.equal(json(declared.bytes).message, `body of ${LIMIT + 1} bytes exceeds the limit of ${LIMIT} bytes`)
  const stream = new ReadableStream({
    start(controller) {
      for (let i = 0; i < 8; i++) controller.enqueue(new Uint8Array(LIMIT / 4))
      controller.close()
    },
  })
  const streamed = await post(authed.url, JSON_TYPE, stream)
  assert.equal(streamed.status, 413)
  assert.equal(json(streamed.bytes).message, `body exceeds the limit of ${LIMIT} bytes`)
})

test('a gzip bomb is refused by its decompressed size', async () => {
  const bomb = gzipSync(Buffer.alloc(64 * LIMIT))
  assert.ok(bomb.length < LIMIT)
  const res = await post(authed.url, { ...PROTOBUF, 'content-encoding': 'gzip' }, bomb)
  assert.equal(res.status, 413)
  assert.equal(readStatus(res.bytes).message, `decompressed body exceeds the limit of ${LIMIT} bytes`)
})

test('a body that claims gzip but is not is a 400', async () => {
  const res = await post(authed.url, { ...JSON_TYPE, 'content-encoding': 'gzip' }, '{"resourceSpans": []}')
  assert.equal(res.status, 400)
  assert.match(json(res.bytes).message, /^body is not valid gzip: /)
})

test('unknown content types and encodings are 415s', async () => {
  const type = await post(authed.url, { 'content-type': 'text/plain', authorization: 'Bearer k-acme' }, 'hello')
  assert.equal(type.status, 415)
  assert.equal(json(type.bytes).message, "Content-Type 'text/plain' is not supported: send application/x-protobuf or application/json")
  const encoding = await post(authed.url, { ...JSON_TYPE, 'content-encoding': 'br' }, '{}')
  assert.equal(encoding.status, 415)
  assert.equal(json(encoding.bytes).message, "Content-Encoding 'br' is not supported: send gzip or identity")
})

test('a missing or wrong API key is a 401', async () => {
  const missing = await post(authed.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0)]))
  assert.equal(missing.status, 401)
  assert.equal(missing.headers.get('www-authenticate'), 'Bearer')
  assert.deepEqual(json(missing.bytes), { code: 16, message: 'missing API key: send Authorization: Bearer <key> or x-api-key: <key>' })
  const wrong = await post(authed.url, { 'content-type': 'application/x-protobuf', 'x-api-key': 'k-nope' }, '')
  assert.equal(wrong.status, 401)
  assert.deepEqual(readStatus(wrong.bytes), { code: 16, message: 'API key not recognized' })
})

test('a full queue is a 429 with Retry-After', async () => {
  const small = await QueueRecorder.start({ capacity: 1 })
  const server = await startReceiver({ queue: small.queue })
  try {
    const res = await post(server.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0), validSpan(1)]))
    assert.equal(res.status, 429)
    assert.equal(res.headers.get('retry-after'), '1')
    assert.deepEqual(json(res.bytes), { code: 8, message: 'queue is full: the queue holds 0 of 1 spans; retry later' })
    assert.equal((await post(server.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0)]))).status, 200)
  } finally {
    await server.close()
    await small.queue.close()
  }
})

test('storage failing behind the queue is a 503 with Retry-After, and the receiver keeps serving', async () => {
  const failing = await QueueRecorder.start({ gateAttempts: 2, retryInitialMs: 1 })
  const server = await startReceiver({ queue: failing.queue })
  try {
    failing.next(async () => {
      throw new Error('disk full')
    })
    failing.next(async () => {
      throw new Error('disk full')
    })
    const res = await post(server.url, { 'content-type': 'application/x-protobuf' }, ProtobufTraceSerializer.serializeRequest(await otelSpans())! as BodyInit)
    assert.equal(res.status, 503)
    assert.equal(res.headers.get('retry-after'), '5')
    assert.deepEqual(readStatus(res.bytes), {
      code: 14,
      message: 'queue is unavailable: storage did not take the spans (2 attempts failed); they stay queued and are retried',
    })
    assert.equal((await post(server.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0)]))).status, 200)
  } finally {
    await server.close()
    await failing.queue.close()
  }
})

test('a closed queue, or one failing in a way it does not name, is a 503 with Retry-After', async () => {
  const closed = await QueueRecorder.start()
  await closed.queue.close()
  const broken: SpanQueue = {
    capabilities: closed.queue.capabilities,
    saturated: () => undefined,
    stalled: () => undefined,
    publish: async () => {
      throw new Error('socket hang up')
    },
    subscribe: () => closed.queue.subscribe({ group: 'unused', onBatch: async () => {} }),
    close: async () => {},
  }
  for (const [queue, message] of [
    [closed.queue, 'queue is unavailable: the queue is shutting down'],
    [broken, 'queue is unavailable: it failed to take the spans; retry later'],
  ] as const) {
    const server = await startReceiver({ queue })
    try {
      const res = await post(server.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0)]))
      assert.equal(res.status, 503)
      assert.equal(res.headers.get('retry-after'), '5')
      assert.deepEqual(json(res.bytes), { code: 14, message })
    } finally {
      await server.close()
    }
  }
})

test('counts received, accepted and rejected spans by project, and request latency by status', async () => {
  const small = await QueueRecorder.start({ capacity: 1 })
  const server = await startReceiver({ queue: small.queue })
  try {
    await post(server.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0), { ...validSpan(1), spanId: '' }]))
    await post(server.url, { 'content-type': 'application/json' }, jsonRequest([validSpan(0), validSpan(1)]))
  } finally {
    await server.close()
    await small.queue.close()
  }
  const text = await server.metrics.registry.metrics()
  assert.match(text, /^sieve_spans_received_total\{project="default"\} 4$/m)
  assert.match(text, /^sieve_spans_accepted_total\{project="default"\} 1$/m)
  assert.match(text, /^sieve_spans_rejected_total\{project="default",reason="invalid"\} 1$/m)
  assert.match(text, /^sieve_spans_rejected_total\{project="default",reason="queue_full"\} 2$/m)
  assert.match(text, /^sieve_otlp_request_duration_seconds_count\{status="200"\} 1$/m)
  assert.match(text, /^sieve_otlp_request_duration_seconds_count\{status="429"\} 1$/m)
  assert.match(text, /^process_cpu_user_seconds_total /m)
})
