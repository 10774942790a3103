// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import type { Storage } from '@sieve/core'
import { insertSpans, loadConfig } from '@sieve/core'
import { createJudge, type JudgeRuntime } from '@sieve/judge'
import { loadReviewSetup, parseLabels, readAnnotationLabels } from '@sieve/review'
import { clickhouseScoreSink } from '@sieve/scoring'
import { startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { openEngine } from './support/engine.js'
import { startApi } from './support/app.js'
import { DISAGREEING_LABELS, scriptedJudge, supportTrace, traceIdOf } from './support/review.js'

/*
 * The review queue's API over the real judge: seven traces of project `alpha` and one of `beta` are
 * judged by the judge stage (its model testkit's fake server, scripted per dimension), which stores
 * its verdicts and, behind them, fills each project's queue. A trust rule of five labels, so five
 * labels decide. Key `key-alpha` reads alpha, `key-beta` beta.
 */
let storage: Storage
let model: FakeOpenAI
let judge: JudgeRuntime
let api: Awaited<ReturnType<typeof startApi>>
const registry = new Registry()
const ALPHA = 'key-alpha'
const BETA = 'key-beta'
const alpha = (n: number) => traceIdOf('alpha', n)

before(async () => {
  storage = await openEngine()
  model = await startFakeOpenAI({ script: scriptedJudge })
  const dir = mkdtempSync(join(tmpdir(), 'sieve-review-api-'))
  const file = join(dir, 'sieve.yaml')
  writeFileSync(file, ['judge:', '  sampling: { rate: 1 }', '  calibration: { minLabels: 5 }', 'review:', '  rules: { secondLabeller: 1 }'].join('\n'))
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_DATA_DIR: dir, JUDGE_BASE_URL: model.baseURL, JUDGE_MODEL: 'gpt-4o-2024-08-06' })
  judge = createJudge(config, clickhouseScoreSink(storage), registry, storage, { feedbackPollMs: 3_600_000, log: () => {} })!
  const traces = [...[1, 2, 3, 4, 5, 6, 7].map((n) => supportTrace('alpha', n)), supportTrace('beta', 1), supportTrace('alpha', 8)]
  await insertSpans(
    storage,
    traces.flatMap((t) => t.spans),
  )
  // One at a time, so the queue holds them in this order. Trace alpha 8 is never judged: a person adds it from the trace view.
  for (const trace of traces.slice(0, -1)) {
    judge.stage.offer({ trace, checks: [] })
    await judge.drain()
  }
  api = await startApi({ client: storage, keys: { [ALPHA]: 'alpha', [BETA]: 'beta' }, review: loadReviewSetup(config) })
})

after(async () => {
  await api?.close()
  await judge?.stop()
  await model?.close()
  await storage?.close()
})

const label = (n: number, reviewer: string, labels: Record<string, number> = DISAGREEING_LABELS, key = ALPHA, note?: string) =>
  api.post('/api/review/labels', { rubric: 'generic', traceId: alpha(n), reviewer, labels, ...(note ? { note } : {}) }, key)
const next = (reviewer: string, key = ALPHA) => api.get(`/api/review/next?rubric=generic&reviewer=${encodeURIComponent(reviewer)}`, key)
const dimension = (calibration: { dimensions: { dimension: string }[] }, id: string) => calibration.dimensions.find((d) => d.dimension === id) as any

describe('queues', () => {
  test("every judged trace enters its own project's queue once, taken by the first rule that holds (too few labels)", async () => {
    const queues = await api.get('/api/review/queues?reviewer=ana')
    assert.equal(queues.status, 200, JSON.stringify(queues.body))
    const generic = queues.body.queues.find((q: { rubric: string }) => q.rubric === 'generic')
    assert.deepEqual({ items: generic.items, open: generic.open, waiting: generic.waiting }, { items: 7, open: 7, waiting: 7 })
    assert.deepEqual({ version: generic.rules.version, source: generic.rules.source }, { version: 0, source: 'config' })
    const rows = await (
      await storage.query({ query: 'SELECT project_id, trace_id, reason, dimensions FROM review_queue ORDER BY project_id, trace_id', format: 'JSONEachRow' })
    ).json<{ project_id: string; trace_id: string; reason: string; dimensions: string[] }>()
    assert.deepEqual(
      rows.map((r) => `${r.project_id} ${r.trace_id}`),
      [...[1, 2, 3, 4, 5, 6, 7].map((n) => `alpha ${alpha(n)}`), `beta ${traceIdOf('beta', 1)}`],
    )
    assert.ok(
      rows.every((r) => r.reason === 'few_labels' && r.dimensions.length === 4),
      JSON.stringify(rows[0]),
    )
    assert.equal(judge.stage.metrics.get('review_queued{reason=few_labels}'), 8)
    const beta = (await api.get('/api/review/queues', BETA)).body.queues.find((q: { rubric: string }) => q.rubric === 'generic')
    assert.equal(beta.items, 1)
  })

  test("the next trace carries its conversation and the rubric's anchored levels, never the judge's verdict", async () => {
    const { status, body } = await next('ana')
    assert.equal(status, 200, JSON.stringify(body))
    assert.equal(body.item.traceId, alpha(1))
    assert.equal(body.remaining, 7)
    assert.equal(body.item.reason, 'few_labels')
    assert.deepEqual(
      body.item.conversation.turns.map((t: { role: string }) => t.role),
      ['user', 'assistant'],
    )
    assert.match(body.item.conversation.turns[0].text, /Where is my order A-1001\?/)
    assert.deepEqual(
      body.rubric.dimensions.map((d: { id: string }) => d.id),
      ['goal_completion', 'groundedness', 'safety_scope', 'communication'],
    )
    assert.deepEqual(
      body.rubric.dimensions[1].levels.map((l: { score: number }) => l.score),
      [1, 2, 3, 4],
    )
    assert.ok(body.rubric.dimensions[1].levels.every((l: { anchor: string }) => l.anchor.length > 10))
    // The scripted judge's reasoning, and anything that reads like a verdict, is nowhere in the answer.
    assert.doesNotMatch(JSON.stringify(body), /answered from the tool result|"level"|evaluation|judgeModel/)
  })

  test('a label outside the scale, on a dimension or rubric that does not exist, or without a reviewer, is a 400 naming it', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ labels: { groundedness: 7 } }, /labels\.groundedness: 7 is not a level of generic\.groundedness, whose scale is 1 to 4/],
      [{ labels: { groundedness: 2.5 } }, /labels\.groundedness: 2\.5 is not a level .* scale is 1 to 4/],
      [{ labels: { tone: 2 } }, /labels\.tone: rubric 'generic' has no dimension 'tone' \(has: goal_completion, groundedness, safety_scope, communication\)/],
      [{ labels: {} }, /labels: give a level for at least one dimension/],
      [{ rubric: 'nope' }, /rubric: no rubric 'nope' in this Sieve \(rubrics: customer-support, generic\)/],
      [{ rubric: '../x' }, /rubric: a rubric id is kebab-case/],
      [{ reviewer: '' }, /reviewer: a reviewer name is needed/],
      [{ reviewer: 'x'.repeat(65) }, /reviewer: a reviewer name is at most 64 characters/],
      [{ reviewer: '<script>' }, /reviewer: a reviewer name is letters, digits/],
      [{ note: 'n'.repeat(2001) }, /note: a note is at most 2000 characters/],
      [{ traceId: 'xyz' }, /traceId: must be 32 hex digits/],
      [{ extra: 1 }, /extra/],
    ]
    for (const [change, message] of cases) {
      const { status, body } = await api.post('/api/review/labels', {
        rubric: 'generic',
        traceId: alpha(1),
        reviewer: 'ana',
        labels: { groundedness: 2 },
        ...change,
      })
      assert.equal(status, 400, `${JSON.stringify(change)}: ${JSON.stringify(body)}`)
      assert.equal(body.error.code, 'INVALID_PARAMETER')
      assert.match(body.error.message, message)
    }
    const missing = await api.post('/api/review/labels', { rubric: 'generic', traceId: '0'.repeat(32), reviewer: 'ana', labels: { groundedness: 2 } })
    assert.equal(missing.status, 404)
    assert.match(missing.body.error.message, /not in this project's generic queue/)
    assert.equal((await api.get('/api/review/next?rubric=generic')).status, 400, 'the reviewer is asked for')
    assert.equal((await api.get('/api/review/next?rubric=generic&reviewer=ana&reviewer=bo')).status, 400, 'once')
  })
})

describe('labels and calibration', () => {
  test("a label is stored as annotator feedback and answered with the judge's verdict beside it; calibration follows", async () => {
    const first = await label(1, 'ana', DISAGREEING_LABELS, ALPHA, 'the answer cites no tool')
    assert.equal(first.status, 201, JSON.stringify(first.body))
    assert.equal(first.body.stored, 4)
    assert.equal(first.body.verdict.judged, true)
    assert.deepEqual(Object.fromEntries(first.body.verdict.dimensions.map((d: { dimension: string; level: number }) => [d.dimension, d.level])), {
      goal_completion: 4,
      groundedness: 4,
      safety_scope: 4,
      communication: 3,
    })
    assert.match(first.body.verdict.dimensions[0].explanation, /answered from the tool result/)
    const groundedness = dimension(first.body.calibration, 'groundedness')
    assert.equal(groundedness.current.judge.n, 1)
    assert.equal(groundedness.current.trusted, false)
    assert.deepEqual(
      groundedness.current.failed.map((f: { rule: string }) => f.rule),
      ['minLabels', 'threshold', 'minKappa'],
    )
    assert.equal(groundedness.current.source, 'review')
    const rows = await (
      await storage.query({
        query:
          "SELECT trace_id, source, user_id, score, comment, attributes['rubric'] AS rubric, attributes['dimension'] AS dimension FROM feedback FINAL WHERE project_id = 'alpha' ORDER BY dimension",
        format: 'JSONEachRow',
      })
    ).json<Record<string, unknown>>()
    assert.deepEqual(
      rows.map((r) => `${r.dimension}=${r.score}`),
      ['communication=3', 'goal_completion=4', 'groundedness=1', 'safety_scope=4'],
    )
    assert.ok(
      rows.every(
        (r) => r.source === 'annotator' && r.user_id === 'ana' && r.rubric === 'generic' && r.comment === 'the answer cites no tool' && r.trace_id === alpha(1),
      ),
    )

    for (const n of [2, 3, 4, 5]) assert.equal((await label(n, 'ana')).status, 201)
    const calibration = (await api.get('/api/review/calibration?rubric=generic')).body
    const g = dimension(calibration, 'groundedness')
    assert.equal(g.current.trusted, false)
    assert.deepEqual(
      g.current.failed.map((f: { rule: string }) => f.rule),
      ['threshold', 'minKappa'],
    )
    assert.equal(g.current.judge.n, 5)
    assert.equal(g.current.judge.withinOne, 0)
    for (const id of ['goal_completion', 'safety_scope', 'communication']) {
      assert.equal(dimension(calibration, id).current.trusted, true, id)
      assert.equal(dimension(calibration, id).current.judge.exact, 1, id)
    }
    // Agreement over time: one point per label, the labels counted as they came.
    assert.deepEqual(
      g.history.map((p: { labels: number }) => p.labels),
      [1, 2, 3, 4, 5],
    )
    assert.deepEqual(
      g.history.map((p: { trusted: boolean }) => p.trusted),
      [false, false, false, false, false],
    )
    assert.deepEqual(
      dimension(calibration, 'communication').history.map((p: { trusted: boolean }) => p.trusted),
      [false, false, false, false, true],
    )
  })

  test('every figure that shows the dimension marks it untrusted, and /metrics says so', async () => {
    const quality = (await api.get('/api/quality?kind=judge')).body
    const trust = Object.fromEntries(quality.series.map((s: { check: string; trusted: boolean | null }) => [s.check, s.trusted]))
    assert.equal(trust['generic.groundedness'], false)
    assert.equal(trust['generic.communication'], true)
    const trace = (await api.get(`/api/traces/${alpha(1)}`)).body
    const grounded = trace.scores.find((s: { name: string }) => s.name === 'generic.groundedness')
    assert.equal(grounded.trusted, false)
    assert.equal(trace.scores.find((s: { name: string }) => s.name === 'generic.communication').trusted, true)
    assert.equal(
      trace.scores.find((s: { name: string }) => s.name === 'generic').trusted,
      false,
      "the rubric's weighted score leans on the untrusted dimension",
    )
    // A scorecard whose hard gate reads the dimension: the gate is marked too.
    await storage.insert({
      table: 'scores',
      format: 'JSONEachRow',
      values: [
        {
          project_id: 'alpha',
          trace_id: alpha(1),
          span_id: '',
          scorer_name: 'scorecard',
          kind: 'scorecard',
          scorer_version: '1',
          value: 0.5,
          passed: 0,
          detail: JSON.stringify({
            card: 'support',
            passAt: 0.8,
            failedGates: ['generic.groundedness'],
            missing: [],
            items: [{ name: 'generic.groundedness', kind: 'judge', weight: 1, gate: true, state: 'fail' }],
          }),
          trace_start_time: new Date(Date.now() - 300_000).toISOString().replace('T', ' ').replace('Z', ''),
        },
      ],
    })
    const card = (await api.get('/api/scorecard')).body
    assert.deepEqual(card.gates, [{ name: 'generic.groundedness', kind: 'judge', failed: 1, untrusted: true }])
    const worst = (await api.get('/api/worst?sort=judge')).body.traces
    assert.ok(worst.length > 0 && worst.every((t: { judgeUntrusted: boolean }) => t.judgeUntrusted), 'every judged trace reads the untrusted dimension')
    const metrics = await registry.metrics()
    assert.match(metrics, /sieve_judge_dimension_trusted\{project="alpha",dimension="generic\.groundedness"\} 0/)
    assert.match(metrics, /sieve_judge_dimension_trusted\{project="alpha",dimension="generic\.communication"\} 1/)
    assert.match(metrics, /sieve_judge_dimension_labels\{project="alpha",dimension="generic\.groundedness"\} 5/)
    assert.doesNotMatch(metrics, /project="beta"/)
  })

  test('sieve judge calibrate --from-annotations reads the labels unchanged', async () => {
    const labels = (await readAnnotationLabels(storage)).filter((l) => l.projectId === 'alpha')
    assert.equal(labels.length, 5)
    assert.deepEqual(labels[0]!.labels, DISAGREEING_LABELS)
  })

  test("a second reviewer is offered the traces the first labelled, and people's agreement stands beside the judge's", async () => {
    const offered = await next('bo')
    assert.equal(offered.body.item.traceId, alpha(1), 'labelled once, in the second-labeller share')
    assert.equal(offered.body.item.labellers, 1)
    const second = await label(1, 'bo', { ...DISAGREEING_LABELS, groundedness: 2 })
    assert.equal(second.status, 201)
    assert.deepEqual(second.body.others, [{ reviewer: 'ana', labels: DISAGREEING_LABELS, note: 'the answer cites no tool' }])
    await label(2, 'bo', { ...DISAGREEING_LABELS, groundedness: 2 })
    const calibration = (await api.get('/api/review/calibration?rubric=generic')).body
    const g = dimension(calibration, 'groundedness')
    assert.deepEqual({ n: g.current.humans.n, exact: g.current.humans.exact, withinOne: g.current.humans.withinOne }, { n: 2, exact: 0, withinOne: 1 })
    assert.equal(g.history.at(-1).humanPairs, 2)
    assert.equal(g.current.judge.n, 5, 'the judge is measured against the first labeller')
    // Ana labelled five traces: two remain for her.
    assert.equal((await next('ana')).body.remaining, 2)
  })

  test('a skipped trace is not offered again until undone; a label undone is withdrawn and calibration recomputed', async () => {
    const before = await next('bo')
    assert.equal(before.body.item.traceId, alpha(3))
    assert.equal((await api.post('/api/review/skip', { rubric: 'generic', traceId: alpha(3), reviewer: 'bo' })).status, 200)
    assert.equal((await next('bo')).body.item.traceId, alpha(4))
    const unskipped = await api.post('/api/review/undo', { rubric: 'generic', traceId: alpha(3), reviewer: 'bo' })
    assert.deepEqual({ withdrawn: unskipped.body.withdrawn, unskipped: unskipped.body.unskipped }, { withdrawn: 0, unskipped: true })
    assert.equal((await next('bo')).body.item.traceId, alpha(3))

    const undone = await api.post('/api/review/undo', { rubric: 'generic', traceId: alpha(2), reviewer: 'bo' })
    assert.equal(undone.status, 200, JSON.stringify(undone.body))
    assert.equal(undone.body.withdrawn, 4)
    assert.equal(dimension(undone.body.calibration, 'groundedness').current.humans.n, 1)
    const item = await api.get(`/api/review/next?rubric=generic&reviewer=bo&traceId=${alpha(2)}`)
    assert.deepEqual({ labelledByYou: item.body.item.labelledByYou, labellers: item.body.item.labellers }, { labelledByYou: false, labellers: 1 })
    assert.equal((await readAnnotationLabels(storage)).find((l) => l.traceId === alpha(2))!.secondLabels, undefined, 'the withdrawn label is no annotation')
  })

  test("labels export as the JSONL sieve judge calibrate --labels takes, one project's only", async () => {
    const res = await fetch(`${api.base}/api/review/labels.jsonl?rubric=generic`, { headers: { 'x-api-key': ALPHA } })
    assert.equal(res.status, 200)
    assert.match(res.headers.get('content-type') ?? '', /application\/x-ndjson/)
    const labels = parseLabels(await res.text(), 'export')
    assert.equal(labels.length, 5)
    assert.ok(labels.every((l) => l.projectId === 'alpha' && l.rubric === 'generic'))
    assert.deepEqual(labels.find((l) => l.traceId === alpha(1))!.secondLabels, { ...DISAGREEING_LABELS, groundedness: 2 })
    const beta = await fetch(`${api.base}/api/review/labels.jsonl`, { headers: { 'x-api-key': BETA } })
    assert.equal(await beta.text(), '')
  })
})

describe('rules and manual adds', () => {
  test("the config file's rules are version 0; each save from the form is a new version, validated", async () => {
    const configured = (await api.get('/api/review/rules?rubric=generic')).body
    assert.deepEqual(
      { version: configured.inEffect.version, source: configured.inEffect.source, second: configured.inEffect.rules.secondLabeller },
      { version: 0, source: 'config', second: 1 },
    )
    const rules = { ...configured.inEffect.rules, randomShare: 0.5, tooFewLabels: false }
    const saved = await api.post('/api/review/rules', { rubric: 'generic', reviewer: 'ana', rules })
    assert.equal(saved.status, 201, JSON.stringify(saved.body))
    assert.equal(saved.body.version, 1)
    assert.equal((await api.post('/api/review/rules', { rubric: 'generic', reviewer: 'bo', rules: { ...rules, randomShare: 0.25 } })).body.version, 2)
    const now = (await api.get('/api/review/rules?rubric=generic')).body
    assert.deepEqual(
      { version: now.inEffect.version, source: now.inEffect.source, share: now.inEffect.rules.randomShare, author: now.inEffect.author },
      { version: 2, source: 'stored', share: 0.25, author: 'bo' },
    )
    assert.deepEqual(
      now.history.map((h: { version: number }) => h.version),
      [2, 1],
    )
    const bad = await api.post('/api/review/rules', { rubric: 'generic', reviewer: 'ana', rules: { ...rules, randomShare: 2 } })
    assert.equal(bad.status, 400)
    assert.match(bad.body.error.message, /rules\.randomShare/)
    assert.equal((await api.get('/api/review/rules?rubric=generic', BETA)).body.inEffect.source, 'config', "another project's rules are its own")
  })

  test('a person adds a trace from the trace view, once; it waits in the queue as manual', async () => {
    const added = await api.post('/api/review/queue', { rubric: 'generic', traceId: alpha(8), reviewer: 'ana' })
    assert.equal(added.status, 201, JSON.stringify(added.body))
    assert.equal(added.body.added, true)
    const again = await api.post('/api/review/queue', { rubric: 'generic', traceId: alpha(8), reviewer: 'bo' })
    assert.equal(again.status, 200)
    assert.deepEqual(
      { added: again.body.added, why: again.body.why },
      { added: false, why: "already in this project's generic queue: a trace enters a queue once" },
    )
    const judged = await api.post('/api/review/queue', { rubric: 'generic', traceId: alpha(6), reviewer: 'ana' })
    assert.equal(judged.body.added, false, 'a trace a rule queued is in already')
    const item = await api.get(`/api/review/next?rubric=generic&reviewer=cy&traceId=${alpha(8)}`)
    assert.deepEqual({ reason: item.body.item.reason, addedBy: item.body.item.addedBy }, { reason: 'manual', addedBy: 'ana' })
  })
})

describe('another project', () => {
  test("a second project's reviewer sees none of it: not the traces, the labels, the verdicts nor the calibration", async () => {
    const offered = await next('eve', BETA)
    assert.equal(offered.body.item.traceId, traceIdOf('beta', 1), 'its own trace only')
    assert.equal(offered.body.remaining, 1)
    for (const [path, body] of [
      ['/api/review/labels', { rubric: 'generic', traceId: alpha(6), reviewer: 'eve', labels: { groundedness: 2 } }],
      ['/api/review/skip', { rubric: 'generic', traceId: alpha(6), reviewer: 'eve' }],
      ['/api/review/undo', { rubric: 'generic', traceId: alpha(1), reviewer: 'ana' }],
      ['/api/review/queue', { rubric: 'generic', traceId: alpha(8), reviewer: 'eve' }],
    ] as const) {
      const res = await api.post(path, body, BETA)
      assert.equal(res.status, 404, `${path}: ${JSON.stringify(res.body)}`)
      assert.doesNotMatch(JSON.stringify(res.body), /ana|groundedness/)
    }
    assert.equal((await api.get(`/api/review/next?rubric=generic&reviewer=eve&traceId=${alpha(1)}`, BETA)).status, 404)
    const calibration = (await api.get('/api/review/calibration?rubric=generic', BETA)).body
    assert.ok(calibration.dimensions.every((d: { current: unknown; history: unknown[] }) => d.current === null && d.history.length === 0))
    const quality = (await api.get('/api/quality?kind=judge', BETA)).body
    assert.ok(
      quality.series.every((s: { trusted: boolean | null }) => s.trusted === null),
      'beta was never calibrated',
    )
    assert.equal((await api.get('/api/review/queues?reviewer=ana', BETA)).body.queues.find((q: { rubric: string }) => q.rubric === 'generic').items, 1)
    // And no key reads nothing.
    assert.equal((await api.get('/api/review/queues', 'no-such-key')).status, 401)
  })
})
