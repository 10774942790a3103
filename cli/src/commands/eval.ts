import { existsSync, writeFileSync } from 'node:fs'
import { loadConfig, type Config } from '@sieve/core'
import { ReplayJudge, runGate, summaryMarkdown } from '@sieve/exporter'
import { loadChecksConfig, loadJudgeConfig, loadRubrics } from '@sieve/scorer'
import { fractionOption, UsageError, type Command } from '../command.js'

export const evalCommand: Command = {
  name: 'eval',
  summary: 'Regression gate: replay a golden dataset through an agent, score with the checks (and the judge), compare with a baseline',
  usage:
    'sieve eval --dataset golden.jsonl --agent <command or module> [--repeats 3] [--baseline baseline.json] [--fail-below x] [--warn-below y] [--judge | --no-judge] [--judge-floor dim=x] [--judge-tolerance t]',
  options: {
    dataset: { type: 'string', description: 'Golden JSONL dataset (from sieve export)' },
    agent: { type: 'string', description: 'Shell command, or a .ts/.js module run with node; reads the example input as JSON on stdin' },
    repeats: { type: 'string', default: '3', description: 'Runs per example (default 3): pass rate tells instability from a capability gap' },
    baseline: { type: 'string', description: 'Baseline JSON, keyed by dataset version, model and (with the judge) judge model' },
    'update-baseline': { type: 'boolean', description: 'Store this run as the baseline for its dataset version, model and judge model' },
    'fail-below': { type: 'string', description: 'Exit 1 when the mean check score is below this' },
    'warn-below': { type: 'string', description: 'Warn when the mean check score is below this' },
    judge: { type: 'boolean', description: 'Judge every run with the rubric that applies (default when JUDGE_MODEL is set)' },
    'no-judge': { type: 'boolean', description: 'Score with the checks only, even when a judge is configured' },
    'judge-floor': { type: 'string', multiple: true, description: 'dimension=x or rubric.dimension=x: a run also fails when that dimension is below x (0..1); repeatable' },
    'judge-tolerance': { type: 'string', description: 'Largest drop of a judge score below the baseline that is not a regression (default 0.1)' },
    timeout: { type: 'string', default: '120', description: 'Seconds one agent run may take (default 120)' },
    out: { type: 'string', default: 'sieve-eval.json', description: 'JSON artifact (default sieve-eval.json)' },
    summary: { type: 'string', default: 'sieve-eval.md', description: 'Markdown summary (default sieve-eval.md)' },
  } as Command['options'], // `description` is read by --help and stripped before parseArgs
  async run({ values }) {
    const dataset = values.dataset
    const agent = values.agent
    if (typeof dataset !== 'string' || typeof agent !== 'string' || !agent.trim()) throw new UsageError('--dataset and --agent are required')
    if (!existsSync(dataset)) throw new UsageError(`--dataset: ${dataset} does not exist`)
    const repeats = Number(values.repeats)
    if (!Number.isInteger(repeats) || repeats < 1 || repeats > 100) throw new UsageError(`--repeats must be an integer from 1 to 100 (got '${String(values.repeats)}')`)
    const timeout = Number(values.timeout)
    if (!(timeout > 0)) throw new UsageError(`--timeout must be a positive number of seconds (got '${String(values.timeout)}')`)
    if (values['update-baseline'] && typeof values.baseline !== 'string') throw new UsageError('--update-baseline needs --baseline <file>')
    const failBelow = fractionOption('fail-below', values['fail-below'])
    const warnBelow = fractionOption('warn-below', values['warn-below'])

    if (values.judge && values['no-judge']) throw new UsageError('--judge and --no-judge: choose one')
    if (values['no-judge'] && values['judge-floor']) throw new UsageError('--judge-floor needs the judge: drop --no-judge')
    const floors = judgeFloors(values['judge-floor'])
    const judgeTolerance = fractionOption('judge-tolerance', values['judge-tolerance'])

    const config = loadConfig()
    const checks = await loadChecksConfig(config.sections)
    try {
      const judge = values['no-judge'] ? undefined : replayJudge(config, values.judge === true, floors)
      const report = await runGate({
        dataset,
        agent,
        repeats,
        failBelow,
        warnBelow,
        baseline: values.baseline as string | undefined,
        updateBaseline: values['update-baseline'] === true,
        timeoutMs: timeout * 1000,
        checks: checks.available,
        judge,
        judgeTolerance,
        log: (line) => console.log(line),
      })
      writeFileSync(String(values.out), `${JSON.stringify(report, null, 2)}\n`)
      const summary = summaryMarkdown(report)
      writeFileSync(String(values.summary), summary)
      console.log(`\n${summary}`)
      return report.exitCode
    } catch (err) {
      const code = (err as { code?: string }).code
      if (code === 'EVAL_CONFIG' || code === 'BASELINE_INVALID' || code === 'CONFIG_INVALID' || code === 'RUBRIC_INVALID') {
        console.error(`sieve eval: ${(err as Error).message}`)
        return 2
      }
      throw err
    }
  },
}

/** `--judge-floor accuracy=0.75` (repeatable) → { accuracy: 0.75 }. */
function judgeFloors(raw: unknown): Record<string, number> {
  const floors: Record<string, number> = {}
  for (const item of (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String)) {
    const m = /^([a-z][a-z0-9-]*\.)?([a-z][a-z0-9_]*)=(.+)$/.exec(item)
    if (!m) throw new UsageError(`--judge-floor must be dimension=x or rubric.dimension=x (got '${item}')`)
    floors[`${m[1] ?? ''}${m[2]}`] = fractionOption('judge-floor', m[3])!
  }
  return floors
}

/** The scorer's judge as configured (JUDGE_* and the `judge` section); undefined when none is configured and none was asked for. */
function replayJudge(config: Config, asked: boolean, floors: Record<string, number>): ReplayJudge | undefined {
  const judge = loadJudgeConfig(config)
  if (!judge) {
    if (asked) throw new UsageError('--judge needs a configured judge: set JUDGE_MODEL (a pinned version) and JUDGE_BASE_URL')
    if (Object.keys(floors).length) throw new UsageError('--judge-floor needs a configured judge: set JUDGE_MODEL and JUDGE_BASE_URL')
    return undefined
  }
  return new ReplayJudge({ config: judge, rubrics: loadRubrics(judge.rubricsDir), floors })
}
