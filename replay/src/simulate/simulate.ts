import { randomUUID } from 'node:crypto'
import { priceOf, SCORER_VERSION, type ChecksConfig } from '@sieve/scoring'
import { PROMPT_VERSION as JUDGE_PROMPT_VERSION } from '@sieve/judging'
import { repeatRounds, type AutoRepeats } from '../eval/auto-repeats.js'
import { readBaseline, writeBaseline, type BaselineComparison, type BaselineFile } from '../eval/baseline.js'
import { baselineStamps } from '../eval/gate.js'
import { AUTO_START_REPEATS, type GatePolicy, type GatePolicyInput } from '../eval/gate-policy.js'
import { gateStatistics, resolvePolicy, statedPolicy, type StatedPolicy } from '../eval/gate-statistics.js'
import { overallJudge, type OverallJudge } from '../eval/judge-figures.js'
import type { MetricResult } from '../eval/metric-verdicts.js'
import { runOutcome, type RunOutcome } from '../eval/run-outcome.js'
import { isScored, overallFigures } from '../eval/run-verdict.js'
import type { ReplayJudge, RunJudgement } from '../eval/replay-judge.js'
import { SeenVersions } from '../eval/seen-versions.js'
import type { SpanReceiver } from '../eval/span-receiver.js'
import { withReceivers, type AgentTarget } from '../eval/agent-turn.js'
import { converse, INCOMPLETE, type RunLabel } from './converse.js'
import { ForwardError, forwardRun, type ForwardTarget } from './forward-runs.js'
import { llmUser, simulatorClient } from './llm-user.js'
import { readScenarios, scenarioCheckProblems, type ScenarioFile } from './read-scenarios.js'
import type { Scenario } from './scenario.js'
import { scoreConversation } from './score-run.js'
import { scriptedUser } from './simulated-user.js'
import type { SimulatorConfig } from './simulator-config.js'
import { BASE, COMBINE, TEMPLATE_NAMES, variantTransform } from './templates.js'
import { USER_PROMPT_VERSION } from './user-prompt.js'
import { variantResult, type SimRun, type VariantResult } from './variant-result.js'

/** Who plays the user: the scenario's script when it has one (auto), always the script, always the LLM. */
export type UserMode = 'auto' | 'scripted' | 'llm'

export interface SimulateOptions extends AgentTarget {
  /** Scenario files, or folders holding them. */
  scenarios: readonly string[]
  /** Runs per scenario × template, or `auto` (as in eval: raised until the fail threshold is detectable, within the budget). */
  repeats: number | 'auto'
  /** Thresholds, the test's level, zero-tolerance and graded checks, --max-repeats (gatePolicySchema). */
  policy?: Omit<GatePolicyInput, 'repeats'>
  /** Runs in flight at once. */
  concurrency: number
  /** The configured checks: the scenarios' expected checks resolve against them, and the agent's scorecard reads them. */
  checks: ChecksConfig
  user: UserMode
  simulator?: SimulatorConfig
  judge?: ReplayJudge
  /** Simulator and judge spend (USD) after which no run goes on with an LLM user and nothing more is judged. */
  maxCostUsd?: number
  /** Least pass rate a scenario × template needs; none by default (a variant failing every run fails anyway). */
  minPassRate?: number
  baseline?: string
  updateBaseline: boolean
  /** Run only these scenario ids; only these templates (`base`: the scenario as written), listed by the scenario or not. */
  only?: { scenarios?: readonly string[]; templates?: readonly string[] }
  /** A fixed clock for the agent (ISO 8601), as SIEVE_EVAL_NOW. */
  now?: string
  /** A Sieve to store every run's traces in, tagged `sieve.simulation.*` (forward-runs.ts). */
  forward?: ForwardTarget
  log?: (line: string) => void
}

export interface SimulationReport {
  scenarios: { paths: readonly string[]; files: string[]; version: string; count: number }
  agent: string
  /** Runs per scenario × template made (with `--repeats auto`, where it stopped). */
  repeats: number
  repeatsAuto?: AutoRepeats
  concurrency: number
  variants: VariantResult[]
  overall: { mean: number; passRate: number; runs: number; passed: number; errored: number; incomplete: number; notJudged: number }
  /** Each metric over the scenario × templates: baseline → now, Δ ± its 95% interval, the detectable drop, the verdict. */
  metrics: MetricResult[]
  policy: StatedPolicy
  cost: { simulatorUsd: number; simulatorCalls: number; judgeUsd: number; totalUsd: number; maxCostUsd?: number; reached: boolean; priced: boolean }
  stamps: {
    runAt: string
    agentNow?: string
    scenariosVersion: string
    agent: { command: string; version: string; promptVersion: string }
    model: string
    simulator?: { model: string; promptVersion: string }
    judge?: { model: string; promptVersion: string; rubrics: string[] }
    checks: Record<string, string>
    scorerVersion: string
  }
  judge?: OverallJudge
  /** Where the runs were stored (`forward`): the run id their spans carry, and what was sent. */
  stored?: { endpoint: string; runId: string; traces: number; spans: number; failedRuns: number }
  baseline: BaselineComparison | undefined
  verdict: 'pass' | 'warn' | 'fail' | 'error'
  reasons: string[]
  warnings: string[]
  exitCode: 0 | 1 | 2
}

export class SimulateConfigError extends Error {
  readonly code = 'SIMULATE_CONFIG'
}

interface Variant {
  file: ScenarioFile
  template: string
  scenario: Scenario
  user: 'scripted' | 'llm'
}

const UNREACHABLE = new Set(['PROVIDER_UNAVAILABLE', 'REQUEST_REJECTED'])
const usd = (x: number) => Math.round(x * 1e6) / 1e6
const listed = (problems: readonly string[]) => `${problems.slice(0, 8).join('\n')}${problems.length > 8 ? `\nand ${problems.length - 8} more` : ''}`
const keyOf = (scenario: string, template: string) => `${scenario}@${template}`

/** Every scenario × template to run, each with who plays its user; any setup problem is thrown before an agent runs. */
function plan(files: readonly ScenarioFile[], o: SimulateOptions): Variant[] {
  const ids = files.map((f) => f.scenario.id)
  const unknown = (o.only?.scenarios ?? []).filter((id) => !ids.includes(id))
  if (unknown.length) throw new SimulateConfigError(`--scenario ${unknown.join(', ')}: no such scenario (known: ${ids.join(', ')})`)
  const badTemplates = (o.only?.templates ?? []).filter((t) => !variantTransform(t))
  if (badTemplates.length)
    throw new SimulateConfigError(
      `--template ${badTemplates.join(', ')}: no such template (known: ${BASE}, ${TEMPLATE_NAMES.join(', ')}; combine with ${COMBINE}, each once)`,
    )
  const variants: Variant[] = []
  for (const file of files) {
    const s = file.scenario
    if (o.only?.scenarios && !o.only.scenarios.includes(s.id)) continue
    for (const template of o.only?.templates ?? [BASE, ...s.templates]) {
      const scenario = variantTransform(template)!(s)
      const user = o.user === 'llm' || (o.user === 'auto' && !scenario.user) ? 'llm' : 'scripted'
      if (user === 'scripted' && !scenario.user)
        throw new SimulateConfigError(`${file.path}: scenario ${s.id} has no user.script, and --user scripted was asked for`)
      if (user === 'llm' && !o.simulator) {
        throw new SimulateConfigError(
          `${file.path}: scenario ${s.id} needs an LLM user (${o.user === 'llm' ? '--user llm' : 'it has no user.script'}): set SIMULATOR_MODEL (a pinned version) and SIMULATOR_BASE_URL`,
        )
      }
      variants.push({ file, template, scenario, user })
    }
  }
  if (!variants.length) throw new SimulateConfigError('no scenario × template left to run')
  return variants
}

/** Runs jobs `width` at a time, each slot with the span receiver its agent calls report to (withReceivers). */
async function inSlots<T>(
  jobs: readonly T[],
  width: number,
  target: AgentTarget,
  stopped: () => boolean,
  work: (job: T, receiver: SpanReceiver) => Promise<void>,
): Promise<string[]> {
  let next = 0
  const slots = Math.max(1, Math.min(width, jobs.length))
  const { warnings } = await withReceivers(
    target,
    slots,
    (m) => new SimulateConfigError(m),
    (receivers) =>
      Promise.all(
        receivers.map(async (receiver) => {
          while (!stopped() && next < jobs.length) await work(jobs[next++]!, receiver)
        }),
      ),
  )
  return warnings
}

/**
 * Drives the agent through every scenario × template `repeats` times with a simulated user, scores
 * each run's traces as one session (the scenario's expected checks, the judge, the agent's
 * scorecard), compares pass rates with the baseline and decides: exit 0 pass, 1 a failing
 * scenario or a regression, 2 a setup problem (thrown as SimulateConfigError before or while
 * runs start: invalid scenarios, unknown checks, a model or agent that cannot be reached; or in
 * the report when the cost ceiling or the simulator left a scenario without a finished run).
 */
export async function runSimulation(o: SimulateOptions): Promise<SimulationReport> {
  const log = o.log ?? (() => {})
  const policy = resolvePolicy({ ...o.policy, repeats: o.repeats }, o.checks.available)
  const set = readScenarios(o.scenarios)
  if (set.problems.length) throw new SimulateConfigError(listed(set.problems))
  if (!set.scenarios.length) throw new SimulateConfigError(`no scenario files (.yaml, .yml) in ${o.scenarios.join(', ')}`)
  // Before any agent runs: a check a scenario expects that this Sieve cannot run is a setup error.
  const unresolved = scenarioCheckProblems(set, o.checks.available)
  if (unresolved.length) throw new SimulateConfigError(listed(unresolved))
  const variants = plan(set.scenarios, o)
  const judgeOnly = [...new Set(variants.filter((v) => !Object.keys(v.scenario.expect.checks).length).map((v) => v.scenario.id))]
  if (judgeOnly.length && !o.judge)
    throw new SimulateConfigError(
      `scenario(s) ${judgeOnly.join(', ')} expect only a judge rubric: configure the judge (JUDGE_MODEL, JUDGE_BASE_URL) or run without --no-judge`,
    )
  const baselineFile = o.baseline ? readBaseline(o.baseline) : undefined
  const client = o.simulator && variants.some((v) => v.user === 'llm') ? simulatorClient(o.simulator) : undefined

  const runAt = new Date().toISOString()
  const batch = randomUUID().slice(0, 8)
  const state = {
    simulatorUsd: 0,
    judgeUsd: 0,
    agentStarted: false,
    simulatorReached: false,
    judgeReached: false,
    failure: undefined as Error | undefined,
    receiverWarnings: [] as string[],
    stored: { traces: 0, spans: 0, failedRuns: 0, firstError: undefined as string | undefined },
  }
  const overBudget = () => o.maxCostUsd !== undefined && state.simulatorUsd + state.judgeUsd >= o.maxCostUsd
  const judgeCallsBefore = o.judge?.metrics.total('calls') ?? 0
  const seen = new SeenVersions()
  const runs: SimRun[][] = variants.map(() => [])
  type Job = { variant: Variant; index: number; run: number }

  const simulateOne = async ({ variant, index, run }: Job, receiver: SpanReceiver): Promise<void> => {
    const { scenario, template } = variant
    const label: RunLabel = { scenario: scenario.id, template, run }
    const user = variant.user === 'scripted' ? scriptedUser(scenario.user!.script) : llmUser(client!, scenario, (usd) => (state.simulatorUsd += usd))
    const sessionId = `sim-${batch}-${scenario.id}-${template}-${run}`
    const conv = await converse({
      target: o,
      scenario,
      label,
      sessionId,
      user,
      receiver,
      overBudget,
      aborted: () => state.failure !== undefined,
      ...(o.now ? { now: o.now } : {}),
    })
    if (conv.cannotStart && !state.agentStarted) throw new SimulateConfigError(`cannot run the agent '${o.agent}': ${conv.agentError}`)
    if (conv.turns.length || (conv.transcript.length && !conv.cannotStart)) state.agentStarted = true
    const userError = conv.userError as { code?: string; message?: string } | undefined
    const replied = conv.transcript.filter((m) => m.role === 'user').length > 1
    if (userError && UNREACHABLE.has(userError.code ?? '') && !state.simulatorReached && !replied) {
      throw new SimulateConfigError(`the simulator cannot be reached: ${userError.message}; check SIMULATOR_BASE_URL, SIMULATOR_API_KEY and SIMULATOR_MODEL`)
    }
    if (replied) state.simulatorReached = true

    const incomplete = INCOMPLETE.has(conv.stop.reason)
    const judgeable = Boolean(o.judge && conv.traces.length && !conv.agentError && !incomplete)
    let judgement: RunJudgement | undefined
    if (judgeable && !overBudget()) {
      const trace = conv.traces[conv.traces.length - 1]!
      judgement = await o.judge!.judgeRun(conv.traces, o.judge!.rubricFor(trace, scenario.expect.judge?.rubric), scenario.expect.judge?.floors)
      state.judgeUsd += judgement.costUsd
      if (judgement.unreachable && !state.judgeReached) {
        throw new SimulateConfigError(
          `the judge cannot be reached: ${judgement.error}; check JUDGE_BASE_URL, JUDGE_API_KEY and JUDGE_MODEL, or run with --no-judge`,
        )
      }
      if (!judgement.unreachable) state.judgeReached = true
      seen.rubrics.add(`${judgement.rubric}@${judgement.rubricVersion}`)
    }
    const scored = scoreConversation(conv, scenario, o.checks, judgement, judgeable && !judgement)
    seen.addTrace(scored.trace, scored.model)
    const result: SimRun = {
      ...scored.result,
      run,
      sessionId,
      user: user.kind,
      turns: conv.transcript.filter((m) => m.role === 'user').length,
      stop: conv.stop,
      ...(incomplete ? { incomplete: true as const } : {}),
      transcript: conv.transcript,
      failures: scored.failures,
      traceIds: conv.turns.map((t) => t.traceId),
      cost: { simulatorUsd: usd(user.usage.costUsd), simulatorCalls: user.usage.calls, judgeUsd: judgement?.costUsd ?? 0 },
    }
    runs[index]![run - 1] = result
    if (o.forward && conv.traces.length)
      await store(o.forward, conv.traces, { runId: batch, scenario: scenario.id, scenarioVersion: set.version, template, run })
    const outcome = incomplete ? 'incomplete' : result.errored ? 'errored' : result.passed ? 'pass' : 'fail'
    const failing = [...new Set(result.failures.map((f) => (f.kind === 'gate' ? `${f.name} (gate)` : f.name)))]
    log(
      `${keyOf(scenario.id, template)} #${run}  ${outcome.padEnd(10)} ${result.turns} turn(s), stopped: ${conv.stop.reason}${failing.length ? `  failing: ${failing.join(', ')}` : ''}`,
    )
  }

  /** A Sieve that cannot be reached, or refuses the key, before any run was stored is a setup problem; other failures are counted. */
  const store = async (target: ForwardTarget, traces: Parameters<typeof forwardRun>[1], tags: Parameters<typeof forwardRun>[2]) => {
    try {
      // Awaited first: `spans += await ...` would add to the count read before other runs added theirs.
      const spans = await forwardRun(target, traces, tags)
      state.stored.spans += spans
      state.stored.traces += traces.length
    } catch (err) {
      const message = (err as Error).message
      if (state.stored.traces === 0 && err instanceof ForwardError && err.setup) {
        throw new SimulateConfigError(`cannot store the runs in Sieve at ${target.endpoint}: ${message}; check --send and SIEVE_API_KEY`)
      }
      state.stored.failedRuns++
      state.stored.firstError ??= message
    }
  }

  /** Brings every scenario × template to `to` runs, `--concurrency` at a time. */
  let made = 0
  const round = async (to: number) => {
    const jobs = variants.flatMap((variant, index) => Array.from({ length: to - made }, (_, r): Job => ({ variant, index, run: made + r + 1 })))
    state.receiverWarnings.push(
      ...(await inSlots(
        jobs,
        o.concurrency,
        o,
        () => state.failure !== undefined,
        async (job, receiver) => {
          try {
            await simulateOne(job, receiver)
          } catch (err) {
            state.failure ??= err as Error
          }
        },
      )),
    )
    if (state.failure) throw state.failure
    made = to
  }
  const results = () =>
    variants.map((v, i) =>
      variantResult(
        {
          id: keyOf(v.scenario.id, v.template),
          scenario: v.scenario.id,
          template: v.template,
          title: v.scenario.title,
          path: v.file.path,
          tags: v.scenario.tags,
          user: v.user,
        },
        runs[i]!,
      ),
    )
  const llm = variants.some((v) => v.user === 'llm') ? o.simulator : undefined
  const stats = (now: VariantResult[]) =>
    gateStatistics(
      outcomesOf(now),
      stampsForBaseline(stampsOf(o, set, now, { runAt, seen, llm })),
      policy,
      o.baseline ? { path: o.baseline, file: baselineFile } : undefined,
      'scenarios',
    )
  const repeats = await repeatRounds(
    policy.repeats,
    {
      start: AUTO_START_REPEATS,
      items: variants.length,
      compared: Boolean(baselineFile),
      maxRepeats: policy.maxRepeats,
      failThreshold: policy.failThreshold,
      ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
    },
    round,
    () => ({ results: stats(results()).metrics, spend: { usd: state.simulatorUsd + state.judgeUsd, runs: runs.reduce((n, r) => n + r.length, 0) } }),
    log,
  )
  return report(o, set, results(), { runAt, seen, state, judgeCallsBefore, baselineFile, runId: batch, policy, repeats, llm, stats })
}

/** Each scenario × template's counted runs (not cut short) as the metrics read them and the baseline keeps them. */
const outcomesOf = (variants: readonly VariantResult[]): Map<string, RunOutcome[]> =>
  new Map(variants.map((v) => [v.id, v.runs.filter((r) => !r.incomplete).map(runOutcome)]))

type Stamps = SimulationReport['stamps']

/** The scenario files' version is what a baseline keeps as its dataset version. */
const stampsForBaseline = (s: Stamps) => baselineStamps({ ...s, datasetVersion: s.scenariosVersion })

function stampsOf(
  o: SimulateOptions,
  set: { version: string; scenarios: readonly ScenarioFile[] },
  results: readonly VariantResult[],
  ctx: { runAt: string; seen: SeenVersions; llm: SimulatorConfig | undefined },
): Stamps {
  const expected = [...new Set(results.flatMap((v) => Object.keys(set.scenarios.find((f) => f.scenario.id === v.scenario)!.scenario.expect.checks)))].sort()
  return {
    runAt: ctx.runAt,
    ...(o.now ? { agentNow: o.now } : {}),
    scenariosVersion: set.version,
    agent: { command: o.agent, version: ctx.seen.agentVersion, promptVersion: ctx.seen.promptVersion },
    model: ctx.seen.model,
    ...(ctx.llm ? { simulator: { model: ctx.llm.model, promptVersion: USER_PROMPT_VERSION } } : {}),
    ...(o.judge ? { judge: { model: o.judge.model, promptVersion: JUDGE_PROMPT_VERSION, rubrics: [...ctx.seen.rubrics].sort() } } : {}),
    checks: Object.fromEntries(expected.map((name) => [name, o.checks.available.find((c) => c.name === name)!.version])),
    scorerVersion: SCORER_VERSION,
  }
}

function report(
  o: SimulateOptions,
  set: { files: string[]; version: string; scenarios: readonly ScenarioFile[] },
  results: VariantResult[],
  ctx: {
    runAt: string
    seen: SeenVersions
    judgeCallsBefore: number
    baselineFile: BaselineFile | undefined
    runId: string
    state: {
      simulatorUsd: number
      judgeUsd: number
      receiverWarnings: string[]
      stored: { traces: number; spans: number; failedRuns: number; firstError: string | undefined }
    }
    policy: GatePolicy
    repeats: { repeats: number; auto?: AutoRepeats }
    llm: SimulatorConfig | undefined
    stats: (now: VariantResult[]) => ReturnType<typeof gateStatistics>
  },
): SimulationReport {
  const scored = results.filter(isScored)
  const allRuns = results.flatMap((v) => v.runs)
  const overall = {
    ...overallFigures(results),
    passed: allRuns.filter((r) => !r.incomplete && !r.errored && !r.unscored && r.passed).length,
    incomplete: allRuns.filter((r) => r.incomplete).length,
  }
  const reasons: string[] = []
  const setup: string[] = []
  const warnings: string[] = []
  for (const v of results) {
    const names = v.failing.map((f) => (f.kind === 'gate' ? `${f.name} (gate)` : f.name)).join(', ')
    const failing = names ? ` (failing: ${names})` : ''
    // A scenario failing every run is a failing scenario; one failing some runs is noise unless a metric says otherwise.
    if (scored.includes(v) && v.status === 'fail') reasons.push(`${v.id} fails: pass rate 0${failing}`)
    else if (scored.includes(v) && o.minPassRate !== undefined && v.passRate < o.minPassRate)
      reasons.push(`${v.id} fails: pass rate ${v.passRate} below --min-pass-rate ${o.minPassRate}${failing}`)
    if (v.status === 'errored') reasons.push(`${v.id}: every run errored (first: ${v.runs.find((r) => r.error)?.error})`)
    if (v.status === 'unscored') warnings.push(`${v.id} is unscored: the judge gave no verdict on any run`)
    if (v.status === 'incomplete')
      setup.push(
        `${v.id}: no run finished (${[...new Set(v.runs.map((r) => r.stop.detail ?? r.stop.reason))].join('; ')})${v.runs.some((r) => r.stop.reason === 'max-cost') ? '; raise --max-cost' : ''}`,
      )
    else if (v.incomplete)
      warnings.push(
        `${v.id}: ${v.incomplete} of ${v.runs.length} run(s) cut short, not counted (${[...new Set(v.runs.filter((r) => r.incomplete).map((r) => r.stop.reason))].join(', ')})`,
      )
  }
  const { stored } = ctx.state
  warnings.push(...ctx.state.receiverWarnings)
  if (stored.failedRuns) warnings.push(`${stored.failedRuns} run(s) not stored in Sieve (first: ${stored.firstError})`)
  if (overall.errored) warnings.push(`${overall.errored} of ${overall.runs} run(s) errored (agent crash or timeout), kept out of the pass rates`)
  if (overall.notJudged) warnings.push(`the cost ceiling of $${o.maxCostUsd} was reached: ${overall.notJudged} run(s) not judged`)
  const judgeTotals = o.judge
    ? overallJudge(
        o.judge.model,
        results.map((v) => v.judge),
        allRuns.flatMap((r) => (r.judge ? [r.judge] : [])),
        { calls: o.judge.metrics.total('calls') - ctx.judgeCallsBefore, priced: o.judge.priced },
      )
    : undefined
  if (judgeTotals?.errors)
    warnings.push(`judge errors on ${judgeTotals.errors} run(s), not counted as low scores (first: ${allRuns.find((r) => r.judge?.error)?.judge?.error})`)

  const stamps = stampsOf(o, set, results, ctx)
  const stats = ctx.stats(results)
  reasons.push(...stats.reasons)
  warnings.push(...stats.warnings)
  if (o.baseline && o.updateBaseline) writeBaseline(o.baseline, stampsForBaseline(stamps), ctx.repeats.repeats, outcomesOf(results))
  const simulatorCalls = allRuns.reduce((n, r) => n + r.cost.simulatorCalls, 0)
  const { simulatorUsd, judgeUsd } = ctx.state
  const llm = ctx.llm
  return {
    scenarios: { paths: o.scenarios, files: set.files, version: set.version, count: new Set(results.map((v) => v.scenario)).size },
    agent: o.agent,
    repeats: ctx.repeats.repeats,
    ...(ctx.repeats.auto ? { repeatsAuto: ctx.repeats.auto } : {}),
    concurrency: o.concurrency,
    variants: results,
    overall,
    metrics: stats.metrics,
    policy: statedPolicy(ctx.policy),
    cost: {
      simulatorUsd: usd(simulatorUsd),
      simulatorCalls,
      judgeUsd: usd(judgeUsd),
      totalUsd: usd(simulatorUsd + judgeUsd),
      ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
      reached: o.maxCostUsd !== undefined && simulatorUsd + judgeUsd >= o.maxCostUsd,
      // Whether every model spent on has a price: otherwise the ceiling counts only part of the spend.
      priced: (!llm || priceOf(llm.model, llm.prices) !== undefined) && (o.judge?.priced ?? true),
    },
    stamps,
    ...(judgeTotals ? { judge: judgeTotals } : {}),
    ...(o.forward
      ? { stored: { endpoint: o.forward.endpoint, runId: ctx.runId, traces: stored.traces, spans: stored.spans, failedRuns: stored.failedRuns } }
      : {}),
    baseline: stats.baseline,
    verdict: setup.length ? 'error' : reasons.length ? 'fail' : warnings.length ? 'warn' : 'pass',
    reasons: [...setup, ...reasons],
    warnings,
    exitCode: setup.length ? 2 : reasons.length ? 1 : 0,
  }
}
