import type { AnnotationRow, Storage } from '@sieve/core'
import { clickhouseScoreSink, type DimensionVerdictRow, readDimensionVerdicts, readRubricCalibrationRows } from '@sieve/scoring'
import { agreement, type Pair } from './calibration/agreement.js'
import { labelsFromAnnotations, readProjectAnnotations } from './calibration/annotations.js'
import { calibrationRecords, failedRules, type DimensionCalibration } from './calibration/calibrate.js'
import { calibrationHistoryRows, writeCalibrationHistory } from './calibration/history.js'
import { type CalibrationRules, levelRange, type Rubric } from '@sieve/judging'

/** One dimension's calibration against one judge configuration, as recomputed from storage. */
export interface LiveCalibration extends DimensionCalibration {
  promptVersion: string
  judgeModel: string
  /** The configuration whose verdicts are newest: what `scores` holds as the dimension's trust. */
  inEffect: boolean
}

/** Labels that are a level of their dimension; anything else (sent to /v1/feedback by hand) is not a label of this rubric. */
function onScale(rows: readonly AnnotationRow[], rubric: Rubric): AnnotationRow[] {
  return rows.filter((r) => {
    const d = rubric.dimensions.find((x) => x.id === r.dimension)
    if (!d || !Number.isInteger(r.score)) return false
    const { min, max } = levelRange(d)
    return r.score >= min && r.score <= max
  })
}

interface Group {
  dimension: string
  rubricVersion: string
  promptVersion: string
  judgeModel: string
  pairs: Pair[]
  errors: number
  newest: number
}

/**
 * A project's calibration of one rubric from what is stored: per dimension, the first labeller's
 * levels (`feedback`, source 'annotator') against the judge's stored verdicts on the same traces,
 * per rubric and prompt version and judge model; the two labellers against each other where a trace
 * has two. Figures and trust rules are `sieve judge calibrate`'s (agreement, failedRules); no model
 * is asked. Nothing is written: see recalibrate.
 */
export async function liveCalibration(storage: Storage, projectId: string, rubric: Rubric, rules: CalibrationRules): Promise<LiveCalibration[]> {
  const labels = labelsFromAnnotations(onScale(await readProjectAnnotations(storage, projectId, rubric.id), rubric))
  if (!labels.length) return []
  const verdicts = await readDimensionVerdicts(
    storage,
    projectId,
    rubric.id,
    labels.map((l) => l.traceId!),
  )
  const byTrace = new Map<string, DimensionVerdictRow[]>()
  for (const v of verdicts) byTrace.set(v.trace_id, [...(byTrace.get(v.trace_id) ?? []), v])
  const groups = new Map<string, Group>()
  const humans = new Map<string, Pair[]>()
  for (const label of labels) {
    for (const [dimension, human] of Object.entries(label.labels)) {
      const second = label.secondLabels?.[dimension]
      if (second !== undefined) humans.set(dimension, [...(humans.get(dimension) ?? []), [human, second]])
      for (const v of byTrace.get(label.traceId!) ?? []) {
        if (v.scorer_name !== `${rubric.id}.${dimension}`) continue
        const key = [dimension, v.rubric_version, v.prompt_version, v.judge_model].join('\u0000')
        let g = groups.get(key)
        if (!g)
          groups.set(
            key,
            (g = { dimension, rubricVersion: v.rubric_version, promptVersion: v.prompt_version, judgeModel: v.judge_model, pairs: [], errors: 0, newest: 0 }),
          )
        // A verdict with no level (a judge error, a split panel) is counted apart, as calibrate does.
        if (v.level === null) g.errors++
        else g.pairs.push([human, Number(v.level)])
        g.newest = Math.max(g.newest, Number(v.at))
      }
    }
  }
  const newest = new Map<string, number>()
  for (const g of groups.values()) newest.set(g.dimension, Math.max(newest.get(g.dimension) ?? 0, g.newest))
  return [...groups.values()].map((g): LiveCalibration => {
    const judge = agreement(g.pairs)
    const failed = failedRules(judge, g.errors, rules)
    const pairs = humans.get(g.dimension)
    return {
      rubricId: rubric.id,
      rubricVersion: g.rubricVersion,
      dimension: g.dimension,
      judge,
      humans: pairs ? agreement(pairs) : undefined,
      judgeErrors: g.errors,
      trusted: failed.length === 0,
      failed,
      promptVersion: g.promptVersion,
      judgeModel: g.judgeModel,
      inEffect: g.newest === newest.get(g.dimension),
    }
  })
}

/** `sample_reason` of the calibration rows the review queue writes (`sieve judge calibrate` writes 'calibration'). */
export const REVIEW_CALIBRATION = 'review'

const running = new Map<string, Promise<unknown>>()

/**
 * Recomputes a project's calibration of one rubric from the stored labels and verdicts and stores
 * it: for each dimension the configuration whose verdicts are newest goes to `scores` (kind
 * 'calibration', the trust every figure and gate reads, replacing what was in effect), every
 * configuration to `calibration_history`. A dimension whose last label was withdrawn, and whose
 * trust came from the review queue, is stored as calibrated on no labels (untrusted), not left as it
 * was. Runs one at a time per project and rubric in this process, so a later label's figures are
 * never overwritten by an earlier one's.
 */
export function recalibrate(
  storage: Storage,
  projectId: string,
  rubric: Rubric,
  rules: CalibrationRules,
  now: () => Date = () => new Date(),
): Promise<LiveCalibration[]> {
  const key = `${projectId}\u0000${rubric.id}`
  const next = (running.get(key) ?? Promise.resolve())
    .catch(() => undefined)
    .then(async () => {
      const [dimensions, previous] = await Promise.all([
        liveCalibration(storage, projectId, rubric, rules),
        readRubricCalibrationRows(storage, projectId, rubric.id),
      ])
      const computed = new Set(dimensions.map((d) => `${rubric.id}.${d.dimension}`))
      const emptied = previous
        .filter((p) => p.sample_reason === REVIEW_CALIBRATION && !computed.has(p.scorer_name))
        .map((p): LiveCalibration => {
          const judge = agreement([])
          return {
            rubricId: rubric.id,
            rubricVersion: p.rubric_version,
            dimension: p.scorer_name.slice(rubric.id.length + 1),
            judge,
            humans: undefined,
            judgeErrors: 0,
            trusted: false,
            failed: failedRules(judge, 0, rules),
            promptVersion: p.prompt_version,
            judgeModel: p.judge_model,
            inEffect: true,
          }
        })
      const all = [...dimensions, ...emptied]
      const at = now()
      const report = (d: LiveCalibration) => ({ ...rules, promptVersion: d.promptVersion, judgeModel: d.judgeModel, dimensions: [d] })
      const records = all.filter((d) => d.inEffect).flatMap((d) => calibrationRecords(report(d), projectId, String(BigInt(at.getTime()) * 1_000_000n)))
      await clickhouseScoreSink(storage).write(records.map((r) => ({ ...r, sampleReason: REVIEW_CALIBRATION })))
      await writeCalibrationHistory(
        storage,
        all.flatMap((d) => calibrationHistoryRows(report(d), projectId, 'review', at, d.inEffect)),
      )
      return all
    })
  running.set(key, next)
  void next
    .finally(() => {
      if (running.get(key) === next) running.delete(key)
    })
    .catch(() => undefined)
  return next
}
