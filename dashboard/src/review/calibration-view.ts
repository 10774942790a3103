import type { Storage } from '@sieve/core'
import type { CalibrationRules, Rubric } from '@sieve/judging'
import { readCalibrationHistory } from '@sieve/review'
import { readCalibrationsInEffect } from '@sieve/scoring'

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
  const [current, history] = await Promise.all([readCalibrationsInEffect(client, projectId, names), readCalibrationHistory(client, projectId, names, points)])
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
