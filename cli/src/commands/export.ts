import { resolve } from 'node:path'
import type { FeedbackFilter, GoldenExample } from '@sieve/dataset'
import { OWNER_NOTE, REMOTE_ENV, STORAGE_ENV } from '../environment.js'
import { fractionOption, URL_OPTION, UsageError, withUrl, type Command, type OptionValues } from '../command.js'
import { USER_ERROR_CODES } from '../store/operations.js'

/** The dataset buckets (@sieve/dataset's BUCKETS, checked against its type here so `--help` need not load it). */
const BUCKET_CHOICES = ['typical', 'edge', 'known-failure'] as const satisfies readonly GoldenExample['bucket'][]
const FEEDBACK_CHOICES = ['negative'] as const

export const exportCommand: Command = {
  name: 'export',
  summary: 'Append failing or low-scoring traces to a golden JSONL dataset, PII-scrubbed',
  options: {
    url: URL_OPTION,
    out: { type: 'string', value: 'file', required: true, description: 'dataset file to append to (created if missing)' },
    score: {
      type: 'string',
      value: 'name',
      description: 'scorer whose value must be below --below: a check, a judge rubric (weighted score) or rubric.dimension',
    },
    below: { type: 'string', value: '0..1', description: 'threshold for --score' },
    failed: { type: 'string', value: 'name', description: 'only traces where this score failed (a check, a judge rubric or rubric.dimension)' },
    'failed-gate': {
      type: 'string',
      value: 'name|any',
      description: 'only traces whose latest scorecard failed this gate (a check, rubric or rubric.dimension), or any gate',
    },
    feedback: { type: 'string', choices: FEEDBACK_CHOICES, description: 'only traces with negative feedback: a feedback score at or below --feedback-max' },
    'feedback-max': {
      type: 'string',
      value: 'n',
      defaultText: '0 (thumbs down)',
      description: 'with --feedback negative: the highest feedback score that counts as negative (for rating scales)',
    },
    'feedback-comment': {
      type: 'string',
      value: 'text',
      description: 'only traces with a feedback comment containing this, case aside (with --feedback, on the same feedback)',
    },
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
    OWNER_NOTE,
  ],
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, 'SIEVE_SCRUB_SECRET', 'JUDGE_MODEL', 'JUDGE_BASE_URL', 'JUDGE_ALLOW_MODEL_ALIAS', ...REMOTE_ENV],
  exitCodes: {
    0: 'exported (or nothing to export)',
    1: 'storage unreachable, or another error (printed)',
    2: 'usage or configuration error, the dataset file is invalid, or --failed/--score/--failed-gate names no check or stored judge score',
  },
  async run({ values }) {
    const out = String(values.out)
    const score = values.score as string | undefined
    const below = fractionOption('below', values.below)
    if ((score === undefined) !== (below === undefined)) throw new UsageError('--score and --below go together')
    const feedback = feedbackFilter(values)
    const [{ loadConfig }, { sinceUnixNano }, { openOperations }] = await Promise.all([
      import('@sieve/core'),
      import('@sieve/dataset'),
      import('../store/open-operations.js'),
    ])
    const since = sinceUnixNano(String(values.since))
    if (!since) throw new UsageError(`--since must look like 7d, 12h, 30m or 2024-05-01 (got '${String(values.since)}')`)
    const limit = Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer (got '${String(values.limit)}')`)
    const bucket = String(values.bucket) as GoldenExample['bucket']
    const reviewAfterDays = Number(values['review-after'])
    if (!Number.isInteger(reviewAfterDays) || reviewAfterDays < 1) throw new UsageError('--review-after must be a positive number of days')

    const operations = await openOperations(loadConfig(withUrl(values)))
    try {
      // Absolute: while `sieve up` owns the store, it writes the file, from its own working directory.
      const report = await operations.export({
        out: resolve(out),
        projectId: String(values.project),
        score,
        below,
        failed: values.failed as string | undefined,
        failedGate: values['failed-gate'] as string | undefined,
        ...(feedback ? { feedback } : {}),
        sinceUnixNano: since,
        service: values.service as string | undefined,
        limit,
        bucket,
        reviewAfterDays,
        dryRun: values['dry-run'] === true,
      })
      console.error(`sieve export: ${operations.origin}`)
      const verb = values['dry-run'] ? 'would add' : 'added'
      console.log(`${verb} ${report.added.length} example(s) to ${report.path}`)
      for (const a of report.added) console.log(`  + ${a.id} (trace ${a.traceId})`)
      for (const d of report.duplicates) console.log(`  = trace ${d.traceId}: same input as ${d.duplicateOf}, not added`)
      for (const s of report.skipped) console.log(`  - trace ${s.traceId}: ${s.reason}`)
      if (report.alreadyExported) console.log(`${report.alreadyExported} matching trace(s) already in ${report.path} from earlier exports, not added again`)
      for (const d of report.configDrift) {
        console.error(
          `sieve export: warning: trace ${d.traceId} failed ${d.check} under config ${d.scoredWith}; the example carries the config in use (${d.configured}). Same config file as the scorer? \`sieve score --trace ${d.traceId}\` re-scores it with this one.`,
        )
      }
      return 0
    } catch (err) {
      if (USER_ERROR_CODES.has((err as { code?: string }).code ?? '')) {
        console.error(`sieve export: ${(err as Error).message}`)
        return 2
      }
      throw err
    } finally {
      await operations.close()
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
