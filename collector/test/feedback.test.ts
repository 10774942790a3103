import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { feedback, init, shutdown } from '@sieve/sdk'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736'
let sieve: RunningSieve

before(async () => {
  sieve = await startSieve({ apiKeys: new Map([['key-a', 'proj-a']]) })
  init({ endpoint: sieve.url, apiKey: 'key-a', disabled: true })
})
after(async () => {
  await shutdown()
  await sieve.stop()
})

async function rows(traceId: string) {
  const result = await sieve.storage.query({ query: `SELECT * FROM feedback FINAL WHERE trace_id = {t:String} ORDER BY feedback_id`, query_params: { t: traceId }, format: 'JSONEachRow' })
  return result.json<Record<string, unknown>>()
}

const post = (body: string, headers: Record<string, string> = { authorization: 'Bearer key-a' }) =>
  fetch(`${sieve.url}/v1/feedback`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body })

describe('POST /v1/feedback', () => {
  test('stores feedback sent by the SDK under the key\'s project', async () => {
    const result = await feedback(TRACE.toUpperCase(), { score: -1, comment: 'refunded without asking', source: 'user', userId: 'u-9', attributes: { channel: 'chat' } })
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
    assert.match(error.message, /traceId/)
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
