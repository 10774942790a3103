// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { gzipSync } from 'node:zlib'
import { feedback, init, shutdown } from '@sieve/sdk'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
let sieve: RunningSieve
/** What the collector logged: a storage error on a feedback insert shows up here. */
const logged: string[] = []

before(async () => {
  sieve = await startSieve({ apiKeys: new Map([['key-a', 'proj-a']]), log: (message) => logged.push(message) })
  init({ endpoint: sieve.url, apiKey: 'key-a', disabled: true })
})
after(async () => {
  await shutdown()
  await sieve.stop()
})

async function rows(traceId: string) {
  const result = await sieve.storage.query({
    query: `SELECT * FROM feedback FINAL WHERE trace_id = {t:String} ORDER BY feedback_id`,
    query_params: { t: traceId },
    format: 'JSONEachRow',
  })
  return result.json<Record<string, unknown>>()
}

const post = (body: string | Buffer, headers: Record<string, string> = { authorization: 'Bearer key-a' }) =>
  fetch(`${sieve.url}/v1/feedback`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

describe('POST /v1/feedback', () => {
  test("stores feedback sent by the SDK under the key's project", async () => {
    const result = await feedback(TRACE.toUpperCase(), {
      score: -1,
      comment: 'refunded without asking',
      source: 'user',
      userId: 'u-9',
      attributes: { channel: 'chat' },
    })
    assert.equal(result.ok, true)
    const [row] = await rows(TRACE)
    assert.ok(row)
    assert.equal(row.project_id, 'proj-a')
    assert.equal(row.feedback_id, result.ok && result.feedbackId)
    assert.equal(row.score, -1)
    assert.equal(row.comment, 'refunded without asking')
    assert.equal(row.source, 'user')
    assert.equal(row.user_id, 'u-9')
    assert.deepEqual(row.attributes, { channel: 'chat' })
  })

  test('a resend with the same feedback id replaces the row instead of adding one', async () => {
    const trace = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
    const body = JSON.stringify({ traceId: trace, score: 1, feedbackId: 'fb-1' })
    assert.equal((await post(body)).status, 201)
    assert.equal((await post(body)).status, 201)
    assert.equal((await rows(trace)).length, 1)
  })

  test('refuses a missing or unknown key with 401', async () => {
    assert.equal((await post(JSON.stringify({ traceId: TRACE, score: 1 }), {})).status, 401)
    assert.equal((await post(JSON.stringify({ traceId: TRACE, score: 1 }), { 'x-api-key': 'nope' })).status, 401)
  })

  test('answers 400 naming the bad field, and 400 for a body that is not JSON', async () => {
    const bad = await post(JSON.stringify({ traceId: 'xyz', score: 'great' }))
    assert.equal(bad.status, 400)
    const { error } = (await bad.json()) as { error: { message: string } }
    assert.match(error.message, /traceId: must be 32 hex digits \(16 bytes\)/)
    assert.match(error.message, /score/)
    const notJson = await post('{"traceId":')
    assert.equal(notJson.status, 400)
    assert.match(((await notJson.json()) as { error: { message: string } }).error.message, /feedback body/)
    const huge = await post(JSON.stringify({ traceId: TRACE, score: 1, comment: 'x'.repeat(70_000) }))
    assert.equal(huge.status, 413)
  })

  test('the SDK returns errors as values: invalid input, rejected and unreachable', async () => {
    const invalid = await feedback('not-a-trace', { score: 1 })
    assert.deepEqual(invalid.ok === false && invalid.error.code, 'FEEDBACK_INVALID')
    await shutdown()
    init({ endpoint: sieve.url, apiKey: 'wrong', disabled: true })
    const rejected = await feedback(TRACE, { score: 1 })
    assert.equal(rejected.ok === false && rejected.error.code, 'FEEDBACK_REJECTED')
    assert.match(rejected.ok === false ? rejected.error.message : '', /401/)
    await shutdown()
    init({ endpoint: 'http://127.0.0.1:9', disabled: true })
    const unreachable = await feedback(TRACE, { score: 1 })
    assert.equal(unreachable.ok === false && unreachable.error.code, 'FEEDBACK_UNREACHABLE')
  })
})

describe('POST /v1/feedback with hostile text and bodies', () => {
  // Bodies are written as JSON text: `\\ud800` here is the six characters `\ud800` on the wire.
  const body = (fields: string) => `{"traceId":"${TRACE}","score":1,${fields}}`

  test('a lone surrogate in the comment is stored as U+FFFD, and the next feedback is stored too', async () => {
    const bad = await post(body('"feedbackId":"fb-surrogate","comment":"a\\ud800b"'))
    assert.equal(bad.status, 201)
    const good = await post(body('"feedbackId":"fb-after","comment":"fine"'))
    assert.equal(good.status, 201)
    const stored = new Map((await rows(TRACE)).map((r) => [r.feedback_id, r]))
    assert.equal(stored.get('fb-surrogate')?.comment, 'a\ufffdb')
    assert.equal(stored.get('fb-after')?.comment, 'fine')
    assert.deepEqual(logged, [], 'no insert failed')
  })

  test('lone surrogates in the user id, feedback id and attribute keys and values are repaired', async () => {
    const trace = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb'
    // A high surrogate at the end (an emoji cut in half), a low one alone, a pair in the wrong order.
    const response = await post(
      `{"traceId":"${trace}","score":-1,"feedbackId":"fb-\\udc00","userId":"u-\\ud83d","attributes":{"k\\ud800":"v\\udc00\\ud800","ok":"\\ud83d\\ude00"}}`,
    )
    assert.equal(response.status, 201)
    assert.deepEqual(await response.json(), { feedbackId: 'fb-\ufffd' })
    const [row] = await rows(trace)
    assert.equal(row?.feedback_id, 'fb-\ufffd')
    assert.equal(row?.user_id, 'u-\ufffd')
    assert.deepEqual(row?.attributes, { 'k\ufffd': 'v\ufffd\ufffd', ok: '\u{1f600}' })
  })

  test('hostile bodies get 4xx naming the problem, never a storage error', async () => {
    const loggedBefore = logged.length
    const nested = (depth: number) => `${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)}`
    const cases: [string, string, number][] = [
      ['attributes nested 10,000 deep', body(`"attributes":${nested(10_000)}`), 400],
      ['a body that is arrays 30,000 deep', `${'['.repeat(30_000)}${']'.repeat(30_000)}`, 400],
      ['a score beyond a double (1e400)', `{"traceId":"${TRACE}","score":1e400}`, 400],
      ['a score of 400 digits', `{"traceId":"${TRACE}","score":${'9'.repeat(400)}}`, 400],
      ['a score as a string', `{"traceId":"${TRACE}","score":"1"}`, 400],
      ['JSON null', 'null', 400],
      ['a JSON string', '"feedback"', 400],
      ['a JSON array', '[]', 400],
      ['an attribute that is a number', body('"attributes":{"a":1}'), 400],
      ['a prototype key instead of fields', '{"__proto__":{"traceId":"x","score":1}}', 400],
    ]
    for (const [what, text, status] of cases) {
      const response = await post(text)
      assert.equal(response.status, status, what)
      const { error } = (await response.json()) as { error: { code: string; message: string } }
      assert.doesNotMatch(error.message, /storage/, what)
    }
    const charset = await post(body('"comment":"x"'), { authorization: 'Bearer key-a', 'content-type': 'application/json; charset=latin1' })
    assert.equal(charset.status, 415)
    const encoding = await post(body('"comment":"x"'), { authorization: 'Bearer key-a', 'content-encoding': 'x-unknown' })
    assert.equal(encoding.status, 415)
    const gzip = { authorization: 'Bearer key-a', 'content-encoding': 'gzip' }
    assert.equal((await post(gzipSync(Buffer.alloc(8 * 2 ** 20, ' ')), gzip)).status, 413, 'a gzip bomb')
    assert.equal((await post(body('"comment":"x"'), gzip)).status, 400, 'a body that is not gzip')
    assert.deepEqual(logged.slice(loggedBefore), [])
  })

  test('the largest and smallest doubles are stored as sent', async () => {
    const trace = 'cccccccccccccccccccccccccccccccc'
    for (const [id, score] of [
      ['max', '1.7976931348623157e308'],
      ['min', '-1.7976931348623157e308'],
      ['tiny', '5e-324'],
    ] as const) {
      const response = await post(`{"traceId":"${trace}","feedbackId":"${id}","score":${score}}`)
      assert.equal(response.status, 201, id)
    }
    const scores = Object.fromEntries((await rows(trace)).map((r) => [r.feedback_id, r.score]))
    assert.deepEqual(scores, { max: Number.MAX_VALUE, min: -Number.MAX_VALUE, tiny: 5e-324 })
  })
})
