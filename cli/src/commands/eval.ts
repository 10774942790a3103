import { existsSync } from 'node:fs'
import { JUDGE_ENV } from '../environment.js'
import {
  agentOption,
  costOption,
  fractionOption,
  nowOption,
  OTLP_PORT_OPTION,
  TRACE_WAIT_OPTION,
  configErrorExit,
  reportPaths,
  UsageError,
  writeReport,
  type Command,
} from '../command.js'
import { gateOptions, gatePolicyOption } from '../gate-options.js'
import { judgeFloors, replayJudge } from '../replay-judge.js'

export const evalCommand: Command = {
  name: 'eval',
  summary: 'Regression gate: replay a golden dataset through an agent, score with the checks (and the judge), compare with a baseline',
  options: {
    dataset: { type: 'string', value: 'file', required: true, description: 'golden JSONL dataset (from sieve export)' },
    agent: {
      type: 'string',
      value: 'command|module|url',
      required: true,
      description:
        'shell command, or a .ts/.js module run with node, reading the example input as JSON on stdin; or the http(s) URL of an agent service, POSTed each turn',
    },
    'otlp-port': OTLP_PORT_OPTION,
    'trace-wait': TRACE_WAIT_OPTION,
    ...gateOptions('3', 'example'),
    baseline: {
      type: 'string',
      value: 'file',
      description: 'baseline JSON: every run of every example with what it was measured with; paired on the examples both share',
    },
    'update-baseline': { type: 'boolean', description: "store this run as the baseline, replacing the file's (needs --baseline)" },
    'fail-below': { type: 'string', value: '0..1', description: 'exit 1 when the mean check score is below this' },
    'warn-below': { type: 'string', value: '0..1', description: 'warn when the mean check score is below this' },
    judge: {
      type: 'boolean',
      env: 'JUDGE_MODEL',
      defaultText: 'on when JUDGE_MODEL is set',
      description: 'judge every run with the rubric that applies; fails when no judge is configured',
    },
    'no-judge': { type: 'boolean', description: 'score with the checks only, even when a judge is configured' },
    'judge-floor': {
      type: 'string',
      value: 'dim=x',
      multiple: true,
      description: 'a run also fails when judge dimension dim (or rubric.dim) scores below x, in [0, 1]',
    },
    'max-errored-share': {
      type: 'string',
      value: '0..1',
      defaultText: '0.2',
      description: 'share of runs that may crash or time out (errored: kept out of means) before the gate fails',
    },
    'max-cost': {
      type: 'string',
      value: 'usd',
      description:
        'stop judging once the judge has cost this much (priced by judge.prices), and --repeats auto adds no round past it; exit 2 when that leaves a judge-only example without a verdict',
    },
    now: { type: 'string', value: 'iso time', description: 'a fixed clock for the agent, passed to it as SIEVE_EVAL_NOW (default: SIEVE_EVAL_NOW when set)' },
    timeout: { type: 'string', value: 'seconds', default: '120', description: 'how long one agent run may take' },
    out: { type: 'string', value: 'file', defaultText: 'SIEVE_DATA_DIR/reports/sieve-eval.json', description: 'JSON artifact (its folder is created)' },
    summary: { type: 'string', value: 'file', defaultText: '--out with .md', description: 'Markdown summary' },
  },
  details: [
    'Runs the agent once per user turn of each example, --repeats times, reads the traces it sends back ' +
      "through the checks (and the scorer's judge on every run, no sampling, when a judge is configured), and " +
      'compares with the baseline on the examples both share, example by example (repeats of one example are clustered).',
    "Zero-tolerance checks (prohibited_tools and the scorecard's gates, by default) fail on any failing run, whatever the " +
      "baseline; graded metrics (the pass rate, other checks, the scorecard's total, judge scores) fail on a drop past " +
      '--fail-threshold that is distinguishable from noise, and warn past --warn-threshold. Each is reported as baseline → now, ' +
      'Δ ± its 95% interval, the verdict and the smallest drop the run could detect.',
    'The agent reads the example input as JSON on stdin (also in SIEVE_EVAL_INPUT) and sends its traces to ' +
      'SIEVE_ENDPOINT (= OTEL_EXPORTER_OTLP_ENDPOINT), a receiver eval starts for the run. An agent given as a URL is ' +
      'POSTed the same input (plus `sieve`: example id, turn, session id) with a `traceparent` its trace must continue, ' +
      'answers `{"answer": "..."}`, and sends its traces to 127.0.0.1:--otlp-port. Writes --out and --summary.',
    'With a scorecard configured for the agent (the `scorecards` section), a run also fails when the card fails: ' +
      'a hard gate among its items, or its weighted total below passAt.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...JUDGE_ENV],
  exitCodes: {
    0: 'pass',
    1: 'regression: a zero-tolerance check or scorecard gate failed in a run, a graded metric dropped past --fail-threshold distinguishably, below --fail-below, a known failure failing every run again, or more errored runs than --max-errored-share',
    2: 'usage or configuration error (an expected check unknown or its parameters invalid), the agent cannot run, the judge is unreachable, or --max-cost left an example without a verdict',
  },
  async run({ values }) {
    const dataset = String(values.dataset)
    const { agent, ...reached } = agentOption(values)
    if (!existsSync(dataset)) throw new UsageError(`--dataset: ${dataset} does not exist`)
    const timeout = Number(values.timeout)
    if (!(timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds (got '${String(values.timeout)}')`)
    if (values['update-baseline'] && typeof values.baseline !== 'string') throw new UsageError('--update-baseline needs --baseline <file>')
    const failBelow = fractionOption('fail-below', values['fail-below'])
    const warnBelow = fractionOption('warn-below', values['warn-below'])

    if (values.judge && values['no-judge']) throw new UsageError('--judge and --no-judge: choose one')
    if (values['no-judge'] && values['judge-floor']) throw new UsageError('--judge-floor needs the judge: drop --no-judge')
    const floors = judgeFloors(values['judge-floor'])
    const { repeats, ...policy } = await gatePolicyOption(values)
    const maxErroredShare = fractionOption('max-errored-share', values['max-errored-share'])
    const maxCostUsd = costOption(values['max-cost'])
    const now = nowOption(values.now)

    const [{ loadConfig }, { runGate, summaryMarkdown, gateTerminal }, { loadChecksConfig, traceView }] = await Promise.all([
      import('@sieve/core'),
      import('@sieve/replay'),
      import('@sieve/scoring'),
    ])
    const config = loadConfig()
    const checks = await loadChecksConfig(config.sections)
    try {
      const judge = values['no-judge'] ? undefined : await replayJudge(config, values.judge === true, floors, checks.scorecards)
      const report = await runGate({
        dataset,
        agent,
        ...reached,
        repeats,
        policy,
        failBelow,
        warnBelow,
        baseline: values.baseline as string | undefined,
        updateBaseline: values['update-baseline'] === true,
        timeoutMs: timeout * 1000,
        checks: checks.available,
        scorecardFor: (trace) => {
          const view = traceView(trace)
          return checks.scorecards.cardFor(view.agentName, view.serviceName)
        },
        judge,
        ...(maxErroredShare !== undefined ? { maxErroredShare } : {}),
        ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
        ...(now ? { now } : {}),
        log: (line) => console.log(line),
      })
      return writeReport({ ...values, ...reportPaths(values, config.dataDir, 'sieve-eval') }, report, summaryMarkdown(report), gateTerminal(report))
    } catch (err) {
      return configErrorExit('eval', err, ['EVAL_CONFIG', 'BASELINE_INVALID', 'CONFIG_INVALID', 'RUBRIC_INVALID'])
    }
  },
}
