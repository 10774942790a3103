import type { Storage, Config, Trace } from '@sieve/core'
import type { ExportOptions, ExportReport } from '@sieve/dataset'
import type { ChecksConfig, ScoreRecord } from '@sieve/scoring'
import type { CalibrationReport, Label } from '@sieve/review'

/** `sieve export`'s selection and destination: everything but what the configuration gives (checks, scrubber, rubrics). */
export type ExportRequest = Omit<ExportOptions, 'checks' | 'scrubber' | 'rubricFor' | 'now'>

export interface ScoreRequest {
  projectId: string
  traceId: string
  dryRun: boolean
}

export interface ScoreOutcome {
  /** formatTraceScore's text: the checks, failures first, and the scorecard. */
  text: string
  records: ScoreRecord[]
  /** A check or the scorecard failed. */
  failed: boolean
}

export interface CalibrateRequest {
  /** Labels read from the user's file (validated there and again on arrival). */
  labels: Label[]
  /** Also the annotations stored as feedback. */
  fromAnnotations: boolean
  /** The project of labels that name none (`--project`); else `default`, refused when no API key reads it. */
  project?: string
  threshold?: number
  /** Nothing read from or written to storage: inline transcripts only. */
  dryRun: boolean
}

export interface MigrateOutcome {
  applied: string[]
  retentionUpdated: string[]
  retentionDays: number
}

/**
 * What CLI commands do with the store and the configuration, behind one interface: run here
 * (`localOperations`, opening the store) or by the `sieve up` that owns it (`remoteOperations`,
 * through its /ops routes, which call `localOperations` there). The same code does the work either
 * way, with the configuration of the process that runs it.
 */
export interface StoreOperations {
  /** Whose store and configuration the work used, said once by each command. */
  readonly origin: string
  export(request: ExportRequest): Promise<ExportReport>
  /** Undefined when the project has no such trace. */
  score(request: ScoreRequest): Promise<ScoreOutcome | undefined>
  /** formatChecksConfig's text, for every agent or one. */
  checks(agent: string | undefined): Promise<string>
  migrate(): Promise<MigrateOutcome>
  /** The configured judge against human labels (`sieve judge calibrate`), stored as calibration scores unless a dry run. */
  calibrate(request: CalibrateRequest): Promise<CalibrationReport>
  close(): Promise<void>
}

/** An error a command reports with its own exit code (dataset invalid, configuration invalid...). */
export class OperationError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message)
  }
}

/**
 * Errors the operations raise on bad input, configuration or a judge that failed rather than on a
 * broken store: 4xx over HTTP, exit 2 in the CLI (the judge's codes are scorer's JudgeErrorCode).
 */
export const USER_ERROR_CODES = new Set([
  'DATASET_INVALID',
  'SELECTION_INVALID',
  'CONFIG_INVALID',
  'RUBRIC_INVALID',
  'USAGE',
  'NO_JUDGE',
  'LABELS_INVALID',
  'INVALID_ANSWER',
  'PROVIDER_UNAVAILABLE',
  'REQUEST_REJECTED',
  'PANEL_NO_MAJORITY',
])

/**
 * The operations on this process's configuration. `openStorage` is called the first time one needs
 * the store (`checks` never does), so a command that reads the configuration only opens nothing.
 */
export function localOperations(config: Config, openStorage: () => Promise<Storage>, origin: string): StoreOperations {
  let storage: Promise<Storage> | undefined
  const store = () => (storage ??= openStorage())
  let checks: Promise<ChecksConfig> | undefined
  const checksConfig = () => (checks ??= import('@sieve/scoring').then(({ loadChecksConfig }) => loadChecksConfig(config.sections)))
  let migrated: Promise<unknown> | undefined
  // The exports table may be newer than the store's last `sieve up`.
  const migratedStore = async () => {
    const client = await store()
    const { migrate, migrateOptionsOf } = await import('@sieve/core')
    await (migrated ??= migrate(client, migrateOptionsOf(config)))
    return client
  }
  return {
    origin,
    async export(request) {
      const [{ createScrubber, exportDataset, loadScrubOptions }, client, checks] = await Promise.all([
        import('@sieve/dataset'),
        migratedStore(),
        checksConfig(),
      ])
      const rubricFor = request.feedback ? await configuredRubric(config) : undefined
      return exportDataset(client, { ...request, checks, scrubber: createScrubber(loadScrubOptions(config)), ...(rubricFor ? { rubricFor } : {}) })
    },
    async score({ projectId, traceId, dryRun }) {
      const [{ readTrace }, scorer, client, checks] = await Promise.all([import('@sieve/core'), import('@sieve/scoring'), store(), checksConfig()])
      const trace = await readTrace(client, projectId, traceId)
      if (!trace) return undefined
      // The judge's stored scores are part of the scorecard written again; the judge is not asked anew.
      const score = scorer.scoreTrace(trace, checks, await scorer.storedScoresSeen(client, projectId, trace.traceId, 'judge'))
      const records = scorer.traceScoreRecords(score)
      if (!dryRun) await scorer.clickhouseScoreSink(client).write(records)
      return { text: scorer.formatTraceScore(score), records, failed: score.results.some((r) => !r.passed) || score.scorecard?.passed === false }
    },
    async checks(agent) {
      const { formatChecksConfig } = await import('@sieve/scoring')
      return formatChecksConfig(await checksConfig(), agent)
    },
    async migrate() {
      const [{ migrate, migrateOptionsOf }, client] = await Promise.all([import('@sieve/core'), store()])
      const result = await migrate(client, migrateOptionsOf(config))
      return { applied: result.applied, retentionUpdated: result.retentionUpdated, retentionDays: config.retentionDays }
    },
    async calibrate({ labels, fromAnnotations, project, threshold, dryRun }) {
      const [{ readTrace }, scorer, review, judging] = await Promise.all([
        import('@sieve/core'),
        import('@sieve/scoring'),
        import('@sieve/review'),
        import('@sieve/judging'),
      ])
      const judge = judging.loadJudgeConfig(config)
      if (!judge) throw new OperationError('NO_JUDGE', 'no judge configured: set JUDGE_MODEL (a pinned version) and JUDGE_BASE_URL')
      // Storage holds labelled traces given by id, and keeps the result for dashboards.
      const client = dryRun ? undefined : await migratedStore()
      // Stored for a project no key reads, the calibration would be seen by nobody: refused (a dry run stores nothing).
      const keyedProjects = dryRun ? undefined : new Set(config.apiKeys.values())
      const all = [
        ...review.labelsInProjects(labels, { ...(project ? { project } : {}), ...(keyedProjects ? { keyedProjects } : {}) }),
        ...(client && fromAnnotations ? await review.readAnnotationLabels(client) : []),
      ]
      if (all.length === 0) throw new judging.JudgeError('LABELS_INVALID', 'no labels: the labels file is empty and storage holds no annotations')
      const calls = new judging.Semaphore(judge.concurrency)
      const judgeClient = new judging.JudgeClient(judge, new judging.JudgeMetrics())
      const report = await review.calibrate(all, {
        ask: (j, r, d, t) => calls.run(() => judgeClient.judgeDimension(j, r, d, t)),
        judge: { model: judge.model, seed: judge.seed },
        panel: judge.panel?.judges.map((j) => ({ model: j.model ?? judge.model, seed: j.seed ?? judge.seed })),
        rubrics: judging.loadRubrics(judge.rubricsDir),
        ...(client ? { loadTrace: (projectId: string, traceId: string) => readTrace(client, projectId, traceId) } : {}),
        ...judge.calibration,
        threshold: threshold ?? judge.calibration.threshold,
      })
      if (client) {
        const at = new Date()
        const projects = [...new Set(all.map((l) => l.projectId))]
        await scorer.clickhouseScoreSink(client).write(projects.flatMap((p) => review.calibrationRecords(report, p, String(BigInt(at.getTime()) * 1_000_000n))))
        // Beside the review queue's recalibrations, in the dashboard's agreement over time.
        await review.writeCalibrationHistory(
          client,
          projects.flatMap((p) => review.calibrationHistoryRows(report, p, 'command', at)),
        )
      }
      return report
    },
    async close() {
      // A store that failed to open has nothing to close: the command already reported why.
      const opened = await storage?.catch(() => undefined)
      await opened?.close()
    },
  }
}

/**
 * The rubric the judge config gives a trace's agent (judge.rubrics, as the scorer and `sieve eval`
 * pick it): a trace chosen by feedback with nothing failed is expected to pass it. None without a judge.
 */
async function configuredRubric(config: Config): Promise<((trace: Trace) => string | undefined) | undefined> {
  const { loadJudgeConfig, loadRubrics, rubricFor } = await import('@sieve/judging')
  const judge = loadJudgeConfig(config)
  if (!judge) return undefined
  const rubrics = loadRubrics(judge.rubricsDir)
  return (trace) => rubricFor(judge.rubrics, rubrics, trace)?.id
}
