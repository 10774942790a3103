import type { Trace } from '@sieve/core'
import { traceView, type ChecksConfig } from '@sieve/scoring'
import type { GoldenExample } from '../golden/golden-example.js'
import type { StoredScore } from './stored-score.js'
import type { Candidate, Selection } from './select-traces.js'

/** The filters of a selection, which decide what an example must expect beyond what failed. */
export type Filters = Pick<Selection, 'score' | 'below' | 'failed' | 'failedGate' | 'feedback'>

export interface ExpectationContext {
  checks: ChecksConfig
  /** The judge rubric configured for a trace's agent (judge.rubrics); undefined without a judge. */
  rubricFor?: (trace: Trace) => string | undefined
}

/** What a replay is asked for, before check parameters are looked up. */
interface Wants {
  checks: Set<string>
  minValues: Record<string, number>
  rubric?: string
  floors: Record<string, number>
  /** Scorecard gates the example stands for. */
  gates: string[]
}

export type Expectations = { expected: GoldenExample['expected']; gates: string[] } | { skipped: string }

type Profile = ReturnType<ChecksConfig['profileFor']>

/**
 * What the example asks of a replay: every failure of the trace that can be replayed (failed
 * checks still configured, the failed judge rubric, failed scorecard gates), plus what the filters
 * promise: `--score X --below Y` a least value Y for X, `--failed-gate` that gate, `--feedback` the
 * agent's judge rubric when nothing failed. A promise that cannot be kept skips the trace, with
 * the reason, rather than export an example that would not test it.
 */
export function expectationsFor(trace: Trace, candidate: Pick<Candidate, 'scores' | 'scorecard'>, filters: Filters, ctx: ExpectationContext): Expectations {
  const view = traceView(trace)
  const profile = ctx.checks.profileFor(view.agentName, view.serviceName)
  const kindOf = (name: string) => candidate.scores.find((s) => s.name === name)?.kind ?? (configured(profile, name) ? 'deterministic' : undefined)
  const wants: Wants = { checks: new Set(), minValues: {}, floors: {}, gates: [] }
  for (const s of candidate.scores) if (!s.passed && s.kind === 'deterministic' && configured(profile, s.name)) wants.checks.add(s.name)
  const rubric = failedRubric(candidate.scores)
  if (rubric) wants.rubric = rubric
  const problem = addPromised(wants, candidate, filters, kindOf, profile)
  if (problem) return { skipped: problem }
  if (filters.feedback && !wants.checks.size && !wants.rubric) {
    // Thumbs down on a trace nothing failed: the judge, with the agent's rubric, says whether the replay does better.
    const configuredRubric = ctx.rubricFor?.(trace)
    if (!configuredRubric)
      return {
        skipped: `selected by feedback, but no check failed and no judge rubric is configured for agent '${view.agentName || view.serviceName}' (set JUDGE_MODEL and judge.rubrics)`,
      }
    wants.rubric = configuredRubric
  }
  if (!wants.checks.size && !wants.rubric)
    return { skipped: 'neither a failed check that is still configured, a failed judge score nor a failed scorecard gate to replay' }
  return { expected: toExpected(wants, profile), gates: wants.gates }
}

/**
 * Adds what the filters name: the score `--failed` names, the scorecard's failed gates (those
 * `--failed-gate` names must be replayable), the score `--score` names with its least value.
 * Returns why one cannot be asked for.
 */
function addPromised(
  wants: Wants,
  candidate: Pick<Candidate, 'scores' | 'scorecard'>,
  filters: Filters,
  kindOf: (name: string) => string | undefined,
  profile: Profile,
): string | undefined {
  // `--failed scorecard`: its gates, added next, are what the replay is asked for.
  if (filters.failed && kindOf(filters.failed) !== 'scorecard') {
    const problem = want(wants, filters.failed, kindOf(filters.failed), profile)
    if (problem) return problem
  }
  const problem = addGates(wants, candidate.scorecard, filters.failedGate, kindOf, profile)
  if (problem) return problem
  if (filters.score === undefined || filters.below === undefined) return undefined
  return want(wants, filters.score, kindOf(filters.score), profile, filters.below)
}

const configured = (profile: Profile, name: string) => profile.checks.find((c) => c.check.name === name)

/**
 * The judge rubric whose score failed (its weighted score, or one of its dimensions, named
 * `rubric.dimension`): the gate judges the replay with it.
 */
export function failedRubric(scores: StoredScore[]): string | undefined {
  return scores.find((s) => s.kind === 'judge' && !s.passed)?.name.split('.')[0]
}

/**
 * Asks the replay for one score: a check (with its least value, if any) or a judge score (its
 * rubric, with a floor under that score). Returns why it cannot be asked for.
 */
function want(wants: Wants, name: string, kind: string | undefined, profile: Profile, least?: number): string | undefined {
  if (kind === 'deterministic') {
    if (!configured(profile, name)) return `check ${name} is no longer configured for profile '${profile.name}'`
    wants.checks.add(name)
    if (least !== undefined) wants.minValues[name] = Math.max(least, wants.minValues[name] ?? 0)
    return undefined
  }
  if (kind !== 'judge')
    return kind
      ? `${name} is a ${kind} score, which a replay cannot be scored on`
      : `${name} is neither a check configured for profile '${profile.name}' nor a judge score of the trace`
  const rubric = name.split('.')[0]!
  // One rubric judges a replay: the one asked for here wins, and floors of another are dropped.
  if (wants.rubric !== rubric) wants.floors = {}
  wants.rubric = rubric
  if (least !== undefined) wants.floors[name] = Math.max(least, wants.floors[name] ?? 0)
  return undefined
}

/**
 * The failed gates of the latest scorecard, each with the card's `min` for it. The gates
 * `--failed-gate` names must be replayable; the others are added like failed checks, when they can be.
 */
function addGates(
  wants: Wants,
  card: Candidate['scorecard'],
  asked: string | undefined,
  kindOf: (name: string) => string | undefined,
  profile: Profile,
): string | undefined {
  for (const gate of card?.failedGates ?? []) {
    const min = card!.items.find((i) => i.name === gate)?.min
    const problem = want(wants, gate, kindOf(gate), profile, min)
    if (!problem) wants.gates.push(gate)
    else if (asked === 'any' || asked === gate) return `failed gate ${gate}: ${problem}`
  }
  return undefined
}

const toolNames = (tools: unknown): string[] | undefined =>
  Array.isArray(tools) ? tools.map((t) => (typeof t === 'string' ? t : String((t as { name?: unknown }).name ?? ''))).filter(Boolean) : undefined

/**
 * Each check with the parameters it ran with for this agent, so the regression gate runs exactly
 * that check again. Tool rules are also spelled out as prohibited_tools / required_tools for
 * people reading the file.
 */
function toExpected(wants: Wants, profile: Profile): GoldenExample['expected'] {
  const expected: GoldenExample['expected'] = { checks: {} }
  for (const name of wants.checks) {
    const params = JSON.parse(JSON.stringify(configured(profile, name)!.params ?? {})) as Record<string, unknown>
    expected.checks[name] = params
    if (name === 'prohibited_tools') expected.prohibited_tools = toolNames(params.tools)
    if (name === 'required_tools') expected.required_tools = toolNames(params.tools)
  }
  if (Object.keys(wants.minValues).length) expected.minValues = wants.minValues
  if (wants.rubric) expected.judge = { rubric: wants.rubric, ...(Object.keys(wants.floors).length ? { floors: wants.floors } : {}) }
  return expected
}
