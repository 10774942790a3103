import assert from 'node:assert/strict'
import { test } from 'node:test'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { seededRandom } from '@sieve/testkit'
import { REMOTE_PARENT, SCOPE_ATTRIBUTES, otelSpans, exampleOtlpTrace } from '@sieve/testkit/otlp'
import { decodeJsonRequest, decodeProtobufRequest, encodeJsonRequest, OtlpDecodeError, parseExactJson } from '../src/index.js'
/** The repository's own OTLP/JSON example: one trace over three resources and four scopes, upper-case ids, every AnyValue kind. */
const exampleTrace = exampleOtlpTrace()

test('decodes the OTLP/JSON example: upper-case ids, every AnyValue kind, events, links, resources and scopes', () => {
  const { spans, rejected, errorMessage } = decodeJsonRequest(exampleTrace, 'proj')
  assert.equal(rejected, 0, errorMessage)
  const traceId = '9f3c2a7b41d8e6f05a1b2c3d4e5f6071'
  const agent = { 'service.name': 'support-agent', 'service.version': '2.3.0', 'host.cores': 4, 'deployment.environment.name': 'staging' }
  const agentScope = { name: 'sieve.example.agent', version: '1.2.0', attributes: { 'scope.team': 'support' } }
  const base = { projectId: 'proj', traceId, droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0, events: [], links: [] }
  assert.deepEqual(spans, [
    {
      ...base,
      spanId: 'a1b2c3d4e5f60718',
      parentSpanId: '',
      traceState: 'sieve=r1,congo=t61rcWkgMzE',
      name: 'invoke_agent support',
      kind: 'SERVER',
      startTimeUnixNano: '1760000000000000000',
      endTimeUnixNano: '1760000002500000000',
      status: { code: 'OK', message: '' },
      flags: 257,
      serviceName: 'support-agent',
      scope: agentScope,
      attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', 'session.id': 'sess-42' },
      resource: agent,
      events: [{ timeUnixNano: '1760000000000100000', name: 'turn.start', attributes: { turn: 1 }, droppedAttributesCount: 0 }],
    },
    {
      ...base,
      spanId: 'b2c3d4e5f6071829',
      parentSpanId: 'a1b2c3d4e5f60718',
      traceState: '',
      name: 'chat gpt-4o',
      kind: 'CLIENT',
      startTimeUnixNano: '1760000000100000000',
      endTimeUnixNano: '1760000001400000123',
      status: { code: 'ERROR', message: 'rate limited, retried once' },
      flags: 257,
      serviceName: 'support-agent',
      scope: agentScope,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 812, // intValue as a string
        'gen_ai.usage.output_tokens': 95, // intValue as a number
        'gen_ai.request.seed': '9007199254740993', // beyond 2^53: kept exact, as a string
        'gen_ai.request.temperature': 0.2,
        'gen_ai.request.stream': false,
        'gen_ai.response.finish_reasons': ['tool_calls', 'stop'],
        'gen_ai.tool.definitions': { name: 'lookup_order', params: { required: ['order_id'], strict: true } },
        'example.mixed': ['a', -3, 1.5, true, null, []],
        'example.request_digest': Buffer.from([0xde, 0xad, 0xbe, 0xef]).toString('base64'),
        'example.placeholder': null,
      },
      resource: agent,
      events: [
        {
          timeUnixNano: '1760000000600000000',
          name: 'retry',
          attributes: { 'http.response.status_code': 429, 'retry.delay_s': 0.25 },
          droppedAttributesCount: 1,
        },
      ],
      droppedEventsCount: 2,
      links: [
        {
          traceId: '0af7651916cd43dd8448eb211c80319c',
          spanId: 'b7ad6b7169203331',
          traceState: 'rojo=00f067aa0ba902b7',
          attributes: { 'link.reason': 'previous turn' },
          flags: 769,
          droppedAttributesCount: 0,
        },
      ],
    },
    {
      ...base,
      spanId: 'c3d4e5f60718293a',
      parentSpanId: 'a1b2c3d4e5f60718',
      traceState: '',
      name: 'execute_tool lookup_order',
      kind: 'INTERNAL',
      startTimeUnixNano: '1760000001500000000',
      endTimeUnixNano: '1760000002200000000',
      status: { code: 'UNSET', message: '' },
      flags: 257,
      serviceName: 'support-agent',
      scope: { name: 'sieve.example.tools', version: '0.4.1', attributes: {} },
      attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': 'call_1' },
      resource: agent,
      droppedAttributesCount: 3,
    },
    {
      ...base,
      spanId: 'd4e5f60718293a4b',
      parentSpanId: 'c3d4e5f60718293a',
      traceState: 'sieve=r1',
      name: 'GET /orders/{id}',
      kind: 'SERVER',
      startTimeUnixNano: '1760000001600000000',
      endTimeUnixNano: '1760000002100000000',
      status: { code: 'UNSET', message: '' },
      flags: 769,
      serviceName: 'orders-api',
      scope: { name: 'orders.http', version: '', attributes: {} },
      attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200, 'url.path': '/orders/A-1001' },
      resource: { 'service.name': 'orders-api', 'telemetry.sdk.language': 'go' },
    },
    {
      ...base,
      spanId: 'e5f60718293a4b5c',
      parentSpanId: 'd4e5f60718293a4b',
      traceState: '',
      name: 'publish order.viewed',
      kind: 'PRODUCER',
      startTimeUnixNano: '1760000002000000000',
      endTimeUnixNano: '1760000002050000000',
      status: { code: 'OK', message: '' },
      flags: 0,
      serviceName: 'unknown_service', // a resource without service.name
      scope: { name: '', version: '', attributes: {} },
      attributes: {},
      resource: {},
    },
  ])
  // Spans of one resource share its attribute object, as the decoder documents.
  assert.equal(spans[0]!.resource, spans[2]!.resource)
})

const hrToNanos = ([s, ns]: [number, number]): string => (BigInt(s) * 1_000_000_000n + BigInt(ns)).toString()

test('protobuf and JSON from the OpenTelemetry serializers decode to the same spans, field by field', async () => {
  const readable = await otelSpans()
  const fromProtobuf = decodeProtobufRequest(Buffer.from(ProtobufTraceSerializer.serializeRequest(readable)!), 'p1')
  const fromJson = decodeJsonRequest(Buffer.from(JsonTraceSerializer.serializeRequest(readable)!), 'p1')
  assert.equal(fromProtobuf.rejected, 0)
  assert.equal(fromProtobuf.spans.length, 3)
  assert.deepEqual(fromProtobuf.spans, fromJson.spans)

  for (const want of readable) {
    const ctx = want.spanContext()
    const got = fromProtobuf.spans.find((s) => s.spanId === ctx.spanId)
    assert.ok(got, `span ${want.name} decoded`)
    assert.equal(got.projectId, 'p1')
    assert.equal(got.traceId, ctx.traceId)
    assert.equal(got.parentSpanId, want.parentSpanContext?.spanId ?? '')
    assert.equal(got.name, want.name)
    assert.equal(got.kind, ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'][want.kind])
    assert.equal(got.startTimeUnixNano, hrToNanos(want.startTime))
    assert.equal(got.endTimeUnixNano, hrToNanos(want.endTime))
    assert.equal(got.status.code, ['UNSET', 'OK', 'ERROR'][want.status.code])
    assert.equal(got.status.message, want.status.message ?? '')
    assert.equal(got.traceState, ctx.traceState?.serialize() ?? '')
    // Low byte: W3C trace flags; bits 8 and 9: whether the parent is known, and remote.
    assert.equal(got.flags, ctx.traceFlags | 0x100 | (want.parentSpanContext?.isRemote ? 0x200 : 0))
    assert.equal(got.serviceName, 'support-agent')
    assert.deepEqual(got.resource, { 'service.name': 'support-agent', 'service.version': '1.4.0', 'host.cores': 2 })
    assert.deepEqual(got.scope, { name: 'sieve-tests', version: '0.9.1', attributes: SCOPE_ATTRIBUTES })
    assert.equal(got.events.length, want.events.length)
    want.events.forEach((e, i) => {
      assert.equal(got.events[i]!.name, e.name)
      assert.equal(got.events[i]!.timeUnixNano, hrToNanos(e.time))
      assert.deepEqual(got.events[i]!.attributes, e.attributes ?? {})
    })
    assert.deepEqual(
      got.links.map((l) => [l.traceId, l.spanId, l.traceState, l.attributes]),
      want.links.map((l) => [l.context.traceId, l.context.spanId, l.context.traceState?.serialize() ?? '', l.attributes ?? {}]),
    )
    assert.equal(got.droppedAttributesCount, want.droppedAttributesCount)
    assert.equal(got.droppedEventsCount, want.droppedEventsCount)
    assert.equal(got.droppedLinksCount, want.droppedLinksCount)
  }
  const chat = fromProtobuf.spans.find((s) => s.name === 'chat gpt-4o')!
  assert.deepEqual(chat.attributes, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.request.model': 'gpt-4o',
    'gen_ai.usage.input_tokens': 1234,
    'gen_ai.request.temperature': 0.25,
    'gen_ai.response.finish_reasons': ['stop', 'length'],
    streaming: false,
    'negative.int': -42,
    'gen_ai.tool.definitions': { name: 'lookup', params: { required: ['id'], strict: true } },
    'payload.bytes': Buffer.from([0, 1, 2, 250, 255]).toString('base64'),
  })
  assert.equal(chat.links[0]!.traceState, REMOTE_PARENT.traceState)
  assert.equal(chat.links[0]!.flags & 0xff, 1)
  assert.deepEqual([chat.droppedEventsCount, chat.droppedLinksCount], [1, 1])
  const root = fromProtobuf.spans.find((s) => s.name === 'invoke_agent support')!
  assert.deepEqual([root.parentSpanId, root.traceId, root.traceState], [REMOTE_PARENT.spanId, REMOTE_PARENT.traceId, REMOTE_PARENT.traceState])
  assert.equal(fromProtobuf.spans.find((s) => s.name === 'execute_tool lookup')!.droppedAttributesCount, 3)
})

test('keeps every digit of 64-bit integers given as JSON numbers or strings', () => {
  const body = `{"resourceSpans":[{"scopeSpans":[{"spans":[{
    "traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708",
    "startTimeUnixNano":1700000000123456789,"endTimeUnixNano":"1700000000987654321",
    "kind":"SPAN_KIND_CONSUMER","status":{"code":"STATUS_CODE_ERROR","message":"x \\"1234567890123456789\\""},
    "attributes":[
      {"key":"big","value":{"intValue":9007199254740993}},
      {"key":"min","value":{"intValue":"-9223372036854775808"}},
      {"key":"small","value":{"intValue":"17"}},
      {"key":"float","value":{"doubleValue":12345678901234567.5}},
      {"key":"exp","value":{"doubleValue":1e300}},
      {"key":"text","value":{"stringValue":"9999999999999999999"}},
      {"key":"empty","value":{}},
      {"key":"list","value":{"arrayValue":{"values":[{"intValue":1},{"boolValue":true},{"arrayValue":{}}]}}},
      {"key":"bytes","value":{"bytesValue":"AAEC-v8"}}
    ]}]}]}]}`
  const { spans, rejected, errorMessage } = decodeJsonRequest(Buffer.from(body), 'p')
  assert.equal(rejected, 0, errorMessage)
  const [span] = spans
  assert.equal(span!.startTimeUnixNano, '1700000000123456789')
  assert.equal(span!.endTimeUnixNano, '1700000000987654321')
  assert.equal(span!.kind, 'CONSUMER')
  assert.deepEqual(span!.status, { code: 'ERROR', message: 'x "1234567890123456789"' })
  assert.equal(span!.serviceName, 'unknown_service')
  assert.deepEqual(span!.attributes, {
    big: '9007199254740993',
    min: '-9223372036854775808',
    small: 17,
    float: 12345678901234567.5,
    exp: 1e300,
    text: '9999999999999999999',
    empty: null,
    list: [1, true, []],
    bytes: Buffer.from([0, 1, 2, 250, 255]).toString('base64'),
  })
})

test('rejects invalid JSON spans, keeps the valid ones and says why for each', () => {
  const good = {
    traceId: '0102030405060708090a0b0c0d0e0f10',
    spanId: '0102030405060708',
    startTimeUnixNano: '1700000000000000010',
    endTimeUnixNano: '1700000000000000020',
  }
  const spans = [
    good,
    { ...good, traceId: '0102' },
    { ...good, spanId: 'zz02030405060708' },
    { ...good, startTimeUnixNano: undefined },
    { ...good, endTimeUnixNano: '1700000000000000009' },
    { ...good, name: 5 },
    { ...good, traceId: '00000000000000000000000000000000' },
    { ...good, spanId: '0a0b' },
  ]
  const out = decodeJsonRequest(Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] })), 'p')
  assert.equal(out.spans.length, 1)
  assert.equal(out.rejected, 7)
  const path = (i: number) => `resourceSpans[0].scopeSpans[0].spans[${i}]`
  assert.match(out.errorMessage, /^rejected 7 spans: /)
  assert.ok(out.errorMessage.includes(`${path(1)}: trace id must be 16 bytes, got 2`), out.errorMessage)
  assert.ok(out.errorMessage.includes(`${path(2)}: span id 'zz02030405060708' is not hex`), out.errorMessage)
  assert.ok(out.errorMessage.includes(`${path(3)}: start time is missing`), out.errorMessage)
  assert.ok(out.errorMessage.includes(`${path(4)}: end time is before start time`), out.errorMessage)
  assert.ok(out.errorMessage.includes(`${path(5)}: name: `), out.errorMessage)
  assert.ok(out.errorMessage.endsWith('and 2 more'), out.errorMessage)
})

test('protobuf strings decode as any UTF-8 decoder reads them: short or long, multi-byte, invalid bytes as U+FFFD', async () => {
  const [readable] = await otelSpans()
  const values = {
    ascii: 'chat',
    accented: 'café crème',
    cjk: '注文の状態を確認します',
    emoji: '👍 done',
    long: `${'é'.repeat(40)} ${'a'.repeat(40)}`,
    invalid: 'QQQQQQ',
  }
  const span = Object.create(readable!, { attributes: { value: values } })
  const body = Buffer.from(ProtobufTraceSerializer.serializeRequest([span])!)
  // Bytes no encoder writes from a JS string: a stray continuation byte, a cut sequence, 0xff.
  const invalid = Buffer.from([0x80, 0x41, 0xc3, 0x28, 0xff, 0x42])
  invalid.copy(body, body.indexOf('QQQQQQ'))
  const got = decodeProtobufRequest(body, 'p').spans[0]!.attributes
  assert.deepEqual(got, { ...values, invalid: invalid.toString('utf8') })
  assert.equal(got.invalid, '\ufffdA\ufffd(\ufffdB')
  assert.match(decodeProtobufRequest(body, 'p').spans[0]!.traceId, /^[0-9a-f]{32}$/)
})

test('rejects protobuf spans with ids of the wrong length and keeps the others', async () => {
  const readable = await otelSpans()
  const bad = readable[1]!
  const ctx = bad.spanContext()
  const tampered = Object.create(bad, { spanContext: { value: () => ({ ...ctx, traceId: '00ff' }) } })
  const out = decodeProtobufRequest(Buffer.from(ProtobufTraceSerializer.serializeRequest([readable[0]!, tampered, readable[2]!])!), 'p')
  assert.equal(out.spans.length, 2)
  assert.equal(out.rejected, 1)
  assert.equal(out.errorMessage, 'rejected 1 span: resourceSpans[0].scopeSpans[0].spans[1]: trace id must be 16 bytes, got 2')
})

test('a protobuf body cut anywhere is reported as malformed, never half-read', async () => {
  const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(await otelSpans())!)
  for (let cut = 1; cut < body.length; cut++) {
    assert.throws(
      () => decodeProtobufRequest(body.subarray(0, cut), 'p'),
      (err) => err instanceof OtlpDecodeError && /^malformed protobuf: /.test(err.message),
      `cut at ${cut}`,
    )
  }
})

test('random bytes either decode or fail as malformed protobuf, nothing else', () => {
  const { below } = seededRandom(12345)
  for (let i = 0; i < 2000; i++) {
    const body = Buffer.from(Array.from({ length: below(64) }, () => below(256)))
    try {
      decodeProtobufRequest(body, 'p')
    } catch (err) {
      assert.ok(err instanceof OtlpDecodeError, `unexpected ${String(err)} for ${body.toString('hex')}`)
    }
  }
})

test('invalid JSON and a body that is not an export request are request errors naming the problem', () => {
  assert.throws(
    () => decodeJsonRequest(Buffer.from('{"resourceSpans": ['), 'p'),
    (err) => err instanceof OtlpDecodeError && err.code === 'JSON_INVALID' && /^invalid JSON: /.test(err.message),
  )
  assert.throws(
    () => decodeJsonRequest(Buffer.from('{"resourceSpans": {"spans": []}}'), 'p'),
    (err) => err instanceof OtlpDecodeError && err.code === 'JSON_SHAPE' && /resourceSpans: /.test(err.message),
  )
  assert.throws(
    () => decodeJsonRequest(Buffer.from('[1, 2]'), 'p'),
    (err) => err instanceof OtlpDecodeError && err.code === 'JSON_SHAPE',
  )
})

test('an empty request decodes to no spans in both formats', () => {
  for (const out of [decodeProtobufRequest(Buffer.alloc(0), 'p'), decodeJsonRequest(Buffer.from('{}'), 'p')]) {
    assert.deepEqual([out.spans, out.rejected, out.errorMessage], [[], 0, ''])
  }
})

test('reads long JSON integers as exact strings and leaves strings, floats and short numbers alone', () => {
  // Strings ending in an escaped backslash, and holding escaped quotes before digits, must be skipped whole.
  const strings = { s: 'q\\', t: '"x":12345678901234567', u: '\\"12345678901234567' }
  const text =
    `{"a":[12345678901234567,-9223372036854775808,123456789012345,1.2345678901234567e25,1234567890123456.5],` +
    Object.entries(strings)
      .map(([k, v]) => `"${k}":${JSON.stringify(v)}`)
      .join(',') +
    '}'
  assert.deepEqual(parseExactJson(text), {
    a: ['12345678901234567', '-9223372036854775808', 123456789012345, 1.2345678901234567e25, 1234567890123456.5],
    ...strings,
  })
})

test('a malformed value nested in an attribute rejects its span, or the whole request when it sits in the resource', () => {
  const span = {
    traceId: '0102030405060708090a0b0c0d0e0f10',
    spanId: '0102030405060708',
    startTimeUnixNano: '1700000000000000010',
    endTimeUnixNano: '1700000000000000020',
  }
  const badList = { key: 'list', value: { arrayValue: { values: [{ stringValue: 'ok' }, { intValue: 'twelve' }] } } }
  const out = decodeJsonRequest(Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span, { ...span, attributes: [badList] }] }] }] })), 'p')
  assert.equal(out.spans.length, 1)
  assert.equal(out.errorMessage, 'rejected 1 span: resourceSpans[0].scopeSpans[0].spans[1]: attribute value: intValue: expected a signed 64-bit integer')
  assert.throws(
    () => decodeJsonRequest(Buffer.from(JSON.stringify({ resourceSpans: [{ resource: { attributes: [badList] }, scopeSpans: [{ spans: [span] }] }] })), 'p'),
    (err) =>
      err instanceof OtlpDecodeError &&
      err.message ===
        'not an OTLP ExportTraceServiceRequest: resourceSpans[0].resource.attributes: attribute value: intValue: expected a signed 64-bit integer',
  )
})

test('spans encoded as OTLP/JSON (encodeJsonRequest) decode back to the same spans, every AnyValue kind included', () => {
  const decoded = decodeJsonRequest(exampleTrace, 'p').spans
  assert.ok(decoded.length > 1 && decoded.some((s) => s.links.length && s.events.length))
  const again = decodeJsonRequest(Buffer.from(JSON.stringify(encodeJsonRequest(decoded))), 'p')
  assert.equal(again.rejected, 0, again.errorMessage)
  assert.deepEqual(again.spans, decoded)
})

test('numbers past 2^53 are encoded as doubles, never as int64 strings that overflow', () => {
  const [span] = decodeJsonRequest(exampleTrace, 'p').spans
  const big = { ...span!, attributes: { 'x.huge': 1e21, 'x.edge': 2 ** 53 + 2, 'x.safe': 2 ** 53 - 1 } }
  const again = decodeJsonRequest(Buffer.from(JSON.stringify(encodeJsonRequest([big]))), 'p')
  assert.equal(again.rejected, 0, again.errorMessage)
  assert.deepEqual(again.spans[0]!.attributes, big.attributes)
})
