import { readRows, type Storage } from '@sieve/core'
import type { CalibrationReport } from './calibrate.js'

/** Who computed a calibration: the review queue's labels as they arrive, or `sieve judge calibrate`. */
export type CalibrationSource = 'review' | 'command'

/**
 * The report's dimensions as `calibration_history` rows (migrations/0015), so agreement can be drawn
 * over time. `inEffect`: the rows also written to `scores`, the trust every figure reads.
 */
export function calibrationHistoryRows(
  report: CalibrationReport,
  projectId: string,
  source: CalibrationSource,
  computedAt: Date,
  inEffect = true,
): Record<string, unknown>[] {
  return report.dimensions.map((d) => ({
    project_id: projectId,
    scorer_name: `${d.rubricId}.${d.dimension}`,
    scorer_version: `${d.rubricVersion}+prompt.${report.promptVersion}`,
    judge_model: report.judgeModel,
    source,
    labels: d.judge.n,
    within_one: d.judge.withinOne,
    weighted_kappa: d.judge.weightedKappa,
    human_pairs: d.humans?.n ?? 0,
    human_within_one: d.humans ? d.humans.withinOne : null,
    human_weighted_kappa: d.humans ? d.humans.weightedKappa : null,
    trusted: d.trusted ? 1 : 0,
    in_effect: inEffect ? 1 : 0,
    detail: JSON.stringify({
      threshold: report.threshold,
      minKappa: report.minKappa,
      minLabels: report.minLabels,
      judge: d.judge,
      humans: d.humans ?? null,
      judgeErrors: d.judgeErrors,
      failed: d.failed,
    }),
    computed_at: (computedAt.getTime() / 1000).toFixed(3),
  }))
}

export async function writeCalibrationHistory(storage: Storage, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length) await storage.insert({ table: 'calibration_history', format: 'JSONEachRow', values: rows })
}

/** One dimension's calibration in effect at one time, as `calibration_history` keeps it. */
export interface CalibrationHistoryRow {
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

/** The newest `points` calibrations in effect of each of a project's dimensions named, newest first. */
export async function readCalibrationHistory(client: Storage, projectId: string, names: readonly string[], points: number): Promise<CalibrationHistoryRow[]> {
  return readRows<CalibrationHistoryRow>(
    client,
    `SELECT scorer_name, toUnixTimestamp64Milli(computed_at) AS at, labels, within_one, weighted_kappa, human_pairs, human_within_one, human_weighted_kappa, trusted
       FROM calibration_history
       WHERE project_id = {project:String} AND scorer_name IN {names:Array(String)} AND in_effect = 1
       ORDER BY scorer_name, computed_at DESC
       LIMIT {points:UInt32} BY scorer_name`,
    { project: projectId, names, points },
  )
}
