import { appendFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Storage } from '@sieve/core'
import { compareNanos, readSession, readTrace, traceSessionId, traceStart, type Trace } from '@sieve/core'
import type { ChecksConfig } from '@sieve/scoring'
import { DATASET_VERSION, goldenExampleSchema, type GoldenExample } from '../golden/golden-example.js'
import { readDataset } from '../golden/validate-dataset.js'
import type { Scrubber } from '../scrub/scrubber.js'
import { buildExample, exampleId, inputHash } from './build-example.js'
import { configDrift, type ConfigDrift } from './config-drift.js'
import { recordExports, type ExportRecord } from './exports-table.js'
import { checkSelectionNames } from './score-names.js'
import { countExported, selectTraces, type Selection } from './select-traces.js'

export interface ExportOptions extends Omit<Selection, 'datasetPath'> {
  out: string
  dryRun: boolean
  bucket: GoldenExample['bucket']
  reviewAfterDays: number
  checks: ChecksConfig
  scrubber: Scrubber
  /**
   * The judge rubric configured for a trace's agent (the judge config's `rubrics`): what a trace
   * selected by feedback, with nothing failed, is expected to pass. Without it such traces are skipped.
   */
  rubricFor?: (trace: Trace) => string | undefined
  now?: Date
}

export interface ExportReport {
  path: string
  added: { id: string; traceId: string }[]
  /** Same normalised input as an example already in the file (or added earlier in this run). */
  duplicates: { traceId: string; duplicateOf: string }[]
  /** Traces that could not become an example, and why. */
  skipped: { traceId: string; reason: string }[]
  /** Added examples whose expected check was scored under other parameters than the ones they carry. */
  configDrift: ConfigDrift[]
  /** Traces the selection matches that an earlier export already put into this file (the `exports` table): not added again. */
  alreadyExported: number
}

export class DatasetFileError extends Error {
  readonly code = 'DATASET_INVALID'
}

/**
 * Appends the selected traces to a JSONL dataset, scrubbed and validated, and records each in the
 * `exports` table so a second run adds nothing. A dry run reads and reports but writes nothing.
 */
export async function exportDataset(client: Storage, o: ExportOptions): Promise<ExportReport> {
  const path = resolve(o.out)
  await checkSelectionNames(client, o, o.checks.available)
  const existing = readDataset(path)
  if (existing.problems.length) {
    throw new DatasetFileError(`${path} has ${existing.problems.length} invalid line(s); run \`sieve dataset validate ${o.out}\` and fix them first`)
  }
  // A file may hold several projects' examples (`sieve export --out` names any file): only this
  // project's count as already there, so another tenant's example is never named to it.
  const byInput = new Map<string, string>()
  const ids = new Set<string>()
  for (const { example } of existing.examples) {
    if (example.source.projectId !== o.projectId) continue
    byInput.set(inputHash(example.input), example.id)
    ids.add(example.id)
  }
  const report: ExportReport = {
    path,
    added: [],
    duplicates: [],
    skipped: [],
    configDrift: [],
    alreadyExported: await countExported(client, { ...o, datasetPath: path }),
  }
  const records: ExportRecord[] = []
  const lines: string[] = []
  const now = o.now ?? new Date()
  const buildOptions = {
    checks: o.checks,
    scrubber: o.scrubber,
    bucket: o.bucket,
    reviewAfterDays: o.reviewAfterDays,
    filters: o,
    ...(o.rubricFor ? { rubricFor: o.rubricFor } : {}),
  }
  for (const candidate of await selectTraces(client, { ...o, datasetPath: path })) {
    const id = exampleId(o.projectId, candidate.traceId)
    const record = { projectId: o.projectId, datasetPath: path, traceId: candidate.traceId, exampleId: id, datasetVersion: DATASET_VERSION }
    if (ids.has(id)) {
      // In the file but not in `exports` (the file was copied, or the table reset): record it, add nothing.
      records.push({ ...record, inputHash: '', duplicateOf: id })
      report.duplicates.push({ traceId: candidate.traceId, duplicateOf: id })
      continue
    }
    const trace = await readTrace(client, o.projectId, candidate.traceId)
    if (!trace) {
      report.skipped.push({ traceId: candidate.traceId, reason: 'its spans are no longer stored' })
      continue
    }
    const built = buildExample(trace, candidate, { ...buildOptions, now }, await earlierInSession(client, trace))
    if ('skipped' in built) {
      report.skipped.push({ traceId: candidate.traceId, reason: built.skipped })
      continue
    }
    const example = goldenExampleSchema.parse(built.example)
    const hash = inputHash(example.input)
    const duplicateOf = byInput.get(hash)
    records.push({ ...record, inputHash: hash, duplicateOf: duplicateOf ?? '' })
    if (duplicateOf) {
      report.duplicates.push({ traceId: candidate.traceId, duplicateOf })
      continue
    }
    byInput.set(hash, example.id)
    ids.add(example.id)
    lines.push(JSON.stringify(example))
    report.added.push({ id: example.id, traceId: candidate.traceId })
    report.configDrift.push(...configDrift(trace, candidate.scores, example.expected, o.checks))
  }
  if (o.dryRun) return report
  if (lines.length) appendFileSync(path, lines.map((l) => `${l}\n`).join(''))
  await recordExports(client, records)
  return report
}

/** Earlier turns of a session a failing trace continues, at most this many traces back. */
const SESSION_HISTORY_TRACES = 50

/**
 * The traces of the trace's session that started before it: the example's history then holds the
 * turns the user had with the agent before, even when the agent sent none of them to its model.
 */
async function earlierInSession(client: Storage, trace: Trace): Promise<Trace[]> {
  const session = traceSessionId(trace)
  if (!session) return []
  const mine = traceStart(trace)
  return (await readSession(client, trace.projectId, session, SESSION_HISTORY_TRACES + 1))
    .filter((t) => t.traceId !== trace.traceId && compareNanos(traceStart(t), mine) < 0)
    .slice(-SESSION_HISTORY_TRACES)
}
