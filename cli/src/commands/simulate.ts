import { existsSync } from 'node:fs'
import { JUDGE_ENV, SIMULATOR_ENV } from '../environment.js'
import {
  agentOption,
  costOption,
  fractionOption,
  integerOption,
  nowOption,
  OTLP_PORT_OPTION,
  TRACE_WAIT_OPTION,
  configErrorExit,
  UsageError,
  writeReport,
  reportPaths,
  type Command,
} from '../command.js'
import { gateOptions, gatePolicyOption } from '../gate-options.js'
import { replayJudge } from '../replay-judge.js'

/** --send as an http(s) URL; a usage error otherwise. */
function sendEndpoint(raw: string): string {
  const url = URL.canParse(raw) ? new URL(raw) : undefined
  if (!url || !/^https?:$/.test(url.protocol))
    throw new UsageError(`--send must be the http(s) URL of a Sieve's OTLP endpoint, e.g. http://localhost:4318 (got '${raw}')`)
  return raw.replace(/\/+$/, '')
}

const list = (raw: unknown): string[] | undefined => (raw === undefined ? undefined : (Array.isArray(raw) ? raw : [raw]).map(String))

export const simulateCommand: Command = {
  name: 'simulate',
  summary: 'Drive an agent through multi-turn scenarios with a simulated user (scripted or an LLM), under edge-case templates; score each run',
  options: {
    scenarios: { type: 'string', value: 'file|dir', multiple: true, description: 'scenario YAML file, or a folder of them (required unless --list-templates)' },
    agent: {
      type: 'string',
      value: 'command|module|url',
      description:
        'the agent, as for sieve eval: a shell command, a .ts/.js module run with node, or the http(s) URL of an agent service (required unless --list-templates)',
    },
    'otlp-port': OTLP_PORT_OPTION,
    'trace-wait': TRACE_WAIT_OPTION,
    scenario: { type: 'string', value: 'id', multiple: true, description: 'run only this scenario' },
    template: {
      type: 'string',
      value: 'name',
      multiple: true,
      description: 'run only this template (base: the scenario as written; a+b: templates a then b as one variant), whether or not the scenario lists it',
    },
    user: {
      type: 'string',
      choices: ['auto', 'scripted', 'llm'],
      default: 'auto',
      description: "who plays the user: the scenario's user.script when it has one, else the LLM (auto); always the script; always the LLM",
    },
    ...gateOptions('1', 'scenario × template'),
    concurrency: { type: 'string', value: 'n', default: '1', description: 'runs in flight at once, 1 to 64' },
    'min-pass-rate': {
      type: 'string',
      value: '0..1',
      description: 'a scenario × template passing fewer of its runs fails the simulation (without it, one failing every run fails)',
    },
    'max-cost': {
      type: 'string',
      value: 'usd',
      description:
        'stop once the simulator and the judge have cost this much (priced by simulator.prices and judge.prices); --repeats auto adds no round past it',
    },
    baseline: {
      type: 'string',
      value: 'file',
      description: 'baseline JSON: every run of every scenario × template with what it was measured with; paired on those both share',
    },
    'update-baseline': { type: 'boolean', description: "store this run as the baseline, replacing the file's (needs --baseline)" },
    judge: {
      type: 'boolean',
      env: 'JUDGE_MODEL',
      defaultText: 'on when JUDGE_MODEL is set',
      description: 'judge every finished run with the rubric that applies; fails when no judge is configured',
    },
    'no-judge': { type: 'boolean', description: 'score with the checks and the scorecard only, even when a judge is configured' },
    now: { type: 'string', value: 'iso time', description: 'a fixed clock for the agent, passed to it as SIEVE_EVAL_NOW (default: SIEVE_EVAL_NOW when set)' },
    send: {
      type: 'string',
      value: 'url',
      description:
        "also store every run's traces in the Sieve at this OTLP/HTTP endpoint (http://host:4318), each span tagged sieve.simulation.* (run id, scenario, its version, template, repeat); SIEVE_API_KEY is the key, and its project the one they land in",
    },
    timeout: { type: 'string', value: 'seconds', default: '120', description: 'how long one agent call may take' },
    out: { type: 'string', value: 'file', defaultText: 'SIEVE_DATA_DIR/reports/sieve-simulate.json', description: 'JSON artifact (its folder is created)' },
    summary: { type: 'string', value: 'file', defaultText: '--out with .md', description: 'Markdown summary' },
    'list-templates': { type: 'boolean', description: 'print the edge-case templates and what each changes, then exit' },
  },
  details: [
    "Each scenario runs as written (template base) and once per template it lists. A run opens with the scenario's opening, " +
      'then calls the agent once per user turn through the agent protocol of sieve eval (the conversation so far on stdin, or ' +
      'POSTed to an agent given as a URL, plus `fixtures` and `simulation`; SIEVE_SIMULATION=scenario@template#run) until the ' +
      'user ends it, the script ends, the agent hands off, or the turn limit is reached.',
    "Each run's traces are scored as one session with the scenario's expected checks, the judge when configured and the agent's " +
      'scorecard; a run passes when all hold. The LLM user is SIMULATOR_MODEL at SIMULATOR_BASE_URL (the `simulator` config section: ' +
      'prices, retries, seed), pinned like the judge. Writes --out and --summary (by default SIEVE_DATA_DIR/reports/) and prints where.',
    'With --send the runs are stored in a Sieve too: scored there by its checks and judge like any traffic, listed as sessions, ' +
      "each span tagged sieve.simulation.* and in the environment `simulation`, which a project's dashboards and Grafana leave " +
      'out unless asked (environment=simulation); a key of a project of their own (SIEVE_API_KEYS=simkey:support-simulation) keeps them apart by project too.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...SIMULATOR_ENV, ...JUDGE_ENV],
  exitCodes: {
    0: 'pass',
    1: 'a zero-tolerance check or scorecard gate failed in a run, a scenario × template failed every run (or fewer than --min-pass-rate passed), or a graded metric dropped past --fail-threshold distinguishably from the baseline',
    2: 'usage or configuration error (an invalid scenario, an expected check unknown or its parameters invalid), the agent cannot run, the simulator or the judge cannot be reached, or --max-cost left a scenario without a finished run',
  },
  async run({ values }) {
    const { TEMPLATES, BASE, COMBINE } = await import('@sieve/replay')
    if (values['list-templates']) {
      console.log(`${BASE.padEnd(18)} the scenario as written`)
      for (const t of TEMPLATES) console.log(`${t.name.padEnd(18)} ${t.summary}`)
      console.log(`\nCombine templates into one variant with ${COMBINE}, applied in the order written: impatient${COMBINE}pii-overshare`)
      return 0
    }
    const scenarios = list(values.scenarios) ?? []
    if (!scenarios.length) throw new UsageError('--scenarios <file|dir> is required')
    for (const path of scenarios) if (!existsSync(path)) throw new UsageError(`--scenarios: ${path} does not exist`)
    const { agent, ...reached } = agentOption(values)
    const concurrency = integerOption('concurrency', values.concurrency, 1, 64)
    const timeout = Number(values.timeout)
    if (!(timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds (got '${String(values.timeout)}')`)
    if (values['update-baseline'] && typeof values.baseline !== 'string') throw new UsageError('--update-baseline needs --baseline <file>')
    if (values.judge && values['no-judge']) throw new UsageError('--judge and --no-judge: choose one')
    const minPassRate = fractionOption('min-pass-rate', values['min-pass-rate'])
    const { repeats, ...policy } = await gatePolicyOption(values)
    const maxCostUsd = costOption(values['max-cost'])
    const now = nowOption(values.now)
    const only = {
      ...(list(values.scenario) ? { scenarios: list(values.scenario) } : {}),
      ...(list(values.template) ? { templates: list(values.template) } : {}),
    }

    const [{ loadConfig }, { loadSimulatorConfig, runSimulation, simulationSummary, simulationTerminal }, { loadChecksConfig }] = await Promise.all([
      import('@sieve/core'),
      import('@sieve/replay'),
      import('@sieve/scoring'),
    ])
    try {
      const config = loadConfig()
      const checks = await loadChecksConfig(config.sections)
      const simulator = loadSimulatorConfig(config)
      const judge = values['no-judge'] ? undefined : await replayJudge(config, values.judge === true, {}, checks.scorecards)
      const report = await runSimulation({
        scenarios,
        agent,
        ...reached,
        repeats,
        policy,
        concurrency,
        timeoutMs: timeout * 1000,
        checks,
        user: values.user as 'auto' | 'scripted' | 'llm',
        ...(simulator ? { simulator } : {}),
        ...(judge ? { judge } : {}),
        ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
        ...(minPassRate !== undefined ? { minPassRate } : {}),
        ...(typeof values.baseline === 'string' ? { baseline: values.baseline } : {}),
        updateBaseline: values['update-baseline'] === true,
        only,
        ...(now ? { now } : {}),
        ...(typeof values.send === 'string'
          ? { forward: { endpoint: sendEndpoint(values.send), ...(process.env.SIEVE_API_KEY ? { apiKey: process.env.SIEVE_API_KEY } : {}) } }
          : {}),
        log: (line) => console.log(line),
      })
      return writeReport({ ...values, ...reportPaths(values, config.dataDir, 'sieve-simulate') }, report, simulationSummary(report), simulationTerminal(report))
    } catch (err) {
      return configErrorExit('simulate', err, ['SIMULATE_CONFIG', 'EVAL_CONFIG', 'BASELINE_INVALID', 'CONFIG_INVALID', 'RUBRIC_INVALID'])
    }
  },
}
