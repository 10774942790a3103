import type { Storage } from '@sieve/core'
import { type CalibrationRow, readCalibrationRows } from '@sieve/scoring'
import { Gauge, type Registry } from 'prom-client'

/**
 * The trust in effect of each judge dimension: the verdict of the latest calibration row stored in
 * `scores` (kind 'calibration', trace ''), written by `sieve judge calibrate` or recomputed from the
 * review queue's labels. Every figure and gate that shows a dimension reads it from here.
 */
export interface DimensionTrust {
  trusted: boolean
  /** Within-one agreement with the labeller. */
  withinOne: number
  weightedKappa: number
  /** Labelled traces the judge scored. */
  labels: number
}

function trustOf(row: CalibrationRow): DimensionTrust {
  let judge: { weightedKappa?: number; n?: number } = {}
  try {
    judge = (JSON.parse(row.detail) as { judge?: typeof judge }).judge ?? {}
  } catch {
    // A row whose detail is not JSON still says whether the dimension is trusted.
  }
  return { trusted: Number(row.trusted) === 1, withinOne: Number(row.within_one), weightedKappa: judge.weightedKappa ?? 0, labels: judge.n ?? 0 }
}

/** A project's calibrated dimensions (`<rubric>.<dimension>`) and their trust; one never calibrated is absent. */
export async function readTrust(storage: Storage, projectId: string): Promise<Map<string, DimensionTrust>> {
  return new Map((await readCalibrationRows(storage, projectId)).map((r) => [r.scorer_name, trustOf(r)]))
}

/**
 * The trust of a figure named like a judge score: a dimension (`rubric.dimension`) by its own
 * calibration; a rubric's weighted score, which every dimension feeds, false when any dimension is
 * untrusted and true when those calibrated all are. Null when nothing it reads was calibrated.
 */
export function figureTrust(name: string, trust: ReadonlyMap<string, DimensionTrust>): boolean | null {
  const own = trust.get(name)
  if (own || name.includes('.')) return own?.trusted ?? null
  let found: boolean | null = null
  for (const [dimension, t] of trust) {
    if (!dimension.startsWith(`${name}.`)) continue
    if (!t.trusted) return false
    found = true
  }
  return found
}

/**
 * Exports the trust in effect on /metrics, read from storage at each scrape, so whichever process
 * serves the scrape reports what any process stored: `sieve_judge_dimension_trusted{project,
 * dimension}` (1 or 0: alert on 0), `sieve_judge_dimension_agreement{project, dimension, measure}`
 * (`within_one`, `weighted_kappa`) and `sieve_judge_dimension_labels{project, dimension}`. A failed
 * read keeps the last values and calls `onError`.
 */
export function registerTrustGauges(registry: Registry, storage: Storage, onError: (err: Error) => void): void {
  let rows: CalibrationRow[] = []
  let reading: Promise<void> | undefined
  // One read serves the three gauges of a scrape.
  const read = () =>
    (reading ??= readCalibrationRows(storage)
      .then((r) => {
        rows = r
      })
      .catch((err: Error) => onError(err))
      .finally(() => setTimeout(() => (reading = undefined), 0)))
  const gauge = (name: string, help: string, labelNames: string[], set: (g: Gauge, row: CalibrationRow, trust: DimensionTrust) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        await read()
        this.reset()
        for (const row of rows) set(this, row, trustOf(row))
      },
    })
  const labels = (row: CalibrationRow) => ({ project: row.project_id, dimension: row.scorer_name })
  gauge(
    'sieve_judge_dimension_trusted',
    'LLM judge: 1 when a rubric dimension meets every trust rule against human labels, 0 when it breaks one (calibration in effect)',
    ['project', 'dimension'],
    (g, row, t) => g.set(labels(row), t.trusted ? 1 : 0),
  )
  gauge(
    'sieve_judge_dimension_agreement',
    'LLM judge: agreement of a rubric dimension with human labels (within_one, weighted_kappa)',
    ['project', 'dimension', 'measure'],
    (g, row, t) => {
      g.set({ ...labels(row), measure: 'within_one' }, t.withinOne)
      g.set({ ...labels(row), measure: 'weighted_kappa' }, t.weightedKappa)
    },
  )
  gauge('sieve_judge_dimension_labels', 'LLM judge: labelled traces the judge scored, per rubric dimension', ['project', 'dimension'], (g, row, t) =>
    g.set(labels(row), t.labels),
  )
}
