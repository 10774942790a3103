import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { zodProblems } from '@sieve/core'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'
import { JudgeError } from '@sieve/llm'

/**
 * A rubric: what the judge scores, one dimension per judge call. Each level is anchored to an
 * observable condition so two readers (or two judges) land on the same number.
 */
const level = z.strictObject({
  score: z.number().int(),
  /** What a transcript at this level shows; observable, not a feeling. */
  anchor: z.string().min(10),
})

const dimension = z
  .strictObject({
    id: z.string().regex(/^[a-z][a-z0-9_]*$/, 'dimension ids are snake_case'),
    name: z.string().min(1),
    definition: z.string().min(10),
    weight: z.number().positive().default(1),
    /** Lowest level that counts as a pass for this dimension. */
    passAt: z.number().int(),
    /** Risky dimensions go to the panel when one is configured. */
    risky: z.boolean().default(false),
    levels: z.array(level).min(2),
  })
  .superRefine((d, ctx) => {
    const scores = d.levels.map((l) => l.score)
    const sorted = [...scores].sort((a, b) => a - b)
    if (scores.some((s, i) => s !== sorted[i]) || sorted.some((s, i) => i > 0 && s !== sorted[i - 1]! + 1)) {
      ctx.addIssue({
        code: 'custom',
        path: ['levels'],
        message: `levels of '${d.id}' must be consecutive integers in ascending order (got ${scores.join(', ')})`,
      })
    }
    if (!scores.includes(d.passAt)) {
      ctx.addIssue({ code: 'custom', path: ['passAt'], message: `passAt ${d.passAt} of '${d.id}' is not one of its levels` })
    }
  })

export const rubricSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z][a-z0-9-]*$/, 'rubric ids are kebab-case'),
    /** Bump on any change to a definition or anchor: scores of different versions are not compared. */
    version: z.string().regex(/^\d+\.\d+\.\d+$/, 'version is semver, e.g. 1.0.0'),
    title: z.string().min(1),
    description: z.string().default(''),
    /** Weighted overall score (levels mapped to 0..1) at or above which a trace passes. */
    passingThreshold: z.number().min(0).max(1),
    dimensions: z.array(dimension).min(1),
  })
  .superRefine((r, ctx) => {
    const seen = new Set<string>()
    for (const d of r.dimensions) {
      if (seen.has(d.id)) ctx.addIssue({ code: 'custom', path: ['dimensions'], message: `dimension '${d.id}' appears twice` })
      seen.add(d.id)
    }
  })

export type Rubric = z.infer<typeof rubricSchema>
export type RubricDimension = Rubric['dimensions'][number]

export function levelRange(d: RubricDimension): { min: number; max: number } {
  return { min: d.levels[0]!.score, max: d.levels[d.levels.length - 1]!.score }
}

/** A level mapped onto 0..1, the scale every score in `scores` uses. */
export function normalizeLevel(d: RubricDimension, score: number): number {
  const { min, max } = levelRange(d)
  return (score - min) / (max - min)
}

export function parseRubric(text: string, source: string): Rubric {
  let raw: unknown
  try {
    raw = source.endsWith('.json') ? JSON.parse(text) : parseYaml(text)
  } catch (err) {
    throw new JudgeError('RUBRIC_INVALID', `${source}: not valid ${source.endsWith('.json') ? 'JSON' : 'YAML'}: ${(err as Error).message}`)
  }
  const result = rubricSchema.safeParse(raw)
  if (!result.success) {
    const problems = zodProblems(result.error)
    throw new JudgeError('RUBRIC_INVALID', `${source}: ${problems.join('; ')}`)
  }
  return result.data
}

export function loadRubricFile(path: string): Rubric {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new JudgeError('RUBRIC_INVALID', `cannot read rubric ${path}: ${(err as Error).message}`)
  }
  return parseRubric(text, path)
}

/** The rubrics Sieve ships, in judging/rubrics/. */
export const BUILTIN_RUBRICS_DIR = new URL('../rubrics/', import.meta.url).pathname

/** Every `*.yaml|*.yml|*.json` rubric in a folder, keyed by id. Two files with one id is an error. */
export function loadRubricDir(dir: string): Map<string, Rubric> {
  const rubrics = new Map<string, Rubric>()
  for (const name of readdirSync(dir).sort()) {
    if (!/\.(ya?ml|json)$/.test(name)) continue
    const rubric = loadRubricFile(join(dir, name))
    if (rubrics.has(rubric.id)) throw new JudgeError('RUBRIC_INVALID', `${join(dir, name)}: rubric id '${rubric.id}' is already defined in ${dir}`)
    rubrics.set(rubric.id, rubric)
  }
  return rubrics
}

/** The shipped rubrics plus those of `extraDir`, which replace shipped ones of the same id. */
export function loadRubrics(extraDir?: string): Map<string, Rubric> {
  const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)
  if (extraDir) for (const [id, r] of loadRubricDir(extraDir)) rubrics.set(id, r)
  return rubrics
}
