import type { Storage } from '@sieve/core'
import type { CalibrationRules, Rubric } from '@sieve/judging'
import { rows } from '../db.js'

/** One point of a dimension's agreement over time: a calibration in effect when it was computed. */
export interface CalibrationPoint {
  /** Unix milliseconds. */
  at: number
  labels: number
  withinOne: number
  weightedKappa: number
  humanPairs: number
  humanWithinOne: number | null
  humanWeightedKappa: number | null
  trusted: boolean
}

export interface DimensionCalibrationView {
  dimension: string
  name: string
  /** The calibration in effect (`scores`), or null when the dimension was never calibrated. */
  current: {
    trusted: boolean
    /** `review`: recomputed from the queue's labels; `calibration`: `sieve judge calibrate`. */
    source: string
    version: string
    judgeModel: string
    at: string
    /** The calibration's figures as stored: judge and humans' agreement, judge errors, failed rules. */
    judge: unknown
    humans: unknown
    judgeErrors: number
    failed: { rule: string; message: string }[]
  } | null
  history: CalibrationPoint[]
}

interface CurrentRow {
  scorer_name: string
  trusted: number
  detail: string
  version: string
  model: string
  source: string
  at: string
}

interface HistoryRow {
  scorer_name: string
  at: number
  labels: number
  within_one: number
  weighted_kappa: number
  human_pairs: number
  human_within_one: number | null
  human_weighted_kappa: number | null
  trusted: number
}

const detailOf = (text: string): { judge?: unknown; humans?: unknown; judgeErrors?: number; failed?: { rule: string; message: string }[] } => {
  try {
    return JSON.parse(text) as ReturnType<typeof detailOf>
  } catch {
    return {}
  }
}

/**
 * A project's calibration of one rubric, per dimension: the one in effect (what every figure's
 * trust reads) and its newest `points` in effect over time (`calibration_history`), judge against
 * person and person against person.
 */
export async function calibrationView(client: Storage, projectId: string, rubric: Rubric, rules: CalibrationRules, points: number) {
  const names = rubric.dimensions.map((d) => `${rubric.id}.${d.id}`)
  const params = { project: projectId, rubric: rubric.id, names, points }
  const [current, history] = await Promise.all([
    rows<CurrentRow>(
      client,
      `SELECT scorer_name, argMax(passed, created_at) AS trusted, argMax(detail, created_at) AS detail, argMax(scorer_version, created_at) AS version,
              argMax(judge_model, created_at) AS model, argMax(sample_reason, created_at) AS source, toString(max(created_at)) AS at
       FROM scores FINAL
       WHERE project_id = {project:String} AND trace_id = '' AND kind = 'calibration' AND scorer_name IN {names:Array(String)}
       GROUP BY scorer_name`,
      params,
    ),
    rows<HistoryRow>(
      client,
      `SELECT scorer_name, toUnixTimestamp64Milli(computed_at) AS at, labels, within_one, weighted_kappa, human_pairs, human_within_one, human_weighted_kappa, trusted
       FROM calibration_history
       WHERE project_id = {project:String} AND scorer_name IN {names:Array(String)} AND in_effect = 1
       ORDER BY scorer_name, computed_at DESC
       LIMIT {points:UInt32} BY scorer_name`,
      params,
    ),
  ])
  const currentOf = new Map(current.map((r) => [r.scorer_name, r]))
  return {
    rubric: rubric.id,
    rules,
    dimensions: rubric.dimensions.map((d): DimensionCalibrationView => {
      const name = `${rubric.id}.${d.id}`
      const c = currentOf.get(name)
      const detail = c ? detailOf(c.detail) : {}
      return {
        dimension: d.id,
        name: d.name,
        current: c
          ? {
              trusted: Number(c.trusted) === 1,
              source: c.source,
              version: c.version,
              judgeModel: c.model,
              at: `${c.at.replace(' ', 'T')}Z`,
              judge: detail.judge ?? null,
              humans: detail.humans ?? null,
              judgeErrors: detail.judgeErrors ?? 0,
              failed: detail.failed ?? [],
            }
          : null,
        history: history
          .filter((h) => h.scorer_name === name)
          .reverse()
          .map((h) => ({
            at: Number(h.at),
            labels: Number(h.labels),
            withinOne: Number(h.within_one),
            weightedKappa: Number(h.weighted_kappa),
            humanPairs: Number(h.human_pairs),
            humanWithinOne: h.human_within_one === null ? null : Number(h.human_within_one),
            humanWeightedKappa: h.human_weighted_kappa === null ? null : Number(h.human_weighted_kappa),
            trusted: Number(h.trusted) === 1,
          })),
      }
    }),
  }
}
