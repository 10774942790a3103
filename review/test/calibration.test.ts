import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { labelsFromAnnotations, parseLabels } from '../src/index.js'
import { agreement, wilsonInterval } from '../src/calibration/agreement.js'
import { calibrate, calibrationRecords, formatCalibration } from '../src/calibration/calibrate.js'
import { labelsInProjects } from '../src/calibration/labels.js'
import { BUILTIN_RUBRICS_DIR, JudgeClient, type JudgeError, JudgeMetrics, loadJudgeConfig, loadRubricDir } from '@sieve/judging'
import { dimensionOf, startFakeOpenAI, verdict, type FakeOpenAI, type ModelRequest } from '@sieve/testkit'

/*
 * Hand-computed example, accuracy (levels 1-5), five labelled transcripts:
 *   labeller 1: 5 4 3 2 5     judge: 5 3 3 4 4     labeller 2: 5 4 2 2 4
 * judge vs labeller 1: exact 2/5 = 0.4; within one 4/5 = 0.8 (item 4 is two apart);
 *   chance agreement pe = P1(5)·PJ(5) + P1(4)·PJ(4) + P1(3)·PJ(3) + P1(2)·PJ(2)
 *                       = 2/5·1/5 + 1/5·2/5 + 1/5·2/5 + 1/5·0 = 6/25 = 0.24
 *   kappa = (0.4 − 0.24) / (1 − 0.24) = 0.16 / 0.76 = 0.2105263…
 * labeller 2 vs labeller 1: exact 3/5 = 0.6; within one 5/5 = 1;
 *   pe = 2/5·1/5 + 1/5·2/5 + 1/5·0 + 1/5·2/5 = 6/25; kappa = 0.36 / 0.76 = 0.4736842…
 * 0.8 within one is under the 0.85 default threshold: accuracy is untrusted.
 * empathy, two transcripts: labeller 1: 4 4, judge: 4 3 → exact 0.5, within one 1.0,
 *   pe = 1·1/2 = 0.5, kappa = (0.5 − 0.5) / 0.5 = 0 → trusted (within one ≥ 0.85) when kappa and the
 *   number of labels are not asked for (minKappa 0, minLabels 1).
 *
 * Quadratic-weighted kappa, κw = 1 − Σ w·O / Σ w·E with w = (i − j)² (the (k − 1)² of the textbook
 * form divides both sums), O the observed table and E = row total · column total / n:
 *   judge vs labeller 1, observed: (5,5) (4,3) (3,3) (2,4) (5,4) → Σ w·O = 0 + 1 + 0 + 4 + 1 = 6
 *     labeller 1 rows 5:2 4:1 3:1 2:1, judge columns 5:1 4:2 3:2; Σ w·(row · column):
 *       row 5 (2): col 5 0, col 4 1·2·2 = 4, col 3 4·2·2 = 16  → 20
 *       row 4 (1): col 5 1·1·1 = 1, col 4 0, col 3 1·1·2 = 2   →  3
 *       row 3 (1): col 5 4·1·1 = 4, col 4 1·1·2 = 2, col 3 0   →  6
 *       row 2 (1): col 5 9·1·1 = 9, col 4 4·1·2 = 8, col 3 1·1·2 = 2 → 19
 *     Σ w·E = 48 / 5 = 9.6;  κw = 1 − 6 / 9.6 = 0.375
 *   labeller 2 vs labeller 1: differences 0 0 1 0 1 → Σ w·O = 2; columns 5:1 4:2 2:2:
 *       row 5: 0 + 1·2·2 + 9·2·2 = 40; row 4: 1 + 0 + 4·1·2 = 9; row 3: 4 + 1·2 + 1·2 = 8; row 2: 9 + 4·2 + 0 = 17
 *     Σ w·E = 74 / 5 = 14.8;  κw = 1 − 2 / 14.8 = 0.8648649 (32/37)
 * Wilson 95% interval of within-one 4/5 (z = 1.959964, z² = 3.841459):
 *   centre = (0.8 + z²/10) / (1 + z²/5) = 1.184146 / 1.768292 = 0.669656
 *   half   = z / (1 + z²/5) · √(0.8·0.2/5 + z²/100) = 1.108393 · 0.265357 = 0.294120 → [0.3755, 0.9638]
 */
const human1 = [5, 4, 3, 2, 5]
const judged = [5, 3, 3, 4, 4]
const human2 = [5, 4, 2, 2, 4]

const lines = [
  ...human1.map((h, i) =>
    JSON.stringify({
      rubric: 'customer-support',
      transcript: [
        { role: 'user', text: `item ${i} question` },
        { role: 'assistant', text: 'an answer' },
      ],
      labels: { accuracy: h, ...(i < 2 ? { empathy: 4 } : {}) },
      secondLabels: { accuracy: human2[i] },
    }),
  ),
].join('\n')

let server: FakeOpenAI
before(async () => {
  server = await startFakeOpenAI({
    script: (r: ModelRequest) => {
      const item = Number(/item (\d+) question/.exec(r.body.messages[1].content)![1])
      return verdict(r, dimensionOf(r) === 'Accuracy' ? judged[item]! : [4, 3][item]!)
    },
  })
})
after(() => server.close())

test('agreement figures match the hand-computed example', () => {
  const a = agreement(human1.map((h, i) => [h, judged[i]!] as const))
  assert.equal(a.n, 5)
  assert.equal(a.exact, 0.4)
  assert.equal(a.withinOne, 0.8)
  assert.equal(a.kappa.toFixed(7), '0.2105263')
  assert.equal(a.weightedKappa.toFixed(7), '0.3750000')
  assert.deepEqual([a.withinOneCi.low.toFixed(4), a.withinOneCi.high.toFixed(4)], ['0.3755', '0.9638'])
  const h = agreement(human1.map((x, i) => [x, human2[i]!] as const))
  assert.deepEqual([h.exact, h.withinOne, h.kappa.toFixed(7), h.weightedKappa.toFixed(7)], [0.6, 1, '0.4736842', '0.8648649'])
})

test('weighted kappa: a constant rater is 0, perfect agreement 1, a reversed scale negative', () => {
  assert.equal(
    agreement([
      [1, 4],
      [3, 4],
      [4, 4],
      [5, 4],
    ]).weightedKappa,
    0,
  )
  assert.equal(
    agreement([
      [1, 1],
      [3, 3],
      [5, 5],
    ]).weightedKappa,
    1,
  )
  assert.ok(
    agreement([
      [1, 5],
      [3, 3],
      [5, 1],
    ]).weightedKappa < 0,
  )
  // Both raters gave one and the same level throughout: undefined, 1 by convention.
  assert.equal(
    agreement([
      [3, 3],
      [3, 3],
    ]).weightedKappa,
    1,
  )
})

test('the Wilson interval stays inside 0..1 and narrows with more labels', () => {
  const all20 = wilsonInterval(20, 20)
  assert.equal(all20.high, 1)
  assert.equal(all20.low.toFixed(4), '0.8389')
  const w = wilsonInterval(0, 10)
  assert.equal(w.low, 0)
  assert.ok(wilsonInterval(80, 100).high - wilsonInterval(80, 100).low < wilsonInterval(8, 10).high - wilsonInterval(8, 10).low)
})

test('calibration runs the judge over labelled transcripts and marks dimensions under the threshold untrusted', async () => {
  const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)
  const client = new JudgeClient(
    { baseUrl: server.baseURL, apiKey: 'k', timeoutMs: 5000, maxRetries: 0, backoff: { baseMs: 1, maxMs: 1 }, prices: {} },
    new JudgeMetrics(),
  )
  const report = await calibrate(labelsInProjects(parseLabels(lines, 'labels.jsonl'), {}), {
    ask: (j, r, d, t) => client.judgeDimension(j, r, d, t),
    judge: { model: 'judge-2025-01-01', seed: 1 },
    panel: undefined,
    rubrics,
    threshold: 0.85,
    minKappa: 0,
    minLabels: 1,
  })
  const accuracy = report.dimensions.find((d) => d.dimension === 'accuracy')!
  assert.deepEqual([accuracy.judge.n, accuracy.judge.exact, accuracy.judge.withinOne, accuracy.judge.kappa.toFixed(7)], [5, 0.4, 0.8, '0.2105263'])
  assert.deepEqual([accuracy.humans!.exact, accuracy.humans!.withinOne, accuracy.humans!.kappa.toFixed(7)], [0.6, 1, '0.4736842'])
  assert.equal(accuracy.trusted, false)
  assert.deepEqual(accuracy.failed, [{ rule: 'threshold', message: 'within-one agreement 80.0% under 85.0%' }])
  const empathy = report.dimensions.find((d) => d.dimension === 'empathy')!
  assert.deepEqual([empathy.judge.n, empathy.judge.exact, empathy.judge.withinOne, empathy.judge.kappa], [2, 0.5, 1, 0])
  assert.equal(empathy.humans, undefined)
  assert.equal(empathy.trusted, true)

  const records = calibrationRecords(report, 'default', '1700000000000000000')
  assert.deepEqual(
    records.map((r) => [r.kind, r.scorerName, r.scorerVersion, r.value, r.passed, r.evaluationLabel]),
    [
      ['calibration', 'customer-support.accuracy', '1.0.0+prompt.3', 0.8, false, 'untrusted'],
      ['calibration', 'customer-support.empathy', '1.0.0+prompt.3', 1, true, 'trusted'],
    ],
  )
})

test('a labels file with a bad line is refused with its line number', () => {
  assert.throws(
    () => parseLabels('{"rubric":"generic","labels":{"groundedness":3}}\nnot json', 'labels.jsonl'),
    (e: JudgeError) => e.code === 'LABELS_INVALID' && /line 1: .*traceId or transcript/.test(e.message) && /line 2: not JSON/.test(e.message),
  )
})

test('annotations stored as feedback become labels: first annotator per dimension, then a second one', () => {
  const row = (feedback_id: string, trace: string, dimension: string, score: number, user_id: string) => ({
    project_id: 'default',
    trace_id: trace,
    feedback_id,
    rubric: 'generic',
    dimension,
    score,
    user_id,
  })
  const t1 = 'a'.repeat(32)
  const t2 = 'b'.repeat(32)
  const labels = labelsFromAnnotations([
    row('1', t1, 'groundedness', 3, 'ann'),
    row('2', t1, 'groundedness', 4, 'bea'),
    row('3', t1, 'groundedness', 1, 'cy'), // a third annotator is not a second labeller
    row('4', t1, 'communication', 2, 'bea'),
    row('5', t2, 'groundedness', 4, 'ann'),
    row('6', t2, 'groundedness', 2, 'ann'), // the same annotator again: the first answer stands
  ])
  assert.deepEqual(labels, [
    { projectId: 'default', traceId: t1, rubric: 'generic', labels: { groundedness: 3, communication: 2 }, secondLabels: { groundedness: 4 } },
    { projectId: 'default', traceId: t2, rubric: 'generic', labels: { groundedness: 4 } },
  ])
  assert.throws(() => labelsFromAnnotations([row('7', t1, 'groundedness', 3.5, 'ann')]), /annotation 7 .*not a rubric level/)
})

/*
 * The judge of issue #17: it answers 4 whatever it reads. Against 24 labels, 20 of them 4, two 5 and
 * two 3, it is exact on 20/24 = 83.3% and within one on all of them: within-one alone trusts it.
 * Its answers carry no information: kappa, weighted or not, is 0 (a constant column makes the
 * observed table the expected one).
 */
const constantLabels = [...Array(20).fill(4), 5, 5, 3, 3] as number[]
const labelLines = (levels: number[], dimension = 'accuracy') =>
  levels
    .map((level, i) =>
      JSON.stringify({
        rubric: 'customer-support',
        transcript: [
          { role: 'user', text: `item ${i} question` },
          { role: 'assistant', text: 'an answer' },
        ],
        labels: { [dimension]: level },
      }),
    )
    .join('\n')

async function calibrateWith(
  levels: number[],
  answer: (item: number) => number,
  rules = loadJudgeConfig({ judge: { baseUrl: 'http://127.0.0.1:1/v1', model: 'judge-2025-01-01', allowModelAlias: false }, sections: {} })!.calibration,
) {
  server.setScript((r: ModelRequest) => verdict(r, answer(Number(/item (\d+) question/.exec(r.body.messages[1].content)![1]))))
  const client = new JudgeClient(
    { baseUrl: server.baseURL, apiKey: 'k', timeoutMs: 5000, maxRetries: 0, backoff: { baseMs: 1, maxMs: 1 }, prices: {} },
    new JudgeMetrics(),
  )
  return calibrate(labelsInProjects(parseLabels(labelLines(levels), 'labels.jsonl'), {}), {
    ask: (j, r, d, t) => client.judgeDimension(j, r, d, t),
    judge: { model: 'judge-2025-01-01', seed: 1 },
    panel: undefined,
    rubrics: loadRubricDir(BUILTIN_RUBRICS_DIR),
    ...rules,
  })
}

test('a judge that always answers 4 is untrusted: 100% within one, but weighted kappa 0 under the 0.6 floor', async () => {
  const report = await calibrateWith(constantLabels, () => 4)
  const [d] = report.dimensions
  assert.deepEqual([d!.judge.n, d!.judge.exact.toFixed(3), d!.judge.withinOne, d!.judge.kappa], [24, '0.833', 1, 0])
  assert.equal(d!.trusted, false)
  assert.equal(d!.judge.weightedKappa, 0)
  assert.deepEqual([report.threshold, report.minKappa, report.minLabels], [0.85, 0.6, 20], 'the judge section defaults')
  assert.deepEqual(d!.failed, [{ rule: 'minKappa', message: 'weighted kappa 0.000 under 0.6' }])

  // The table says which rule failed, with the interval of within-one agreement (24/24: 86.2-100%).
  const table = formatCalibration(report)
  assert.match(table, /within-1 95% CI/)
  assert.match(
    table,
    /customer-support\.accuracy\s+24\s+83\.3%\s+100\.0%\s+86\.2-100\.0%\s+0\.000\s+0\.000\s+-\s+-\s+-\s+-\s+0\s+UNTRUSTED: weighted kappa 0\.000 under 0\.6$/m,
  )
  // So do the JSON report and the stored row.
  const json = JSON.parse(JSON.stringify(report))
  assert.deepEqual(json.dimensions[0].judge.withinOneCi, { low: d!.judge.withinOneCi.low, high: 1 })
  const [row] = calibrationRecords(report, 'default', '1700000000000000000')
  assert.deepEqual([row!.passed, row!.evaluationLabel], [false, 'untrusted'])
  const detail = JSON.parse(row!.detail)
  assert.deepEqual([detail.minKappa, detail.minLabels, detail.threshold], [0.6, 20, 0.85])
  assert.equal(detail.judge.withinOneCi.low.toFixed(4), '0.8620')
  assert.deepEqual(detail.failed, [{ rule: 'minKappa', message: 'weighted kappa 0.000 under 0.6' }])
  assert.match(row!.evaluationExplanation, /95% CI 86\.2-100\.0%.*untrusted: weighted kappa 0\.000 under 0\.6/)
})

test('a judge that follows the labels is trusted with enough of them, and untrusted on too few', async () => {
  const levels = Array.from({ length: 24 }, (_, i) => 1 + (i % 5))
  // Right on all but every sixth item, where it is one level high (or low at the top).
  const follows = (i: number) => (i % 6 === 5 ? (levels[i]! === 5 ? 4 : levels[i]! + 1) : levels[i]!)
  const many = await calibrateWith(levels, follows)
  assert.equal(many.dimensions[0]!.trusted, true, JSON.stringify(many.dimensions[0]))
  assert.deepEqual(many.dimensions[0]!.failed, [])
  assert.ok(many.dimensions[0]!.judge.weightedKappa > 0.9)

  const few = await calibrateWith(levels.slice(0, 10), follows)
  assert.equal(few.dimensions[0]!.trusted, false)
  assert.deepEqual(few.dimensions[0]!.failed, [{ rule: 'minLabels', message: '10 labels judged, fewer than 20' }])
  const rules = { threshold: 0.85, minKappa: 0.6, minLabels: 10 }
  assert.equal((await calibrateWith(levels.slice(0, 10), follows, rules)).dimensions[0]!.trusted, true, 'judge.calibration.minLabels is the bound')
})

test('judge.calibration takes minKappa and minLabels, with defaults, and refuses nonsense', () => {
  const load = (calibration: unknown) =>
    loadJudgeConfig({ judge: { baseUrl: 'http://127.0.0.1:1/v1', model: 'judge-2025-01-01', allowModelAlias: false }, sections: { judge: { calibration } } })!
      .calibration
  assert.deepEqual(load({}), { threshold: 0.85, minKappa: 0.6, minLabels: 20 })
  assert.deepEqual(load({ minKappa: 0.4, minLabels: 50 }), { threshold: 0.85, minKappa: 0.4, minLabels: 50 })
  assert.throws(() => load({ minKappa: 2 }), /calibration\.minKappa/)
  assert.throws(() => load({ minLabels: 0 }), /calibration\.minLabels/)
})
