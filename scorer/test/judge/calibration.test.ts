import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { agreement, BUILTIN_RUBRICS_DIR, calibrate, calibrationRecords, JudgeClient, JudgeError, JudgeMetrics, labelsFromAnnotations, loadRubricDir, parseLabels } from '@sieve/scorer'
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
 *   pe = 1·1/2 = 0.5, kappa = (0.5 − 0.5) / 0.5 = 0 → trusted (within one ≥ 0.85).
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
  const h = agreement(human1.map((x, i) => [x, human2[i]!] as const))
  assert.deepEqual([h.exact, h.withinOne, h.kappa.toFixed(7)], [0.6, 1, '0.4736842'])
})

test('calibration runs the judge over labelled transcripts and marks dimensions under the threshold untrusted', async () => {
  const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)
  const client = new JudgeClient({ baseUrl: server.baseURL, apiKey: 'k', timeoutMs: 5000, maxRetries: 0, backoff: { baseMs: 1, maxMs: 1 }, prices: {} }, new JudgeMetrics())
  const report = await calibrate(parseLabels(lines, 'labels.jsonl'), {
    ask: (j, r, d, t) => client.judgeDimension(j, r, d, t),
    judge: { model: 'judge-2025-01-01', seed: 1 },
    panel: undefined,
    rubrics,
    threshold: 0.85,
  })
  const accuracy = report.dimensions.find((d) => d.dimension === 'accuracy')!
  assert.deepEqual([accuracy.judge.n, accuracy.judge.exact, accuracy.judge.withinOne, accuracy.judge.kappa.toFixed(7)], [5, 0.4, 0.8, '0.2105263'])
  assert.deepEqual([accuracy.humans!.exact, accuracy.humans!.withinOne, accuracy.humans!.kappa.toFixed(7)], [0.6, 1, '0.4736842'])
  assert.equal(accuracy.trusted, false)
  const empathy = report.dimensions.find((d) => d.dimension === 'empathy')!
  assert.deepEqual([empathy.judge.n, empathy.judge.exact, empathy.judge.withinOne, empathy.judge.kappa], [2, 0.5, 1, 0])
  assert.equal(empathy.humans, undefined)
  assert.equal(empathy.trusted, true)

  const records = calibrationRecords(report, 'default', '1700000000000000000')
  assert.deepEqual(
    records.map((r) => [r.kind, r.scorerName, r.scorerVersion, r.value, r.passed, r.evaluationLabel]),
    [
      ['calibration', 'customer-support.accuracy', '1.0.0+prompt.2', 0.8, false, 'untrusted'],
      ['calibration', 'customer-support.empathy', '1.0.0+prompt.2', 1, true, 'trusted'],
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
    project_id: 'default', trace_id: trace, feedback_id, rubric: 'generic', dimension, score, user_id,
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
