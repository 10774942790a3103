import type { Config, Trace } from '@sieve/core'
import type { FeedbackFilter, GoldenExample } from '@sieve/exporter'
import { STORAGE_ENV } from '../environment.js'
import { fractionOption, UsageError, type Command, type OptionValues } from '../command.js'

/** The dataset buckets (the exporter's BUCKETS, checked against its type here so `--help` need not load it). */
const BUCKET_CHOICES = ['typical', 'edge', 'known-failure'] as const satisfies readonly GoldenExample['bucket'][]
const FEEDBACK_CHOICES = ['negative'] as const

export const exportCommand: Command = {
  name: 'export',
  summary: 'Append failing or low-scoring traces to a golden JSONL dataset, PII-scrubbed',
  options: {
    out: { type: 'string', value: 'file', required: true, description: 'dataset file to append to (created if missing)' },
    score: { type: 'string', value: 'name', description: 'scorer whose value must be below --below: a check, a judge rubric (weighted score) or rubric.dimension' },
    below: { type: 'string', value: '0..1', description: 'threshold for --score' },
    failed: { type: 'string', value: 'name', description: 'only traces where this score failed (a check, a judge rubric or rubric.dimension)' },
    'failed-gate': { type: 'string', value: 'name|any', description: "only traces whose latest scorecard failed this gate (a check, rubric or rubric.dimension), or any gate" },
    feedback: { type: 'string', choices: FEEDBACK_CHOICES, description: 'only traces with negative feedback: a feedback score at or below --feedback-max' },
    'feedback-max': { type: 'string', value: 'n', defaultText: '0 (thumbs down)', description: 'with --feedback negative: the highest feedback score that counts as negative (for rating scales)' },
    'feedback-comment': { type: 'string', value: 'text', description: 'only traces with a feedback comment containing this, case aside (with --feedback, on the same feedback)' },
    since: { type: 'string', value: 'duration|date', default: '7d', description: 'traces started since: 7d, 12h, 30m or an ISO date' },
    service: { type: 'string', value: 'name', description: 'only traces of this service' },
    project: { type: 'string', value: 'id', default: 'default', description: 'project to export from' },
    limit: { type: 'string', value: 'n', default: '100', description: 'at most this many traces' },
    bucket: { type: 'string', choices: BUCKET_CHOICES, default: 'known-failure', description: 'bucket the new examples go in' },
    'review-after': { type: 'string', value: 'days', default: '90', description: 'days until each example is due for review' },
    'dry-run': { type: 'boolean', description: 'report what would be added; write nothing' },
  },
  details: [
    'Filters combine. Without --score, --failed, --failed-gate or --feedback: traces with any failed check, judge score or scorecard. ' +
      'Each example expects what failed, plus what its filter promises: --score/--below a least value for that score ' +
      '(expected.minValues for a check, expected.judge.floors for the judge), --failed-gate that gate, --feedback the judge ' +
      'rubric configured for the agent when nothing failed (needs JUDGE_MODEL). The example records why it was selected (selected).',
    'Every string of every example is PII-scrubbed (stable placeholders, keyed with SIEVE_SCRUB_SECRET when set). ' +
      'Idempotent: traces already in the file, and inputs it already holds, are not added again.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, 'SIEVE_SCRUB_SECRET', 'JUDGE_MODEL', 'JUDGE_BASE_URL', 'JUDGE_ALLOW_MODEL_ALIAS'],
  exitCodes: { 0: 'exported (or nothing to export)', 1: 'storage unreachable, or another error (printed)', 2: 'usage or configuration error, or the dataset file is invalid' },
  async run({ values }) {
    const out = String(values.out)
    const score = values.score as string | undefined
    const below = fractionOption('below', values.below)
    if ((score === undefined) !== (below === undefined)) throw new UsageError('--score and --below go together')
    const feedback = feedbackFilter(values)
    const [{ createStorage, loadConfig, migrate }, { createScrubber, exportDataset, loadScrubOptions, sinceUnixNano }, { loadChecksConfig }] =
      await Promise.all([import('@sieve/core'), import('@sieve/exporter'), import('@sieve/scorer')])
    const since = sinceUnixNano(String(values.since))
    if (!since) throw new UsageError(`--since must look like 7d, 12h, 30m or 2024-05-01 (got '${String(values.since)}')`)
    const limit = Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer (got '${String(values.limit)}')`)
    const bucket = String(values.bucket) as GoldenExample['bucket']
    const reviewAfterDays = Number(values['review-after'])
    if (!Number.isInteger(reviewAfterDays) || reviewAfterDays < 1) throw new UsageError('--review-after must be a positive number of days')

    const config = loadConfig()
    const scrubber = createScrubber(loadScrubOptions(config))
    const checks = await loadChecksConfig(config.sections)
    let rubricFor: ((trace: Trace) => string | undefined) | undefined
    try {
      rubricFor = feedback ? await configuredRubric(config) : undefined
    } catch (err) {
      // An invalid judge section or rubric file: the same configuration error `sieve eval` reports.
      if (!['CONFIG_INVALID', 'RUBRIC_INVALID'].includes((err as { code?: string }).code ?? '')) throw err
      console.error(`sieve export: ${(err as Error).message}`)
      return 2
    }
    const storage = await createStorage(config.clickhouse)
    try {
      // The exports table may be newer than the deployment's last `sieve up`.
      await migrate(storage, { retentionDays: config.retentionDays })
      const report = await exportDataset(storage, {
        out,
        projectId: String(values.project),
        score,
        below,
        failed: values.failed as string | undefined,
        failedGate: values['failed-gate'] as string | undefined,
        ...(feedback ? { feedback } : {}),
        ...(rubricFor ? { rubricFor } : {}),
        sinceUnixNano: since,
        service: values.service as string | undefined,
        limit,
        bucket,
        reviewAfterDays,
        dryRun: values['dry-run'] === true,
        checks,
        scrubber,
      })
      const verb = values['dry-run'] ? 'would add' : 'added'
      console.log(`${verb} ${report.added.length} example(s) to ${report.path}`)
      for (const a of report.added) console.log(`  + ${a.id} (trace ${a.traceId})`)
      for (const d of report.duplicates) console.log(`  = trace ${d.traceId}: same input as ${d.duplicateOf}, not added`)
      for (const s of report.skipped) console.log(`  - trace ${s.traceId}: ${s.reason}`)
      return 0
    } catch (err) {
      if ((err as { code?: string }).code === 'DATASET_INVALID') {
        console.error(`sieve export: ${(err as Error).message}`)
        return 2
      }
      throw err
    } finally {
      await storage.close()
    }
  },
}

/** `--feedback negative [--feedback-max N]` and `--feedback-comment TEXT` as one filter on feedback rows. */
function feedbackFilter(values: OptionValues): FeedbackFilter | undefined {
  const raw = values['feedback-max']
  if (raw !== undefined && values.feedback !== 'negative') throw new UsageError('--feedback-max goes with --feedback negative')
  const maxScore = raw === undefined ? 0 : Number(raw)
  if (!Number.isFinite(maxScore)) throw new UsageError(`--feedback-max must be a number (got '${String(raw)}')`)
  const comment = values['feedback-comment'] as string | undefined
  if (comment !== undefined && !comment.trim()) throw new UsageError('--feedback-comment needs some text')
  if (values.feedback !== 'negative' && comment === undefined) return undefined
  return { ...(values.feedback === 'negative' ? { maxScore } : {}), ...(comment !== undefined ? { comment } : {}) }
}

/**
 * The rubric the judge config gives a trace's agent (judge.rubrics, as the scorer and `sieve eval`
 * pick it): a trace chosen by feedback with nothing failed is expected to pass it. None without a judge.
 */
async function configuredRubric(config: Config): Promise<((trace: Trace) => string | undefined) | undefined> {
  const { loadJudgeConfig, loadRubrics, rubricFor } = await import('@sieve/scorer')
  const judge = loadJudgeConfig(config)
  if (!judge) return undefined
  const rubrics = loadRubrics(judge.rubricsDir)
  return (trace) => rubricFor(judge.rubrics, rubrics, trace)?.id
}
