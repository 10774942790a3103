import { readFileSync, writeFileSync, existsSync } from 'node:fs'
import { z } from 'zod'

const figures = z.object({ mean: z.number().min(0).max(1), passRate: z.number().min(0).max(1) })

/**
 * Stored results of earlier gate runs, one entry per (dataset version, model): a new model or an
 * edited dataset is not compared against numbers that were measured on something else.
 */
export const baselineFileSchema = z.object({
  entries: z.record(
    z.string(),
    z.object({ datasetVersion: z.string(), model: z.string(), createdAt: z.iso.datetime(), overall: figures, examples: z.record(z.string(), figures) }),
  ),
})

export type BaselineFile = z.output<typeof baselineFileSchema>
export type BaselineEntry = BaselineFile['entries'][string]

export const baselineKey = (datasetVersion: string, model: string) => `${datasetVersion}|${model}`

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
    throw new BaselineError(`${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`)
  }
  return parsed.data
}

export function writeBaseline(path: string, file: BaselineFile, entry: BaselineEntry): void {
  const next: BaselineFile = { entries: { ...file.entries, [baselineKey(entry.datasetVersion, entry.model)]: entry } }
  writeFileSync(path, `${JSON.stringify(next, null, 2)}\n`)
}
