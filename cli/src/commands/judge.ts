import { readFileSync, writeFileSync } from 'node:fs'
import type { Label } from '@sieve/review'
import { JUDGE_ENV, OWNER_NOTE, REMOTE_ENV, STORAGE_ENV } from '../environment.js'
import { URL_OPTION, UsageError, withUrl, type Command, type OptionValues } from '../command.js'
import { USER_ERROR_CODES } from '../store/operations.js'

async function calibrateCommand(values: OptionValues): Promise<number> {
  const labelsPath = values.labels
  const fromAnnotations = values['from-annotations'] === true
  if (typeof labelsPath !== 'string' && !fromAnnotations) throw new UsageError('give --labels <file>, --from-annotations, or both')
  if (fromAnnotations && values['dry-run']) throw new UsageError('--from-annotations reads storage, --dry-run opens none: choose one')
  const threshold = values.threshold === undefined ? undefined : Number(values.threshold)
  if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
    throw new UsageError(`--threshold must be a fraction between 0 and 1 (got '${values.threshold}')`)
  const [{ loadConfig }, { formatCalibration, parseLabels }, { openOperations }] = await Promise.all([
    import('@sieve/core'),
    import('@sieve/review'),
    import('../store/open-operations.js'),
  ])
  const labels: Label[] = []
  if (typeof labelsPath === 'string') {
    let text: string
    try {
      text = readFileSync(labelsPath, 'utf8')
    } catch (err) {
      throw new UsageError(`cannot read ${labelsPath}: ${(err as Error).message}`)
    }
    labels.push(...parseLabels(text, labelsPath))
  }
  const operations = await openOperations(loadConfig(withUrl(values)))
  try {
    const project = typeof values.project === 'string' ? values.project : undefined
    const report = await operations.calibrate({
      labels,
      fromAnnotations,
      ...(project ? { project } : {}),
      ...(threshold !== undefined ? { threshold } : {}),
      dryRun: values['dry-run'] === true,
    })
    console.error(`sieve judge calibrate: ${operations.origin}`)
    console.log(values.json ? JSON.stringify(report, null, 2) : formatCalibration(report))
    if (typeof values.out === 'string') writeFileSync(values.out, `${JSON.stringify(report, null, 2)}\n`)
    const untrusted = report.dimensions.filter((d) => !d.trusted)
    if (untrusted.length && !values.json)
      console.log(`\n${untrusted.length} untrusted dimension(s): ${untrusted.map((d) => `${d.rubricId}.${d.dimension}`).join(', ')}`)
    return 0
  } finally {
    await operations.close()
  }
}

export const judgeCommand: Command = {
  name: 'judge',
  summary: 'LLM judge tools: `calibrate` compares the judge with human labels',
  arguments: 'calibrate',
  options: {
    url: URL_OPTION,
    labels: {
      type: 'string',
      value: 'file.jsonl',
      description: 'JSONL of human labels (trace id or inline transcript, per-dimension levels); this, --from-annotations, or both',
    },
    'from-annotations': { type: 'boolean', description: "also use annotations stored as feedback (source 'annotator', attributes rubric and dimension)" },
    project: {
      type: 'string',
      value: 'id',
      defaultText: 'default',
      description:
        'the project of labels that name none (inline transcripts): where the result is stored; with SIEVE_API_KEYS set, one a key reads (else refused)',
    },
    threshold: {
      type: 'string',
      value: '0..1',
      defaultText: "the judge section's calibration.threshold, else 0.85",
      description: 'within-one agreement under which a dimension is untrusted',
    },
    json: { type: 'boolean', description: 'print the report as JSON' },
    out: { type: 'string', value: 'file', description: 'also write the JSON report to this file' },
    'dry-run': { type: 'boolean', description: 'do not open storage: inline transcripts only, nothing stored' },
  },
  details: [
    'Asks the configured judge (JUDGE_*) about every labelled trace and reports, per rubric dimension, exact ' +
      "and within-one agreement and Cohen's kappa; dimensions under the threshold are marked untrusted. The " +
      'result is stored as scores for the dashboards unless --dry-run.',
    OWNER_NOTE,
  ],
  env: ['SIEVE_CONFIG_FILE', ...JUDGE_ENV, ...STORAGE_ENV, 'SIEVE_API_KEYS', ...REMOTE_ENV],
  exitCodes: {
    0: 'calibrated (untrusted dimensions are reported, not an error)',
    1: 'storage unreachable, or another error (printed)',
    2: 'usage or configuration error, no judge configured, invalid labels, or the judge failed',
  },
  async run({ values, positionals }) {
    const [sub, ...rest] = positionals
    if (sub !== 'calibrate' || rest.length)
      throw new UsageError(`unknown judge subcommand '${positionals.join(' ')}'; try: sieve judge calibrate --labels <file>`)
    try {
      return await calibrateCommand(values)
    } catch (err) {
      const code = (err as { code?: string }).code ?? ''
      if (code !== 'USAGE' && USER_ERROR_CODES.has(code)) {
        console.error(`sieve judge calibrate: ${code}: ${(err as Error).message}`)
        return 2
      }
      throw err
    }
  },
}
