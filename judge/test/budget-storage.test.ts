// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { until, verdict, type FakeOpenAI, supportConversation, numberedTraceId } from '@sieve/testkit'
import { judgeStage } from './stage-harness.js'
import { judgeTestbed, type Testbed } from './testbed.js'

/*
 * Daily budgets kept in storage (`judge_budget`, migration 0010), embedded or over HTTP: a restart,
 * a crash and a second scorer instance all count against the same cap. The generic rubric makes 4
 * calls a trace; each call costs 0.0012 USD at the harness's price (1000 tokens in, 100 out).
 * Each test runs on a day of its own (`at(n)`: n days from today), so their rows do not meet.
 */
let testbed: Testbed
let storage: Storage
let server: FakeOpenAI

before(async () => {
  testbed = await judgeTestbed('judge-budget')
  ;({ storage, server } = testbed)
})
after(() => testbed.close())

// Days from today on: a day past the retention (30 days) would be deleted by the table's TTL.
const DAY = 86_400_000
const today = Math.floor(Date.now() / DAY) * DAY
const at = (day: number) => () => today + day * DAY + DAY / 2
const dayOf = (day: number) => new Date(today + day * DAY).toISOString().slice(0, 10)
let nextTrace = 1
const plain = () => supportConversation(numberedTraceId(nextTrace++))
const toolError = () => supportConversation(numberedTraceId(nextTrace++), { toolError: true })

function stage(section: Record<string, unknown>, now: () => number, budgetSync?: { flushMs?: number; refreshMs?: number }) {
  return judgeStage(server, section, (r) => verdict(r, 3), { inThread: true, storage, now, ...(budgetSync ? { budgetSync } : {}) })
}

async function stored(day: string): Promise<Record<string, { calls: number; spend: number }>> {
  const result = await storage.query({
    query: `SELECT slice, toUInt32(sum(calls)) AS calls, sum(spend_usd) AS spend FROM judge_budget FINAL WHERE utc_day = {day:Date} GROUP BY slice ORDER BY slice`,
    query_params: { day },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ slice: string; calls: number; spend: number }>()
  return Object.fromEntries(rows.map((r) => [r.slice, { calls: r.calls, spend: Number(r.spend.toFixed(6)) }]))
}

const capped = {
  sampling: { rate: 1, slices: [{ name: 'tools', match: { kind: 'tool_error' }, budget: { callsPerDay: 8 } }] },
  budgets: { callsPerDay: 40 },
}

test('a restarted stage stops at the daily caps, global and per slice, that the stage before it left', async () => {
  const first = stage(capped, at(1))
  await first.stage.ready()
  const taken = [toolError(), toolError(), plain(), plain(), plain()].map((trace) => first.stage.offer({ trace, checks: [] }))
  assert.deepEqual(taken, ['tools', 'tools', 'random', 'random', 'random'])
  await first.stage.drain()
  await first.stage.close()
  assert.equal(server.requests.length, 20)
  assert.deepEqual(await stored(dayOf(1)), { random: { calls: 12, spend: 0.0144 }, tools: { calls: 8, spend: 0.0096 } })

  // The restart, the same UTC day: 20 of 40 calls are spent, the tools slice's 8 of 8.
  const second = stage(capped, at(1))
  await second.stage.ready()
  assert.equal(second.stage.budget().callsToday, 20)
  assert.equal(second.stage.budget().spendToday.toFixed(6), '0.024000')
  assert.equal(second.stage.offer({ trace: toolError(), checks: [] }), 'random', 'the tools slice is spent; the random sample takes the trace')
  assert.equal(second.metrics.get('skipped{slice=tools,reason=slice_calls_per_day}'), 1)
  const rest = Array.from({ length: 10 }, () => second.stage.offer({ trace: plain(), checks: [] }))
  assert.equal(rest.filter((s) => s === 'random').length, 4, '24 + 4 × 4 = 40')
  assert.equal(second.metrics.get('skipped{slice=random,reason=calls_per_day}'), 6)
  await second.stage.drain()
  await second.stage.close()
  assert.equal(server.requests.length, 20, 'the restart made 20 calls: 40 in all, the cap')
  assert.deepEqual(await stored(dayOf(1)), { random: { calls: 32, spend: 0.0384 }, tools: { calls: 8, spend: 0.0096 } })

  // The next UTC day starts afresh.
  const tomorrow = stage(capped, at(2))
  await tomorrow.stage.ready()
  assert.equal(tomorrow.stage.offer({ trace: toolError(), checks: [] }), 'tools')
  await tomorrow.stage.drain()
  await tomorrow.stage.close()
})

test('a stage that dies without closing has stored its use within the flush interval', async () => {
  const crashed = stage(capped, at(3), { flushMs: 50 })
  await crashed.stage.ready()
  for (let i = 0; i < 5; i++) crashed.stage.offer({ trace: plain(), checks: [] })
  await crashed.stage.drain()
  await until("the crashed stage's use is stored", async () => (await stored(dayOf(3))).random?.calls === 20, 5000)

  const restarted = stage(capped, at(3))
  await restarted.stage.ready()
  const taken = Array.from({ length: 10 }, () => restarted.stage.offer({ trace: plain(), checks: [] }))
  assert.equal(taken.filter(Boolean).length, 5, '20 + 5 × 4 = 40')
  await restarted.stage.drain()
  await restarted.stage.close()
  await crashed.stage.close()
})

test('two stages running at once share one daily cap', async () => {
  const a = stage(capped, at(4))
  const b = stage(capped, at(4))
  await Promise.all([a.stage.ready(), b.stage.ready()])
  const taken: Array<string | undefined> = []
  for (let i = 0; i < 20; i++) {
    const [self, other] = i % 2 ? [b, a] : [a, b]
    taken.push(self.stage.offer({ trace: plain(), checks: [] }))
    // What a second of flushing and a few seconds of refreshing do: each sees the other's use.
    await self.stage.syncBudget()
    await other.stage.syncBudget()
  }
  assert.equal(taken.filter(Boolean).length, 10)
  assert.equal(a.metrics.get('skipped{slice=random,reason=calls_per_day}') + b.metrics.get('skipped{slice=random,reason=calls_per_day}'), 10)
  await Promise.all([a.stage.drain(), b.stage.drain()])
  await Promise.all([a.stage.close(), b.stage.close()])
  assert.equal(server.requests.length, 40)
  assert.deepEqual(await stored(dayOf(4)), { random: { calls: 40, spend: 0.048 } })
})

test('between reads each stage sees only its own use: the overshoot is what the other reserved since, and then both stop', async () => {
  const sync = { flushMs: 50, refreshMs: 100 }
  const a = stage(capped, at(5), sync)
  const b = stage(capped, at(5), sync)
  await Promise.all([a.stage.ready(), b.stage.ready()])
  // In one go, before either can read the other: a takes 5 traces (20 calls), b sees nothing of them and takes 10 (40).
  const takenA = Array.from({ length: 5 }, () => a.stage.offer({ trace: plain(), checks: [] }))
  const takenB = Array.from({ length: 12 }, () => b.stage.offer({ trace: plain(), checks: [] }))
  assert.deepEqual([takenA.filter(Boolean).length, takenB.filter(Boolean).length], [5, 10])
  // Once the timers have written and read: 60 calls against the cap of 40, 20 over it: a's reservations since b's last read.
  await until('both stages see all 60 calls', () => a.stage.budget().callsToday === 60 && b.stage.budget().callsToday === 60, 5000)
  assert.equal(a.stage.offer({ trace: plain(), checks: [] }), undefined)
  assert.equal(b.stage.offer({ trace: plain(), checks: [] }), undefined)
  await Promise.all([a.stage.drain(), b.stage.drain()])
  await Promise.all([a.stage.close(), b.stage.close()])
  assert.equal((await stored(dayOf(5))).random!.calls, 60)
})

test("until the day's use is read, offer() refuses daily-capped calls and consider() waits for the read", async () => {
  const s = stage(capped, at(6))
  assert.equal(s.stage.offer({ trace: plain(), checks: [] }), undefined, 'decided before the read')
  assert.equal(s.metrics.get('skipped{slice=random,reason=budget_unknown}'), 1)
  assert.equal(await s.stage.consider({ trace: plain(), checks: [] }), 'random')
  await s.stage.drain()
  await s.stage.close()
})

test('with storage down no daily-capped call is made; the failure is counted and logged once', async () => {
  const down = new Error('storage down')
  const broken = { query: async () => Promise.reject(down), insert: async () => Promise.reject(down) } as unknown as Storage
  const logged: string[] = []
  const error = console.error
  console.error = (message: string) => void logged.push(message)
  try {
    const { stage: s, metrics } = judgeStage(server, capped, (r) => verdict(r, 3), {
      inThread: true,
      storage: broken,
      now: at(7),
      budgetSync: { refreshMs: 20 },
    })
    assert.equal(await s.consider({ trace: plain(), checks: [] }), undefined)
    assert.equal(metrics.get('skipped{slice=random,reason=budget_unknown}'), 1)
    await until('reads failed again', () => metrics.get('budget_sync_errors{op=read}') >= 3, 5000)
    assert.equal(logged.filter((m) => m.includes('budget use')).length, 1)
    await s.close()
  } finally {
    console.error = error
  }
  assert.equal(server.requests.length, 0)
})

test('without a daily limit nothing is kept in storage and nothing waits for it', async () => {
  const { stage: s } = judgeStage(server, { sampling: { rate: 1 }, budgets: { callsPerMinute: 100 } }, (r) => verdict(r, 3), {
    inThread: true,
    storage,
    now: at(8),
  })
  assert.equal(s.offer({ trace: plain(), checks: [] }), 'random')
  await s.drain()
  await s.close()
  assert.deepEqual(await stored(dayOf(8)), {})
})
