// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Storage, Span } from '@sieve/core'
import { scanProtobufRequest } from '@sieve/otlp'
import { decodeSpanRecords, InProcessQueue, SpanRecordError } from '@sieve/queue'
import type { PipelineMetrics } from '@sieve/metrics'
import { countRows, hexId, makeSpan, until } from '@sieve/testkit'
import { startSieve } from '@sieve/testkit/sieve'
import { field, keyValues, spanMessage } from '@sieve/testkit/otlp'
import { startReceiver } from './support/receiver-server.js'

/*
 * Issue #19, the embedded default (`sieve up`: in-process queue + chDB): one bad span, one
 * tenant or one failing insert must not stop ingest for anyone, lose data silently, or put one
 * project's data in another's answer. Project `acme` sends the poison, project `beta` valid
 * spans; every request has a bounded wait, so a wedged queue fails the test instead of hanging it.
 */

const KEYS = new Map([
  ['k-acme', 'acme'],
  ['k-beta', 'beta'],
])
const ACME = 'k-acme'
const BETA = 'k-beta'
/** Text only acme sends: it must never appear in an answer to beta. */
const SECRET = 'acme-secret-7f3a'
const BOUND_MS = 15_000

let url: string
let storage: Storage
let metrics: PipelineMetrics
const logged: string[] = []
let stop: () => Promise<void>

before(async () => {
  const sieve = await startSieve({
    apiKeys: KEYS,
    // Quick retries, so a stall shows within a second rather than after the defaults' backoff.
    queue: { retryInitialMs: 20, retryMaxMs: 200, gateAttempts: 3, onError: (_group, error) => logged.push(String(error)) },
    log: (message) => logged.push(message),
  })
  ;({ url, storage, metrics, stop } = sieve)
})
after(() => stop())

const T = 1_760_000_000_000_000_000n

interface Answer {
  status: number
  text: string
  ms: number
}

async function post(key: string, body: string | Buffer, type = 'application/json'): Promise<Answer> {
  const started = Date.now()
  const res = await fetch(`${url}/v1/traces`, {
    method: 'POST',
    headers: { 'content-type': type, authorization: `Bearer ${key}` },
    body,
    signal: AbortSignal.timeout(BOUND_MS),
  })
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, text: type === 'application/json' ? bytes.toString('utf8') : bytes.toString('latin1'), ms: Date.now() - started }
}

/** The spans of a trace as the read API gives them, or undefined on 404. */
async function readSpans(key: string, traceId: string): Promise<Record<string, unknown>[] | undefined> {
  const res = await fetch(`${url}/api/traces/${traceId}`, { headers: { authorization: `Bearer ${key}` }, signal: AbortSignal.timeout(BOUND_MS) })
  if (res.status === 404) return undefined
  assert.equal(res.status, 200, await res.clone().text())
  const { trace } = (await res.json()) as { trace: { roots: Record<string, unknown>[] } }
  const out: Record<string, unknown>[] = []
  const stack = [...trace.roots]
  while (stack.length > 0) {
    const node = stack.pop()!
    out.push(node)
    stack.push(...(node.children as Record<string, unknown>[]))
  }
  return out
}

const jsonSpan = (fields: Record<string, unknown> = {}) => ({
  traceId: hexId(16),
  spanId: hexId(8),
  name: 'valid',
  startTimeUnixNano: String(T),
  endTimeUnixNano: String(T + 1000n),
  ...fields,
})
const jsonRequest = (spans: unknown[], resource: unknown[] = [{ key: 'service.name', value: { stringValue: 'poison-test' } }]) =>
  JSON.stringify({ resourceSpans: [{ resource: { attributes: resource }, scopeSpans: [{ scope: { name: 't' }, spans }] }] })

/** beta's valid request: 200 with nothing rejected, nothing of acme's in the answer, stored and readable. */
async function betaStillServed(): Promise<void> {
  const span = jsonSpan({ name: 'beta ok' })
  const res = await post(BETA, jsonRequest([span]))
  assert.equal(res.status, 200, res.text)
  assert.equal(res.text, '{}')
  assert.equal((await readSpans(BETA, span.traceId))?.length, 1)
}

/** Poison as users sent it, with what becomes of it: kept (made storable) or rejected naming the problem. */
const POISON = [
  { kind: 'lone high surrogate in an attribute key', span: { attributes: [{ key: `${SECRET}\ud800`, value: { stringValue: 'v' } }] }, rejected: undefined },
  {
    kind: 'emoji cut in half in the name and a value',
    span: { name: `${SECRET} \ud83d`, attributes: [{ key: 'k', value: { stringValue: '\udc00x' } }] },
    rejected: undefined,
  },
  {
    kind: 'start time before 1973-03-03',
    span: { startTimeUnixNano: '99999999000000000', endTimeUnixNano: '99999999000000001' },
    rejected: /start time 99999999000000000 ns is outside the times Sieve stores/,
  },
  {
    kind: 'start time at 2^63 ns',
    span: { startTimeUnixNano: '9223372036854775808', endTimeUnixNano: '9223372036854775809' },
    rejected: /start time|end time .* is outside the times Sieve stores/,
  },
  {
    kind: 'start time of exactly 2^32 s',
    span: { startTimeUnixNano: '4294967296000000000', endTimeUnixNano: '4294967296000000001' },
    rejected: /end time 4294967296000000001 ns is outside the times Sieve stores/,
  },
  {
    kind: 'token counts of 1e21',
    span: {
      attributes: [
        { key: 'gen_ai.operation.name', value: { stringValue: 'chat' } },
        { key: 'gen_ai.usage.input_tokens', value: { doubleValue: 1e21 } },
        { key: 'gen_ai.usage.output_tokens', value: { stringValue: '1e21' } },
      ],
    },
    rejected: undefined,
  },
  { kind: 'flags of 2^32', span: { flags: 2 ** 32 }, rejected: /flags: Too big/ },
] as const

describe('poison spans on the embedded default', () => {
  test('each poison span alone is kept storable or rejected by name, and another project is served right after', async () => {
    for (const poison of POISON) {
      const span = jsonSpan({ name: SECRET, ...poison.span })
      const res = await post(ACME, jsonRequest([span]))
      if (poison.rejected) {
        assert.equal(res.status, 400, `${poison.kind}: ${res.text}`)
        assert.match(JSON.parse(res.text).message, poison.rejected, poison.kind)
      } else {
        assert.equal(res.status, 200, `${poison.kind}: ${res.text}`)
        assert.equal(res.text, '{}', poison.kind)
        assert.equal((await readSpans(ACME, span.traceId))?.length, 1, `${poison.kind}: readable`)
      }
      await betaStillServed()
    }
  })

  test('poison mixed with valid spans while another project sends: valid ones stored, no hang, no foreign data', async () => {
    const acmeValid = [jsonSpan({ name: 'acme ok 1' }), jsonSpan({ name: 'acme ok 2' })]
    const poison = POISON.map((p) => jsonSpan({ name: SECRET, ...p.span }))
    const betaSpans = Array.from({ length: 6 }, (_, i) => jsonSpan({ name: `beta ${i}` }))
    const [acme, ...betas] = await Promise.all([
      post(ACME, jsonRequest([acmeValid[0], ...poison, acmeValid[1]])),
      ...betaSpans.map((s) => post(BETA, jsonRequest([s]))),
    ])
    assert.equal(acme!.status, 200, acme!.text)
    const rejectedCount = POISON.filter((p) => p.rejected).length
    const partial = JSON.parse(acme!.text).partialSuccess
    assert.equal(partial.rejectedSpans, String(rejectedCount))
    for (const p of POISON) if (p.rejected) assert.match(partial.errorMessage, p.rejected)
    for (const res of betas) {
      assert.equal(res.status, 200, res.text)
      assert.equal(res.text, '{}')
    }
    for (const s of [...acmeValid, ...poison.filter((_, i) => !POISON[i]!.rejected)]) assert.equal((await readSpans(ACME, s.traceId))?.length, 1)
    for (const s of betaSpans) assert.equal((await readSpans(BETA, s.traceId))?.length, 1)
  })

  test('lone surrogates are stored as U+FFFD and huge token counts as unknown, the attributes as sent', async () => {
    const cut = jsonSpan({ name: 'cut \ud83d', attributes: [{ key: 'k\ud800', value: { stringValue: '\udc00x' } }] })
    const tokens = jsonSpan({ attributes: POISON.find((p) => p.kind === 'token counts of 1e21')!.span.attributes })
    assert.equal((await post(ACME, jsonRequest([cut, tokens]))).status, 200)
    const [stored] = (await readSpans(ACME, cut.traceId))!
    assert.equal(stored!.name, 'cut \ufffd')
    assert.deepEqual(stored!.attributes, { 'k\ufffd': '\ufffdx' })
    const [counted] = (await readSpans(ACME, tokens.traceId))!
    assert.equal((counted!.attributes as Record<string, unknown>)['gen_ai.usage.input_tokens'], 1e21)
    const columns = await countRows(storage, `SELECT input_tokens + output_tokens FROM spans WHERE trace_id = '${tokens.traceId}'`)
    assert.equal(columns, 0)
  })

  test('a span storage refuses is split out and dead-lettered: its request gets 200 naming it, the rest is stored, others never see it', async () => {
    // A span every decoder check passes but storage refuses: the case quarantine exists for.
    await storage.command({ query: "ALTER TABLE spans ADD CONSTRAINT poison_test CHECK name NOT LIKE 'refused by storage%'" })
    try {
      const refused = jsonSpan({ name: `refused by storage ${SECRET}` })
      const acmeOk = [jsonSpan({ name: 'acme ok a' }), jsonSpan({ name: 'acme ok b' })]
      const betaSpans = Array.from({ length: 4 }, (_, i) => jsonSpan({ name: `beta q${i}` }))
      const [acme, ...betas] = await Promise.all([
        post(ACME, jsonRequest([acmeOk[0], refused, acmeOk[1]])),
        ...betaSpans.map((s) => post(BETA, jsonRequest([s]))),
      ])
      assert.equal(acme!.status, 200, acme!.text)
      const partial = JSON.parse(acme!.text).partialSuccess
      assert.equal(partial.rejectedSpans, '1')
      assert.equal(
        partial.errorMessage,
        `rejected 1 span: span ${refused.spanId} of trace ${refused.traceId}: storage refused it (ClickHouse error 469 VIOLATED_CONSTRAINT); kept as a dead letter`,
      )
      for (const res of betas) assert.deepEqual([res.status, res.text], [200, '{}'])
      for (const s of acmeOk) assert.equal((await readSpans(ACME, s.traceId))?.length, 1)
      for (const s of betaSpans) assert.equal((await readSpans(BETA, s.traceId))?.length, 1)
      assert.equal(await readSpans(ACME, refused.traceId), undefined)

      const letters = await (
        await storage.query({
          query: `SELECT project_id, trace_id, span_id, error, span FROM dead_letters WHERE trace_id = '${refused.traceId}'`,
          format: 'JSONEachRow',
        })
      ).json<{ project_id: string; span_id: string; error: string; span: string }>()
      assert.equal(letters.length, 1)
      assert.equal(letters[0]!.project_id, 'acme')
      assert.equal(letters[0]!.span_id, refused.spanId)
      assert.match(letters[0]!.error, /VIOLATED_CONSTRAINT/)
      assert.equal((JSON.parse(letters[0]!.span) as Span).name, refused.name)
      assert.match(await metrics.registry.metrics(), /^sieve_dead_letter_spans_total\{project="acme"\} 1$/m)
      assert.match(await metrics.registry.metrics(), /^sieve_spans_rejected_total\{project="acme",reason="quarantined"\} 1$/m)
      assert.ok(
        logged.some((line) => line.includes(SECRET)),
        'the full storage error is logged',
      )
      assert.equal((await fetch(`${url}/readyz`)).status, 200, 'storage makes progress: ready')
    } finally {
      await storage.command({ query: 'ALTER TABLE spans DROP CONSTRAINT poison_test' })
    }
  })

  test('storage refusing every insert: 503s without waiting, /readyz 503, and the spans stored once it recovers', async () => {
    await storage.command({ query: 'RENAME TABLE spans TO spans_away' })
    const acmeSpan = jsonSpan({ name: SECRET })
    const betaSpan = jsonSpan({ name: 'beta while down' })
    let renamedBack = false
    try {
      const [acme, beta] = await Promise.all([post(ACME, jsonRequest([acmeSpan])), post(BETA, jsonRequest([betaSpan]))])
      // Sent while the spans before it are being retried: answered at the next failed attempt, not left waiting.
      const later = await post(BETA, jsonRequest([jsonSpan({ name: 'beta later' })]))
      for (const res of [acme!, beta!, later]) {
        assert.equal(res.status, 503, res.text)
        assert.match(JSON.parse(res.text).message, /^queue is unavailable: /)
        assert.ok(res.ms < 5_000, `answered after ${res.ms} ms`)
      }
      assert.ok(!beta!.text.includes(SECRET) && !later.text.includes(SECRET))
      const ready = await fetch(`${url}/readyz`)
      assert.equal(ready.status, 503)
      assert.match(((await ready.json()) as { message: string }).message, /^storage is not taking spans: /)
      await storage.command({ query: 'RENAME TABLE spans_away TO spans' })
      renamedBack = true
      await until('/readyz ready again', async () => (await fetch(`${url}/readyz`)).status === 200, 10_000)
      await until(
        'the spans queued during the outage stored',
        async () => (await readSpans(ACME, acmeSpan.traceId)) !== undefined && (await readSpans(BETA, betaSpan.traceId)) !== undefined,
        10_000,
      )
    } finally {
      if (!renamedBack) await storage.command({ query: 'RENAME TABLE spans_away TO spans' })
    }
    await betaStillServed()
  })

  test('attribute values nested 10,000 deep reject their span, JSON and protobuf, the Kafka scan too; 64 levels are stored', async () => {
    const deepJson = (levels: number) => `${'{"arrayValue":{"values":['.repeat(levels)}{"stringValue":"leaf"}${']}}'.repeat(levels)}`
    const withDeep = () => jsonSpan({ attributes: [{ key: 'deep', value: '@DEEP@' }] })
    const deep = withDeep()
    const ok = jsonSpan({ name: 'next to the deep one' })
    const body = jsonRequest([deep, ok]).replace('"@DEEP@"', deepJson(10_000))
    const res = await post(ACME, body)
    assert.equal(res.status, 200, res.text)
    assert.deepEqual(JSON.parse(res.text).partialSuccess, {
      rejectedSpans: '1',
      errorMessage: 'rejected 1 span: resourceSpans[0].scopeSpans[0].spans[0]: attribute value nested deeper than 64 levels',
    })
    assert.equal((await readSpans(ACME, ok.traceId))?.length, 1)

    const inResource = await post(ACME, jsonRequest([jsonSpan()], [{ key: 'deep', value: '@DEEP@' }]).replace('"@DEEP@"', deepJson(10_000)))
    assert.equal(inResource.status, 400)
    assert.match(JSON.parse(inResource.text).message, /resource\.attributes: attribute value nested deeper than 64 levels/)

    const [at64, at65] = [withDeep(), withDeep()]
    const edge = await post(ACME, jsonRequest([at64, at65]).replace('"@DEEP@"', deepJson(64)).replace('"@DEEP@"', deepJson(65)))
    assert.equal(JSON.parse(edge.text).partialSuccess.rejectedSpans, '1')
    assert.match(JSON.parse(edge.text).partialSuccess.errorMessage, /spans\[1\]: attribute value nested deeper than 64 levels/)
    const [stored] = (await readSpans(ACME, at64.traceId))!
    assert.equal(depthOf((stored!.attributes as Record<string, unknown>).deep), 64)

    const protoDeep = makeSpan({ attributes: {} })
    const protoOk = makeSpan({ attributes: {} })
    const protoBody = protobufRequest([
      [protoDeep, [field(9, Buffer.concat([field(1, 'deep'), field(2, deepArray(10_000))]))]],
      [protoOk, []],
    ])
    const proto = await post(ACME, protoBody, 'application/x-protobuf')
    assert.equal(proto.status, 200)
    assert.ok(proto.text.includes('attribute value nested deeper than 64 levels'), proto.text)
    assert.equal((await readSpans(ACME, protoOk.traceId))?.length, 1)
    assert.equal(await readSpans(ACME, protoDeep.traceId), undefined)
    const scanned = scanProtobufRequest(protoBody, 'acme')
    assert.deepEqual([scanned.rejected, scanned.traceIds], [1, [protoOk.traceId]])
  })

  test('attributes named __proto__ and constructor are ordinary keys, decode to storage to read back, JSON and protobuf', async () => {
    const child = { key: 'child', value: { stringValue: 'x' } }
    const json = jsonSpan({
      attributes: [
        { key: '__proto__', value: { kvlistValue: { values: [child] } } },
        { key: 'constructor', value: { stringValue: 'c' } },
        { key: 'list', value: { kvlistValue: { values: [{ key: '__proto__', value: { intValue: 7 } }] } } },
      ],
      events: [{ timeUnixNano: String(T), name: 'e', attributes: [{ key: '__proto__', value: { stringValue: 'in event' } }] }],
    })
    const res = await post(
      ACME,
      jsonRequest(
        [json],
        [
          { key: 'service.name', value: { stringValue: 'proto-test' } },
          { key: '__proto__', value: { stringValue: 'r' } },
        ],
      ),
    )
    assert.equal(res.status, 200, res.text)

    const proto = makeSpan({ attributes: {} })
    const kvlist = field(2, field(6, field(1, Buffer.concat([field(1, 'child'), field(2, field(1, 'x'))]))))
    const extra = [field(9, Buffer.concat([field(1, '__proto__'), kvlist])), field(9, Buffer.concat([field(1, 'constructor'), field(2, field(1, 'c'))]))]
    assert.equal((await post(ACME, protobufRequest([[proto, extra]]), 'application/x-protobuf')).status, 200)

    for (const traceId of [json.traceId, proto.traceId]) {
      const [span] = (await readSpans(ACME, traceId))!
      const attributes = span!.attributes as Record<string, unknown>
      assert.ok(Object.hasOwn(attributes, '__proto__'), JSON.stringify(attributes))
      assert.equal(JSON.stringify(attributes['__proto__']), '{"child":"x"}')
      assert.equal(attributes['child'], undefined, 'the members of __proto__ are not attributes')
      assert.equal(attributes['constructor'], 'c')
    }
    const [span] = (await readSpans(ACME, json.traceId))!
    assert.equal(JSON.stringify((span!.attributes as Record<string, unknown>).list), '{"__proto__":7}')
    assert.equal(JSON.stringify((span!.resource as Record<string, unknown>)['__proto__']), '"r"')
    assert.equal(JSON.stringify((span!.events as { attributes: unknown }[])[0]!.attributes), '{"__proto__":"in event"}')
  })

  test('flags are fixed32: beyond 2^32 rejected in JSON, never wrapped; the largest stored exactly from JSON and protobuf', async () => {
    const wrapped = [jsonSpan({ flags: 2 ** 32 }), jsonSpan({ flags: 5e9 }), jsonSpan({ links: [{ traceId: hexId(16), spanId: hexId(8), flags: 2 ** 32 }] })]
    const largest = jsonSpan({ flags: 0xffffffff })
    const res = await post(ACME, jsonRequest([...wrapped, largest]))
    assert.equal(res.status, 200, res.text)
    assert.equal(JSON.parse(res.text).partialSuccess.rejectedSpans, '3')
    for (const s of wrapped) assert.equal(await readSpans(ACME, s.traceId), undefined)
    assert.equal((await readSpans(ACME, largest.traceId))![0]!.flags, 0xffffffff)

    const proto = makeSpan({ attributes: {} })
    const flags = Buffer.from([0x85, 0x01, 0xff, 0xff, 0xff, 0xff])
    assert.equal((await post(ACME, protobufRequest([[proto, [flags]]]), 'application/x-protobuf')).status, 200)
    assert.equal((await readSpans(ACME, proto.traceId))![0]!.flags, 0xffffffff)
  })
})

describe('the 503 path and version 1 Kafka records', () => {
  test("a 503 names the problem and never quotes the storage error, which may hold other projects' rows", async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 1, gateAttempts: 2, gates: ['store'] })
    let failing = true
    await queue.subscribe({
      group: 'store',
      onBatch: async () => {
        if (failing) throw new Error(`Code: 1002. DB::Exception: refused: (at row 1) Row 1: project_id: 'acme', name: '${SECRET}'`)
      },
    })
    const log: string[] = []
    const receiver = await startReceiver({ queue, apiKeys: KEYS, log: (message) => log.push(message) })
    const broken = await startReceiver({
      queue: {
        capabilities: queue.capabilities,
        saturated: () => undefined,
        stalled: () => undefined,
        publish: async () => {
          throw new Error(`socket closed while sending ${SECRET}`)
        },
        subscribe: () => queue.subscribe({ group: 'x', onBatch: async () => {} }),
        close: async () => {},
      },
      apiKeys: KEYS,
      log: (message) => log.push(message),
    })
    try {
      for (const server of [receiver, broken]) {
        const res = await fetch(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${BETA}` },
          body: jsonRequest([jsonSpan()]),
          signal: AbortSignal.timeout(BOUND_MS),
        })
        const text = await res.text()
        assert.equal(res.status, 503)
        assert.ok(!text.includes(SECRET) && !text.includes('acme'), text)
      }
      assert.ok(
        log.some((line) => line.includes(SECRET)),
        'the full error is logged',
      )
    } finally {
      failing = false
      await receiver.close()
      await broken.close()
      await queue.close()
    }
  })

  test('a version 1 record is held to what the decoders accept: flags 5e9, bad times and deep values dead-lettered, never wrapped', () => {
    const record = (json: string) => Buffer.concat([Buffer.from([1]), Buffer.from(json)])
    const base = makeSpan({ projectId: 'acme' })
    for (const [bad, why] of [
      [{ ...base, flags: 5e9 }, /^span record: flags: /],
      [
        { ...base, links: [{ traceId: hexId(16), spanId: hexId(8), traceState: '', attributes: {}, flags: 2 ** 32, droppedAttributesCount: 0 }] },
        /^span record: links\.0\.flags: /,
      ],
      [{ ...base, droppedAttributesCount: 2 ** 32 }, /^span record: droppedAttributesCount: /],
      [{ ...base, startTimeUnixNano: '1', endTimeUnixNano: '2' }, /^span record: start time 1 ns is outside the times Sieve stores/],
      [{ ...base, endTimeUnixNano: '4294967296000000000' }, /^span record: end time 4294967296000000000 ns is outside the times Sieve stores/],
    ] as const) {
      assert.throws(
        () => decodeSpanRecords(record(JSON.stringify(bad))),
        (err) => err instanceof SpanRecordError && why.test(err.message),
        JSON.stringify(why),
      )
    }
    const deep = JSON.stringify({ ...base, attributes: { deep: '@DEEP@' } }).replace('"@DEEP@"', `${'['.repeat(10_000)}${']'.repeat(10_000)}`)
    assert.throws(
      () => decodeSpanRecords(record(deep)),
      (err) => err instanceof SpanRecordError && /nested deeper than 64 levels/.test(err.message),
    )
  })

  test('a version 1 record keeps __proto__ as an attribute and repairs lone surrogates', () => {
    const base = makeSpan({ projectId: 'acme', name: 'cut \ud83d', attributes: { '@PROTO@': { child: 'x' }, 'k\ud800': 'v' } })
    const json = JSON.stringify(base).replace('"@PROTO@"', '"__proto__"')
    const [span] = decodeSpanRecords(Buffer.concat([Buffer.from([1]), Buffer.from(json)]))
    assert.equal(span!.name, 'cut \ufffd')
    assert.ok(Object.hasOwn(span!.attributes, '__proto__'))
    assert.equal(JSON.stringify(span!.attributes), '{"__proto__":{"child":"x"},"k\ufffd":"v"}')
  })
})

/** How many arrays are nested in one another in `value` (a chain of one-item arrays). */
function depthOf(value: unknown): number {
  let depth = 0
  while (Array.isArray(value)) {
    depth++
    value = value[0]
  }
  return depth
}

function varint(n: number): number[] {
  const out: number[] = []
  while (n >= 0x80) {
    out.push((n & 0x7f) | 0x80)
    n >>>= 7
  }
  out.push(n)
  return out
}

/** AnyValue { array_value { values: [ ... ] } } `levels` times around a string, written without recursion. */
function deepArray(levels: number): Buffer {
  const leaf = field(1, 'leaf')
  const prefixes: Buffer[] = []
  let size = leaf.length
  for (let i = 0; i < levels; i++) {
    const values = Buffer.from([0x0a, ...varint(size)]) // ArrayValue.values (1)
    const array = Buffer.from([0x2a, ...varint(values.length + size)]) // AnyValue.array_value (5)
    prefixes.push(Buffer.concat([array, values]))
    size += array.length + values.length
  }
  return Buffer.concat([...prefixes.reverse(), leaf])
}

/** An export request with one resource and scope, each span followed by extra fields appended to its message. */
function protobufRequest(spans: [Span, Buffer[]][]): Buffer {
  const resource = field(1, Buffer.concat(keyValues(1, { 'service.name': 'poison-test' })))
  const scope = field(1, field(1, 't'))
  const spanFields = spans.map(([span, extra]) => field(2, Buffer.concat([spanMessage(span), ...extra])))
  return field(1, Buffer.concat([resource, field(2, Buffer.concat([scope, ...spanFields]))]))
}
