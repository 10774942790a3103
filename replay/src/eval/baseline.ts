import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { zodProblems } from '@sieve/core'
import { z } from 'zod'
import type { BaselineSamples } from './metric-verdicts.js'
import { metricSamples, type MetricSamples, type RunsByItem, type ZeroTolerance } from './metrics.js'
import { runOutcomeSchema } from './run-outcome.js'

const fraction = z.number().min(0).max(1)

/** What a run was measured with: a later run pairs with a baseline, and refuses what was measured otherwise. */
export const baselineStampsSchema = z.object({
  /** The dataset's version (a hash of the file), or the scenario files' for `sieve simulate`. */
  datasetVersion: z.string(),
  agentVersion: z.string(),
  promptVersion: z.string(),
  /** The model the agent's spans name. */
  model: z.string(),
  judgeModel: z.string().optional(),
  judgePromptVersion: z.string().optional(),
  /** `sieve simulate` with an LLM user. */
  simulatorModel: z.string().optional(),
  scorerVersion: z.string(),
  /** Check name → version, for the checks expected. */
  checks: z.record(z.string(), z.string()),
})

export type BaselineStamps = z.output<typeof baselineStampsSchema>

export const BASELINE_VERSION = 2

/**
 * A baseline: every run of every example (or scenario × template) as its outcome, with the stamps
 * it was measured with. One per file; `--update-baseline` replaces it.
 */
const baselineV2Schema = z.object({
  version: z.literal(BASELINE_VERSION),
  createdAt: z.iso.datetime(),
  /** Runs per example it was recorded with. */
  repeats: z.number().int().positive(),
  stamps: baselineStampsSchema,
  items: z.record(z.string(), z.array(runOutcomeSchema)),
})

export type RecordedBaseline = z.output<typeof baselineV2Schema>

/** The judge's figures for an example, as baselines before version 2 kept them. */
const legacyJudgeSchema = z.object({ rubric: z.string().min(1), mean: fraction, passRate: fraction, dimensions: z.record(z.string(), fraction) })
const legacyFigures = z.object({ mean: fraction, passRate: fraction, judge: legacyJudgeSchema.optional() })

/** Before version 2: per-example figures only, one entry per (dataset version, model, judge model, simulator model). */
const legacySchema = z.object({
  entries: z.record(
    z.string(),
    z.object({
      datasetVersion: z.string(),
      model: z.string(),
      judgeModel: z.string().optional(),
      simulatorModel: z.string().optional(),
      createdAt: z.iso.datetime(),
      overall: legacyFigures,
      examples: z.record(z.string(), legacyFigures),
    }),
  ),
})

export const baselineFileSchema = z.union([baselineV2Schema, legacySchema])

type LegacyEntry = z.output<typeof legacySchema>['entries'][string]

export class BaselineError extends Error {
  readonly code = 'BASELINE_INVALID'
}

export interface Baseline {
  path: string
  createdAt: string
  /** All of them for a version 2 file; what a legacy entry had (dataset version, model, judge and simulator models). */
  stamps: Partial<BaselineStamps>
  repeats?: number
  /** Runs by item; absent for a file written before per-run outcomes were kept. */
  runs?: RunsByItem
  legacy?: LegacyEntry
}

export type BaselineFile = z.output<typeof baselineFileSchema>

/** The baseline file at `path`, validated; undefined when there is none yet. */
export function readBaseline(path: string): BaselineFile | undefined {
  if (!existsSync(path)) return undefined
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new BaselineError(`${path}: not valid JSON: ${(err as Error).message}`)
  }
  const parsed = baselineFileSchema.safeParse(raw)
  if (!parsed.success) throw new BaselineError(`${path}: ${zodProblems(parsed.error).join('; ')}`)
  return parsed.data
}

/**
 * The baseline a file holds. A file of the format before version 2 holds one entry per (dataset
 * version, model, judge and simulator models): the one for `key`, else the newest, per-example
 * figures only.
 */
export function baselineOf(
  path: string,
  file: BaselineFile,
  key: Pick<BaselineStamps, 'datasetVersion' | 'model' | 'judgeModel' | 'simulatorModel'>,
): Baseline | undefined {
  if ('version' in file) return { path, createdAt: file.createdAt, stamps: file.stamps, repeats: file.repeats, runs: new Map(Object.entries(file.items)) }
  const legacyKey = `${key.datasetVersion}|${key.model}${key.judgeModel ? `|judge=${key.judgeModel}` : ''}${key.simulatorModel ? `|user=${key.simulatorModel}` : ''}`
  const entry = file.entries[legacyKey] ?? Object.values(file.entries).sort((a, b) => b.createdAt.localeCompare(a.createdAt))[0]
  if (!entry) return undefined
  const { datasetVersion, model, judgeModel, simulatorModel } = entry
  return {
    path,
    createdAt: entry.createdAt,
    stamps: { datasetVersion, model, ...(judgeModel ? { judgeModel } : {}), ...(simulatorModel ? { simulatorModel } : {}) },
    legacy: entry,
  }
}

/** Stores this run as the baseline, replacing the file's. */
export function writeBaseline(path: string, stamps: BaselineStamps, repeats: number, runs: RunsByItem): void {
  const file: z.input<typeof baselineV2Schema> = {
    version: BASELINE_VERSION,
    createdAt: new Date().toISOString(),
    repeats,
    stamps,
    items: Object.fromEntries([...runs].map(([id, outcomes]) => [id, [...outcomes]])),
  }
  writeFileSync(path, `${JSON.stringify(file, null, 2)}\n`)
}

/** A legacy entry's per-example figures as metrics: one value per example (its mean over runs). */
function legacyMetrics(entry: LegacyEntry): MetricSamples[] {
  const examples = Object.entries(entry.examples)
  const one = (
    id: string,
    name: string,
    source: MetricSamples['source'],
    read: (f: LegacyEntry['examples'][string]) => number | undefined,
    versions?: string[],
  ): MetricSamples => ({
    id,
    name,
    kind: 'graded',
    source,
    scale: 'graded',
    ...(versions ? { versions } : {}),
    clusters: new Map(
      examples.flatMap(([item, f]) => {
        const v = read(f)
        return v === undefined ? [] : [[item, [v]]]
      }),
    ),
  })
  const judged = examples.flatMap(([, f]) => (f.judge ? [f.judge] : []))
  const rubrics = [...new Set(judged.map((j) => j.rubric))]
  return [
    one('graded:pass rate', 'pass rate', 'pass rate', (f) => f.passRate),
    ...rubrics.flatMap((full) => {
      const [rubric, version] = full.split('@') as [string, string]
      const dims = [...new Set(judged.filter((j) => j.rubric === full).flatMap((j) => Object.keys(j.dimensions)))]
      const of = (read: (j: z.output<typeof legacyJudgeSchema>) => number | undefined) => (f: LegacyEntry['examples'][string]) =>
        f.judge?.rubric === full ? read(f.judge) : undefined
      return [
        one(
          `graded:${rubric}`,
          rubric,
          'judge',
          of((j) => j.mean),
          [version],
        ),
        ...dims.map((d) =>
          one(
            `graded:${rubric}.${d}`,
            `${rubric}.${d}`,
            'judge',
            of((j) => j.dimensions[d]),
            [version],
          ),
        ),
      ]
    }),
  ]
}

export interface BaselineComparison {
  path: string
  compared: boolean
  /** When it was recorded and what changed since (agent, model, dataset), or why nothing was compared. */
  note: string
  createdAt?: string
  stamps?: Partial<BaselineStamps>
  repeats?: number
  /** False: written before per-run outcomes were kept, compared on per-example figures only. */
  perRun?: boolean
  /** Examples (or scenario × templates) one side ran and the other did not: in no paired figure. */
  onlyNow: string[]
  onlyBaseline: string[]
  /** Metrics not compared, and why. */
  refused: { metrics: string[]; reason: string }[]
}

const JUDGE_STAMPS = [
  ['judgeModel', 'judged by'],
  ['judgePromptVersion', 'with judge prompt version'],
  ['scorerVersion', 'scored by scorer'],
] as const

/**
 * Why each metric of this run cannot be compared with the baseline: users simulated by another
 * model (every metric); another judge model, judge prompt or scorer version (judge metrics); another
 * rubric version (that rubric's); another check version (that check's).
 */
function refusals(
  base: Baseline,
  now: BaselineStamps,
  metrics: readonly MetricSamples[],
  baseMetrics: readonly MetricSamples[],
): BaselineComparison['refused'] {
  const refused: BaselineComparison['refused'] = []
  const graded = metrics.filter((m) => m.kind === 'graded')
  const refuse = (of: readonly MetricSamples[], reason: string) => of.length && refused.push({ metrics: of.map((m) => m.id), reason })
  const was = base.stamps
  if ((was.simulatorModel ?? '') !== (now.simulatorModel ?? '')) {
    refuse(graded, `the baseline's users were simulated by ${was.simulatorModel ?? 'their scripts'}, this run's by ${now.simulatorModel ?? 'their scripts'}`)
    return refused
  }
  const judged = graded.filter((m) => m.source === 'judge')
  // A legacy baseline has no judge prompt or scorer version: only the judge model is known.
  const changed = JUDGE_STAMPS.find(([key]) => (key === 'judgeModel' || was[key] !== undefined) && (was[key] ?? '') !== (now[key] ?? ''))
  if (changed) {
    const [key, what] = changed
    refuse(judged, `the baseline was ${what} ${was[key] ?? 'none'}, this run ${what} ${now[key] ?? 'none'}`)
  } else {
    for (const m of judged) {
      const before = baseMetrics.find((b) => b.id === m.id)?.versions
      if (before && m.versions && before.join() !== m.versions.join())
        refuse([m], `rubric version ${before.join(', ')} in the baseline, ${m.versions.join(', ')} now`)
    }
  }
  for (const m of graded.filter((x) => x.source === 'check')) {
    const before = was.checks?.[m.name]
    if (before !== undefined && now.checks[m.name] !== undefined && before !== now.checks[m.name])
      refuse([m], `check ${m.name} version ${before} in the baseline, ${now.checks[m.name]} now`)
  }
  return refused
}

const STAMP_CHANGES = [
  ['agentVersion', 'agent'],
  ['promptVersion', 'prompt'],
  ['model', 'model'],
  ['datasetVersion', 'version'],
] as const

/**
 * This run's metrics against the baseline: what may be compared (metrics, per-run or not, the
 * refusals) and the comparison the report shows.
 */
export function compareWithBaseline(
  base: Baseline | undefined,
  path: string,
  now: BaselineStamps,
  metrics: readonly MetricSamples[],
  policy: ZeroTolerance,
  what = 'dataset',
): { samples?: BaselineSamples; comparison: BaselineComparison } {
  if (!base) return { comparison: { path, compared: false, note: `no baseline in ${path} yet`, onlyNow: [], onlyBaseline: [], refused: [] } }
  const baseMetrics = base.runs ? metricSamples(base.runs, policy) : legacyMetrics(base.legacy!)
  const refused = refusals(base, now, metrics, baseMetrics)
  const items = (runs: RunsByItem | undefined, legacy: LegacyEntry | undefined) => new Set(runs ? runs.keys() : Object.keys(legacy!.examples))
  const before = items(base.runs, base.legacy)
  const after = new Set(metrics.flatMap((m) => [...m.clusters.keys()]))
  const changes = STAMP_CHANGES.flatMap(([key, label]) => {
    const was = base.stamps[key]
    return was !== undefined && was !== now[key] ? [`${key === 'datasetVersion' ? `${what} version` : label} ${was || '(none)'} → ${now[key] || '(none)'}`] : []
  })
  const comparison: BaselineComparison = {
    path,
    compared: true,
    note: `baseline of ${base.createdAt}${changes.length ? `; since then ${changes.join(', ')}` : ''}${base.runs ? '' : '; written before per-run outcomes were kept: compared on per-example figures only (pass rate and judge scores), their noise unknown; --update-baseline records one that keeps them'}`,
    createdAt: base.createdAt,
    stamps: base.stamps,
    ...(base.repeats ? { repeats: base.repeats } : {}),
    perRun: Boolean(base.runs),
    onlyNow: [...after].filter((id) => !before.has(id)).sort(),
    onlyBaseline: [...before].filter((id) => !after.has(id)).sort(),
    refused: refused.map((r) => ({ ...r, metrics: r.metrics.map((id) => id.replace(/^graded:/, '')) })),
  }
  const samples: BaselineSamples = {
    metrics: baseMetrics,
    perRun: Boolean(base.runs),
    refused: new Map(refused.flatMap((r) => r.metrics.map((id) => [id, r.reason] as const))),
  }
  return { samples, comparison }
}
