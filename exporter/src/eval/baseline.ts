import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { zodProblems } from '@sieve/core'
import { z } from 'zod'
import { judgeFigures, judgeRegressions, type ExampleJudge } from './judge-figures.js'

const fraction = z.number().min(0).max(1)

/** The judge's figures for an example (or the whole run): only compared under the same rubric version. */
export const judgeFiguresSchema = z.object({
  /** `rubric-id@version`. */
  rubric: z.string().min(1),
  mean: fraction,
  passRate: fraction,
  /** Mean normalised value per dimension id. */
  dimensions: z.record(z.string(), fraction),
})

export type JudgeFigures = z.output<typeof judgeFiguresSchema>

const figures = z.object({ mean: fraction, passRate: fraction, judge: judgeFiguresSchema.optional() })

/**
 * Stored results of earlier gate (or simulation) runs, one entry per (dataset version, model, judge
 * model, simulator model): a new model, an edited dataset or scenario, another judge or another
 * simulated user is not compared against numbers that were measured on something else. Runs
 * without the judge have no judge model; `sieve eval` and scripted users have no simulator model.
 * For `sieve simulate` the dataset version is its scenario files' and `examples` are keyed
 * `scenario@template`.
 */
export const baselineFileSchema = z.object({
  entries: z.record(
    z.string(),
    z.object({
      datasetVersion: z.string(),
      model: z.string(),
      judgeModel: z.string().optional(),
      simulatorModel: z.string().optional(),
      createdAt: z.iso.datetime(),
      overall: figures,
      examples: z.record(z.string(), figures),
    }),
  ),
})

export type BaselineFile = z.output<typeof baselineFileSchema>
export type BaselineEntry = BaselineFile['entries'][string]

export type BaselineKey = Pick<BaselineEntry, 'datasetVersion' | 'model' | 'judgeModel' | 'simulatorModel'>

export const baselineKey = (k: BaselineKey) => `${k.datasetVersion}|${k.model}${k.judgeModel ? `|judge=${k.judgeModel}` : ''}${k.simulatorModel ? `|user=${k.simulatorModel}` : ''}`

export class BaselineError extends Error {
  readonly code = 'BASELINE_INVALID'
}

export function readBaseline(path: string): BaselineFile {
  if (!existsSync(path)) return { entries: {} }
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new BaselineError(`${path}: not valid JSON: ${(err as Error).message}`)
  }
  const parsed = baselineFileSchema.safeParse(raw)
  if (!parsed.success) {
    throw new BaselineError(`${path}: ${zodProblems(parsed.error).join('; ')}`)
  }
  return parsed.data
}

/** One compared item: an example of a dataset, a scenario × template of a simulation. */
export interface BaselineItem {
  id: string
  mean: number
  passRate: number
  judge?: ExampleJudge
  /** Set by compareWithBaseline: the baseline's figures for this item. */
  baseline?: BaselineEntry['examples'][string]
}

export interface BaselineComparison {
  path: string
  compared: boolean
  note: string
  overall?: { mean: number; passRate: number }
}

/**
 * The items against the baseline entry stored under `key`: a lower pass rate is a regression, and
 * so is a judge score lower by more than `tolerance`. `what` names the version in the note
 * ("dataset version", "scenarios version").
 */
export function compareWithBaseline(path: string, file: BaselineFile, key: BaselineKey, items: BaselineItem[], tolerance: number, what = 'dataset version'): { baseline: BaselineComparison; reasons: string[]; warnings: string[] } {
  const entry = file.entries[baselineKey(key)]
  const reasons: string[] = []
  const warnings: string[] = []
  if (!entry) {
    const by = `${key.judgeModel ? ` judged by ${key.judgeModel}` : ''}${key.simulatorModel ? ` with users simulated by ${key.simulatorModel}` : ''}`
    return { baseline: { path, compared: false, note: `no baseline for ${what} ${key.datasetVersion} and model ${key.model || '(unknown)'}${by}` }, reasons, warnings }
  }
  for (const item of items) {
    const before = entry.examples[item.id]
    if (!before) continue
    item.baseline = before
    if (item.passRate < before.passRate) reasons.push(`regression on ${item.id}: pass rate ${before.passRate} → ${item.passRate}`)
    const judged = judgeRegressions(item.id, item.judge, before.judge, tolerance)
    reasons.push(...judged.reasons)
    if (judged.note) warnings.push(judged.note)
  }
  return { baseline: { path, compared: true, note: `baseline of ${entry.createdAt}`, overall: entry.overall }, reasons, warnings }
}

/** Stores this run's figures under `key`, replacing what was stored there. */
export function writeBaseline(path: string, file: BaselineFile, key: BaselineKey, overall: { mean: number; passRate: number }, items: readonly BaselineItem[]): void {
  const entry: BaselineEntry = {
    ...key,
    createdAt: new Date().toISOString(),
    overall,
    examples: Object.fromEntries(
      items.map((e) => {
        const judge = judgeFigures(e.judge)
        return [e.id, { mean: e.mean, passRate: e.passRate, ...(judge ? { judge } : {}) }]
      }),
    ),
  }
  const next: BaselineFile = { entries: { ...file.entries, [baselineKey(key)]: entry } }
  writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`)
}
