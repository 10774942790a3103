import assert from 'node:assert/strict'
import { test } from 'node:test'
import { context, trace, TraceFlags } from '@opentelemetry/api'
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs'
import { seededRandom } from '@sieve/testkit'
import { exampleOtlpTrace, otelSpans } from '@sieve/testkit/otlp'
import { decodeJsonRequest, decodeLogsRequest, decodeProtobufRequest, OtlpDecodeError, scanProtobufRequest } from '../src/index.js'

/*
 * Whatever a sender gets wrong, a decoder either returns (the spans it could read, the rest named
 * as rejected) or throws OtlpDecodeError, which the receiver answers with a 400. Any other throw is
 * a 500 and loses the whole request. Mutations from a fixed seed, so a failure reproduces.
 */

const json = exampleOtlpTrace()
const protobuf = Buffer.from(ProtobufTraceSerializer.serializeRequest(await otelSpans())!)

/** Two GenAI events of one span, with nested bodies, as the JavaScript SDK serializes them. */
function genAiLogs(): Buffer {
  const memory = new InMemoryLogRecordExporter()
  const logger = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] }).getLogger('genai')
  const inSpan = trace.setSpanContext(context.active(), {
    traceId: '5b8efff798038103d269b633813fc60c',
    spanId: 'eee19b7ec3c1b174',
    traceFlags: TraceFlags.SAMPLED,
  })
  logger.emit({
    eventName: 'gen_ai.user.message',
    timestamp: 1_760_000_000_000,
    context: inSpan,
    attributes: { 'gen_ai.system': 'openai' },
    body: { content: 'Where is order A-1?' },
  })
  logger.emit({
    eventName: 'gen_ai.choice',
    timestamp: 1_760_000_000_001,
    context: inSpan,
    body: { index: 0, message: { role: 'assistant', content: 'Today.', tool_calls: [{ id: 'c1', function: { name: 'f', arguments: '{}' } }] } },
  })
  return Buffer.from(ProtobufLogsSerializer.serializeRequest(memory.getFinishedLogRecords())!)
}

/** Values a field may wrongly hold: other types, edge numbers, long strings that are almost integers. */
const ODD: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e308,
  2 ** 64,
  '',
  'x',
  '-0',
  ' 12',
  '0x1f',
  '1e3',
  'NaN',
  '\ud800',
  '\u0000',
  '9'.repeat(25),
  `-${'9'.repeat(19)}`,
  '1796175930781000@00',
  '12345678901234567890x',
  '18446744073709551616',
  [],
  {},
  [[[]]],
  { values: 'no' },
  { stringValue: 5 },
  'SPAN_KIND_NONE',
  4294967296,
]

/** Every path to a value inside `value`. */
function pathsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [path]
  return [path, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...path, Array.isArray(value) ? Number(k) : k]))]
}

type Outcome = 'whole' | 'some spans rejected' | 'refused'

function decodesOrRefuses(decode: () => { rejected: number }, what: () => string): Outcome {
  try {
    return decode().rejected > 0 ? 'some spans rejected' : 'whole'
  } catch (err) {
    assert.ok(err instanceof OtlpDecodeError, `${what()} threw ${(err as Error).stack}`)
    return 'refused'
  }
}

/** The body with one byte changed, cut short, a run repeated, or a field of overlong length put in. */
function mutated(original: Buffer, pick: (n: number) => number): Buffer {
  const at = pick(original.length)
  const kind = pick(4)
  if (kind === 0) {
    const body = Buffer.from(original)
    body[at] = pick(256)
    return body
  }
  if (kind === 1) return original.subarray(0, at)
  if (kind === 2) return Buffer.concat([original.subarray(0, at), original.subarray(at, at + pick(64)), original.subarray(at)])
  return Buffer.concat([original.subarray(0, at), Buffer.from([pick(256), 0xff, 0xff, 0xff, 0xff, 0x0f]), original.subarray(at)])
}

/** Counts of each outcome, so a test shows its mutations reached every way out. */
function tally(): { add(o: Outcome): void; assertEach(): void } {
  const seen = new Map<Outcome, number>()
  return {
    add: (o) => void seen.set(o, (seen.get(o) ?? 0) + 1),
    assertEach: () => assert.deepEqual([...seen.keys()].sort(), ['refused', 'some spans rejected', 'whole'], JSON.stringify([...seen])),
  }
}

test('OTLP/JSON with any field holding an odd value decodes or is refused by name', () => {
  const base = JSON.parse(json.toString('utf8')) as unknown
  const paths = pathsOf(base).filter((p) => p.length > 0)
  // Half the mutations hit the numeric fields, where 64-bit integers arrive as strings.
  const numeric = paths.filter((p) => /Nano|intValue|doubleValue|Count|flags|kind|code/.test(String(p.at(-1))))
  const { below: pick } = seededRandom(7)
  const outcomes = tally()
  for (let i = 0; i < 3000; i++) {
    const request = structuredClone(base) as Record<string | number, unknown>
    for (let n = 0; n <= pick(3); n++) {
      const among = pick(2) ? numeric : paths
      const path = among[pick(among.length)]!
      const parent = path.slice(0, -1).reduce<unknown>((o, k) => (o as Record<string | number, unknown> | undefined)?.[k], request)
      if (parent === null || typeof parent !== 'object') continue
      ;(parent as Record<string | number, unknown>)[path.at(-1)!] = ODD[pick(ODD.length)]
    }
    const body = Buffer.from(JSON.stringify(request))
    outcomes.add(
      decodesOrRefuses(
        () => decodeJsonRequest(body, 'p'),
        () => body.toString('utf8'),
      ),
    )
  }
  outcomes.assertEach()
})

test('protobuf with bytes changed, cut or repeated decodes, or is refused by name, by the decoder and the scan', () => {
  const { below: pick } = seededRandom(11)
  const outcomes = tally()
  for (let i = 0; i < 3000; i++) {
    const body = mutated(protobuf, pick)
    outcomes.add(
      decodesOrRefuses(
        () => decodeProtobufRequest(body, 'p'),
        () => body.toString('hex'),
      ),
    )
    decodesOrRefuses(
      () => scanProtobufRequest(body, 'p'),
      () => body.toString('hex'),
    )
  }
  outcomes.assertEach()
})

test('an OTLP logs request with bytes changed, cut or repeated decodes, or is refused by name', () => {
  const logs = genAiLogs()
  const { below: pick } = seededRandom(13)
  const outcomes = tally()
  for (let i = 0; i < 3000; i++) {
    const body = mutated(logs, pick)
    outcomes.add(
      decodesOrRefuses(
        () => decodeLogsRequest('protobuf', body),
        () => body.toString('hex'),
      ),
    )
  }
  outcomes.assertEach()
})
