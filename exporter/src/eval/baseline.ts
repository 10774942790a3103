import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { zodProblems } from '@sieve/core'
import { z } from 'zod'

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
 * Stored results of earlier gate runs, one entry per (dataset version, model, judge model): a new
 * model, an edited dataset or another judge is not compared against numbers that were measured on
 * something else. Runs without the judge have no judge model.
 */
export const baselineFileSchema = z.object({
  entries: z.record(
    z.string(),
    z.object({
      datasetVersion: z.string(),
      model: z.string(),
      judgeModel: z.string().optional(),
      createdAt: z.iso.datetime(),
      overall: figures,
      examples: z.record(z.string(), figures),
    }),
  ),
})

export type BaselineFile = z.output<typeof baselineFileSchema>
export type BaselineEntry = BaselineFile['entries'][string]

export const baselineKey = (datasetVersion: string, model: string, judgeModel?: string) => `${datasetVersion}|${model}${judgeModel ? `|judge=${judgeModel}` : ''}`

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

export function writeBaseline(path: string, file: BaselineFile, entry: BaselineEntry): void {
  const next: BaselineFile = { entries: { ...file.entries, [baselineKey(entry.datasetVersion, entry.model, entry.judgeModel)]: entry } }
  writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`)
}
