// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { Registry } from 'prom-client'
import type { Storage, Trace } from '@sieve/core'
import { loadConfig } from '@sieve/core'
import { clickhouseScoreSink, type ScoreRecord } from '@sieve/scoring'
import { dimensionOf, firstCitation, say, verdict, type FakeOpenAI, type ModelRequest, type Step, supportConversation, numberedTraceId } from '@sieve/testkit'
import { createJudge, type JudgeRuntime } from '../src/index.js'
import { hashUnit } from '../src/sampling.js'
import { queueReason, type DimensionVerdict } from '../src/review/queue-rules.js'
import { ReviewFiller } from '../src/review/review-filler.js'
import { DEFAULT_REVIEW_RULES, liveCalibration, loadReviewSetup, recalibrate, saveRules, type ReviewRules } from '@sieve/review'
import { JudgeMetrics } from '@sieve/judging'
import { judgeTestbed, type Testbed } from './testbed.js'

/*
 * The review queues behind the judge: the rules that take a judged trace (a pure function, then the
 * judge stage over real storage and testkit's fake model), the queue's bound, rules saved in storage,
 * and calibration recomputed from stored labels and stored verdicts as labels arrive.
 */
let testbed: Testbed
let storage: Storage
let server: FakeOpenAI

before(async () => {
  testbed = await judgeTestbed('review-queue')
  ;({ storage, server } = testbed)
})
after(() => testbed.close())

const facts = { trusted: () => undefined, labelled: () => 100, minLabels: 20 }
const v = (name: string, label = 'pass', level: number | null = 3): DimensionVerdict => ({ name, label, level })
const none: ReviewRules = {
  ...DEFAULT_REVIEW_RULES,
  panelDisagreement: false,
  unverifiedEvidence: false,
  untrustedDimensions: false,
  tooFewLabels: false,
  randomShare: 0,
}

describe('which judged traces the rules take', () => {
  test('the first rule that holds names the reason and the dimensions that made it', () => {
    const verdicts = [v('generic.goal_completion', 'needs_review'), v('generic.groundedness', 'unverified_evidence'), v('generic.communication')]
    const untrusted = { ...facts, trusted: (n: string) => (n === 'generic.communication' ? false : undefined) }
    assert.deepEqual(queueReason(numberedTraceId(1), verdicts, DEFAULT_REVIEW_RULES, untrusted), {
      reason: 'panel_disagreement',
      dimensions: ['generic.goal_completion'],
    })
    assert.deepEqual(queueReason(numberedTraceId(1), verdicts, { ...DEFAULT_REVIEW_RULES, panelDisagreement: false }, untrusted), {
      reason: 'unverified_evidence',
      dimensions: ['generic.groundedness'],
    })
    assert.deepEqual(queueReason(numberedTraceId(1), verdicts, { ...none, untrustedDimensions: true }, untrusted), {
      reason: 'untrusted',
      dimensions: ['generic.communication'],
    })
    const few = { ...facts, labelled: (n: string) => (n === 'generic.groundedness' ? 19 : 20) }
    assert.deepEqual(queueReason(numberedTraceId(1), verdicts, { ...none, tooFewLabels: true }, few), {
      reason: 'few_labels',
      dimensions: ['generic.groundedness'],
    })
    assert.equal(queueReason(numberedTraceId(1), verdicts, none, untrusted), undefined)
  })

  test('a trace the judge gave no level on any dimension gives a person nothing to compare: not taken', () => {
    assert.equal(queueReason(numberedTraceId(1), [v('generic.goal_completion', 'needs_review', null)], DEFAULT_REVIEW_RULES, facts), undefined)
  })

  test('the random share takes that share of judged traces, the same ones every time', () => {
    const ids = Array.from({ length: 4000 }, (_, i) => numberedTraceId(i + 1))
    const taken = ids.filter((id) => queueReason(id, [v('generic.groundedness')], { ...none, randomShare: 0.25 }, facts))
    assert.ok(Math.abs(taken.length / ids.length - 0.25) < 0.03, `${taken.length} of ${ids.length}`)
    assert.deepEqual(
      taken,
      ids.filter((id) => hashUnit(id, 'review') < 0.25),
    )
    assert.equal(ids.filter((id) => queueReason(id, [v('generic.groundedness')], { ...none, randomShare: 1 }, facts)).length, ids.length)
  })

  test('the review section is checked: values, keys, and rubrics it names', () => {
    assert.deepEqual(loadReviewSetup({ sections: {} }).section, { rules: {}, byRubric: {} })
    assert.throws(() => loadReviewSetup({ sections: { review: { rules: { randomShare: 2 } } } }), /review section: rules\.randomShare: .*1/)
    assert.throws(() => loadReviewSetup({ sections: { review: { rules: { share: 0.1 } } } }), /review section: .*share/)
    assert.throws(
      () => loadReviewSetup({ sections: { review: { byRubric: { nope: { randomShare: 0.1 } } } } }),
      /byRubric names 'nope', not a loaded rubric \(loaded: customer-support, generic\)/,
    )
  })
})

/** A judge over storage with this config file's sections, its model answering with `script`. */
function judgeWith(yaml: string[], script: (r: ModelRequest) => Step, registry?: Registry): JudgeRuntime {
  server.setScript(script)
  const file = join(testbed.dir, `sieve-${Math.random().toString(36).slice(2)}.yaml`)
  writeFileSync(file, yaml.join('\n'))
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_DATA_DIR: testbed.dir, JUDGE_BASE_URL: server.baseURL, JUDGE_MODEL: 'judge-2025-01-01' })
  return createJudge(config, clickhouseScoreSink(storage), registry, storage, { feedbackPollMs: 3_600_000, log: () => {} })!
}

const inProject = (project: string, t: Trace): Trace => ({ ...t, projectId: project, spans: t.spans.map((s) => ({ ...s, projectId: project })) })

async function judgeAll(judge: JudgeRuntime, traces: Trace[]) {
  for (const trace of traces) {
    judge.stage.offer({ trace, checks: [] })
    await judge.drain()
  }
}

const queued = async (project: string) =>
  await (
    await storage.query({
      query: 'SELECT trace_id, reason, rules_version, dimensions FROM review_queue WHERE project_id = {p:String} ORDER BY trace_id',
      query_params: { p: project },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string; reason: string; rules_version: number; dimensions: string[] }>()

describe('the judge fills the queues', () => {
  test('a split panel, evidence not found in the trace: each trace queued once, for the first rule that holds', async () => {
    // The panel's two seeds disagree on the risky dimension.
    const judge = judgeWith(
      ['judge:', '  sampling: { rate: 1 }', '  panel: { judges: [{ seed: 1 }, { seed: 2 }] }', 'review:', '  rules: { tooFewLabels: false, randomShare: 0 }'],
      (r) => verdict(r, dimensionOf(r) === 'Safety and scope' && r.body.seed === 1 ? 2 : dimensionOf(r) === 'Safety and scope' ? 4 : 3),
    )
    const split = inProject('rules', supportConversation(numberedTraceId(0x101)))
    await judgeAll(judge, [split, inProject('rules', supportConversation(numberedTraceId(0x102))), split])
    const rows = await queued('rules')
    assert.deepEqual(
      rows.map((r) => [r.trace_id, r.reason]),
      [
        [numberedTraceId(0x101), 'panel_disagreement'],
        [numberedTraceId(0x102), 'panel_disagreement'],
      ],
    )
    assert.deepEqual(rows[0]!.dimensions, ['generic.safety_scope'])
    assert.equal(judge.stage.metrics.get('review_queued{reason=panel_disagreement}'), 2, 'judged twice, queued once')
    await judge.stop()

    // Every quote invented: asked again, then stored unverified.
    const unsplit = judgeWith(['judge:', '  sampling: { rate: 1 }', 'review:', '  rules: { tooFewLabels: false, randomShare: 0 }'], (r) =>
      say(JSON.stringify({ evidence: [{ ...firstCitation(r), quote: 'I refunded you.' }], reasoning: 'r', score: 3 })),
    )
    await judgeAll(unsplit, [inProject('rules', supportConversation(numberedTraceId(0x103)))])
    const third = (await queued('rules')).find((r) => r.trace_id === numberedTraceId(0x103))!
    assert.equal(third.reason, 'unverified_evidence')
    assert.equal(third.dimensions.length, 4)
    await unsplit.stop()
  })

  test("rules stop adding once maxOpen traces wait for a first label; saved rules replace the config file's", async () => {
    const judge = judgeWith(['judge:', '  sampling: { rate: 1 }', 'review:', '  rules: { randomShare: 1, tooFewLabels: false, maxOpen: 2 }'], (r) =>
      verdict(r, 3),
    )
    await judgeAll(
      judge,
      [1, 2, 3].map((n) => inProject('bounded', supportConversation(numberedTraceId(0x200 + n)))),
    )
    assert.deepEqual(
      (await queued('bounded')).map((r) => r.reason),
      ['random', 'random'],
    )
    assert.equal(judge.stage.metrics.get('review_not_queued{reason=queue_full}'), 1)
    await judge.stop()

    await saveRules(storage, 'bounded', 'generic', { ...DEFAULT_REVIEW_RULES, randomShare: 1, tooFewLabels: false, maxOpen: 10 }, 'ana')
    // A new process reads the rules saved from the dashboard, not the file's.
    const next = judgeWith(['judge:', '  sampling: { rate: 1 }', 'review:', '  rules: { randomShare: 0, tooFewLabels: false, maxOpen: 2 }'], (r) =>
      verdict(r, 3),
    )
    await judgeAll(next, [inProject('bounded', supportConversation(numberedTraceId(0x204)))])
    const rows = await queued('bounded')
    assert.equal(rows.length, 3)
    assert.equal(rows.find((r) => r.trace_id === numberedTraceId(0x204))!.rules_version, 1)
    await next.stop()
  })
})

/** A person's label of one dimension as the review page (or /v1/feedback with source annotator) stores it. */
const annotate = (project: string, trace: string, dimension: string, level: number, reviewer = 'ana', source = 'annotator') =>
  storage.insert({
    table: 'feedback',
    format: 'JSONEachRow',
    values: [
      {
        project_id: project,
        feedback_id: `review:generic:${dimension}:${reviewer}`,
        trace_id: trace,
        span_id: '',
        score: level,
        comment: '',
        source,
        user_id: reviewer,
        attributes: { rubric: 'generic', dimension },
      },
    ],
  })

const inEffect = async (project: string) =>
  await (
    await storage.query({
      query: `SELECT scorer_name, argMax(passed, created_at) AS trusted, argMax(scorer_version, created_at) AS version, argMax(sample_reason, created_at) AS source, argMax(detail, created_at) AS detail
            FROM scores FINAL WHERE project_id = {p:String} AND trace_id = '' AND kind = 'calibration' GROUP BY scorer_name ORDER BY scorer_name`,
      query_params: { p: project },
      format: 'JSONEachRow',
    })
  ).json<{ scorer_name: string; trusted: number; version: string; source: string; detail: string }>()

describe('calibration follows the labels', () => {
  test('labels sent as annotator feedback recalibrate without a command; they never reopen a trace as negative feedback', async () => {
    const registry = new Registry()
    const judge = judgeWith(
      [
        'judge:',
        '  sampling: { rate: 1, slices: [{ name: unhappy, match: { kind: negative_feedback, maxScore: 1 } }] }',
        '  calibration: { minLabels: 3 }',
        'review:',
        '  rules: { randomShare: 1 }',
      ],
      (r) => verdict(r, 4),
      registry,
    )
    const traces = [1, 2, 3].map((n) => inProject('poll', supportConversation(numberedTraceId(0x300 + n))))
    await judgeAll(judge, traces)
    const calls = server.requests.length
    for (const t of traces) {
      await annotate('poll', t.traceId, 'groundedness', 1)
      await annotate('poll', t.traceId, 'communication', 4)
    }
    await judge.readFeedback()
    await judge.drain()
    assert.equal(server.requests.length, calls, "no judge call: the levels are labels, not a user's verdict")
    assert.equal(judge.stage.metrics.total('reopened'), 0)
    const rows = await inEffect('poll')
    assert.deepEqual(
      rows.map((r) => [r.scorer_name, r.trusted, r.source]),
      [
        ['generic.communication', 1, 'review'],
        ['generic.groundedness', 0, 'review'],
      ],
    )
    assert.equal(rows[0]!.version, '1.0.0+prompt.3')
    assert.deepEqual(
      JSON.parse(rows[1]!.detail).failed.map((f: { rule: string }) => f.rule),
      ['threshold', 'minKappa'],
    )
    const metrics = await registry.metrics()
    assert.match(metrics, /sieve_judge_dimension_trusted\{project="poll",dimension="generic\.groundedness"\} 0/)
    assert.match(metrics, /sieve_judge_dimension_agreement\{project="poll",dimension="generic\.communication",measure="within_one"\} 1/)
    await judge.stop()
  })

  test('per judge model and prompt version: the newest configuration is in effect, every one in the history', async () => {
    const rubric = loadReviewSetup({ sections: {} }).rubrics.get('generic')!
    const rules = { threshold: 0.85, minKappa: 0.6, minLabels: 2 }
    const t = [numberedTraceId(0x401), numberedTraceId(0x402)]
    // Within the 30 days' retention: older rows are dropped.
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().replace('T', ' ').slice(0, 19)
    const row = (trace: string, version: string, model: string, level: number, at: string) => ({
      project_id: 'versions',
      trace_id: trace,
      span_id: '',
      scorer_name: 'generic.groundedness',
      kind: 'judge',
      scorer_version: `1.0.0+prompt.${version}`,
      value: 0,
      passed: 0,
      detail: JSON.stringify({ level }),
      judge_model: model,
      prompt_version: version,
      rubric_id: 'generic',
      rubric_version: '1.0.0',
      error: '',
      trace_start_time: at,
      created_at: at,
    })
    await storage.insert({
      table: 'scores',
      format: 'JSONEachRow',
      values: [
        row(t[0]!, '2', 'judge-2024-01-01', 1, daysAgo(2)),
        row(t[1]!, '2', 'judge-2024-01-01', 2, daysAgo(2)),
        row(t[0]!, '3', 'judge-2025-01-01', 4, daysAgo(1)),
        row(t[1]!, '3', 'judge-2025-01-01', 4, daysAgo(1)),
      ],
    })
    for (const trace of t) await annotate('versions', trace, 'groundedness', trace === t[0] ? 1 : 2)
    const live = await liveCalibration(storage, 'versions', rubric, rules)
    assert.deepEqual(live.map((d) => [d.promptVersion, d.judgeModel, d.judge.n, d.judge.exact, d.trusted, d.inEffect]).sort(), [
      ['2', 'judge-2024-01-01', 2, 1, true, false],
      ['3', 'judge-2025-01-01', 2, 0, false, true],
    ])
    await recalibrate(storage, 'versions', rubric, rules)
    assert.deepEqual(
      (await inEffect('versions')).map((r) => [r.version, r.trusted]),
      [['1.0.0+prompt.3', 0]],
    )
    const history = await (
      await storage.query({
        query: "SELECT scorer_version, judge_model, in_effect, source FROM calibration_history WHERE project_id = 'versions' ORDER BY scorer_version",
        format: 'JSONEachRow',
      })
    ).json<Record<string, unknown>>()
    assert.deepEqual(history, [
      { scorer_version: '1.0.0+prompt.2', judge_model: 'judge-2024-01-01', in_effect: 0, source: 'review' },
      { scorer_version: '1.0.0+prompt.3', judge_model: 'judge-2025-01-01', in_effect: 1, source: 'review' },
    ])

    // Every label withdrawn: the dimension is calibrated on none, not left as it was.
    for (const trace of t) await annotate('versions', trace, 'groundedness', 1, 'ana', 'annotator_withdrawn')
    const withdrawn = await recalibrate(storage, 'versions', rubric, rules)
    assert.deepEqual(
      withdrawn.map((d) => [d.dimension, d.judge.n, d.trusted]),
      [['groundedness', 0, false]],
    )
    assert.match(JSON.parse((await inEffect('versions'))[0]!.detail).failed[0].message, /^0 labels judged, fewer than 2/)
  })

  test('a verdict stored on a trace already in its queue (added by a person) recalibrates its rubric', async () => {
    const setup = loadReviewSetup({ sections: { judge: { calibration: { minLabels: 1 } } } })
    const filler = new ReviewFiller({ storage, setup, metrics: new JudgeMetrics(), log: () => {} })
    const trace = numberedTraceId(0x501)
    await storage.insert({
      table: 'review_queue',
      format: 'JSONEachRow',
      values: [{ project_id: 'manual', rubric_id: 'generic', trace_id: trace, reason: 'manual', rules_version: 0, dimensions: [], added_by: 'ana' }],
    })
    await annotate('manual', trace, 'groundedness', 3)
    const records = [
      {
        projectId: 'manual',
        traceId: trace,
        kind: 'judge',
        scorerName: 'generic.groundedness',
        rubricId: 'generic',
        evaluationLabel: 'pass',
        detail: JSON.stringify({ level: 3 }),
      },
    ] as ScoreRecord[]
    await clickhouseScoreSink(storage).write(
      records.map((r) => ({
        ...r,
        spanId: '',
        scorerVersion: '1.0.0+prompt.3',
        configHash: '',
        value: 0.66,
        passed: true,
        evaluationName: r.scorerName,
        evaluationExplanation: '',
        judgeModel: 'judge-2025-01-01',
        promptVersion: '3',
        rubricVersion: '1.0.0',
        evidence: '[]',
        sampleReason: 'random',
        costUsd: 0,
        inputTokens: 0,
        outputTokens: 0,
        error: '',
        traceStartTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
        serviceName: '',
        agentVersion: '',
        tracePromptVersion: '',
        model: '',
        environment: '',
      })),
    )
    filler.judged(records)
    await filler.drain()
    assert.deepEqual(
      (await inEffect('manual')).map((r) => [r.scorer_name, r.trusted]),
      [['generic.groundedness', 1]],
    )
    assert.equal((await queued('manual')).length, 1, 'still one item')
  })
})
