import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Backoff, backoffDelay, parseRetryAfter } from '../src/index.js'

const range = { baseMs: 100, maxMs: 1000 }

test('the delay doubles from baseMs and stops at maxMs', () => {
  assert.deepEqual(
    [0, 1, 2, 3, 4, 5].map((attempt) => backoffDelay(attempt, range)),
    [100, 200, 400, 800, 1000, 1000],
  )
})

test('a retry loop that never gives up stays at maxMs, whatever the attempt (0 ms stays 0 ms)', () => {
  for (const attempt of [1023, 1024, 5000, Number.MAX_SAFE_INTEGER]) assert.equal(backoffDelay(attempt, range), 1000)
  assert.equal(backoffDelay(5000, { baseMs: 0, maxMs: 1000 }), 0)
})

test('Retry-After lengthens the delay but never past maxMs', () => {
  assert.equal(backoffDelay(0, range, { retryAfterMs: 700 }), 700)
  assert.equal(backoffDelay(3, range, { retryAfterMs: 300 }), 800, 'a shorter Retry-After leaves the back-off as it is')
  assert.equal(backoffDelay(0, range, { retryAfterMs: 60_000 }), 1000)
})

test('full jitter: a random delay up to the doubled one, still at least Retry-After', () => {
  assert.equal(backoffDelay(2, range, { jitter: true, random: () => 0 }), 0)
  assert.equal(backoffDelay(2, range, { jitter: true, random: () => 0.5 }), 200)
  assert.equal(backoffDelay(2, range, { jitter: true, random: () => 0.999 }), 400)
  assert.equal(backoffDelay(9, range, { jitter: true, random: () => 0.5 }), 500, 'the cap applies before the jitter')
  assert.equal(backoffDelay(2, range, { jitter: true, random: () => 0, retryAfterMs: 250 }), 250)
  for (let i = 0; i < 100; i++) {
    const delay = backoffDelay(3, range, { jitter: true })
    assert.ok(delay >= 0 && delay <= 800 && Number.isInteger(delay), `${delay}`)
  }
})

test('Backoff: one run of failures grows to the cap; reset starts again at baseMs', () => {
  const backoff = new Backoff({ baseMs: 250, maxMs: 30_000 })
  const run = () => Array.from({ length: 9 }, () => backoff.next())
  assert.deepEqual(run(), [250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
  backoff.reset()
  assert.deepEqual(run(), [250, 500, 1000, 2000, 4000, 8000, 16_000, 30_000, 30_000])
})

test('Backoff honours a Retry-After per delay and jitters when asked', () => {
  const backoff = new Backoff(range, { jitter: true, random: () => 0.5 })
  assert.equal(backoff.next(), 50)
  assert.equal(backoff.next(900), 900)
  assert.equal(backoff.next(), 200)
})

test('Retry-After as seconds or an HTTP date, 0 when absent or unreadable', () => {
  const now = Date.parse('2025-01-01T00:00:00Z')
  assert.equal(parseRetryAfter('2', now), 2000)
  assert.equal(parseRetryAfter('0.5', now), 500)
  assert.equal(parseRetryAfter('-3', now), 0)
  assert.equal(parseRetryAfter('Wed, 01 Jan 2025 00:00:07 GMT', now), 7000)
  assert.equal(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now), 0, 'a date already past')
  assert.equal(parseRetryAfter('soon', now), 0)
  assert.equal(parseRetryAfter(null, now), 0)
  assert.equal(parseRetryAfter(undefined, now), 0)
  assert.equal(parseRetryAfter('', now), 0)
})
