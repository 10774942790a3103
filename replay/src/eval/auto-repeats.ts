import type { GatePolicy } from './gate-policy.js'
import type { GradedResult, MetricResult } from './metric-verdicts.js'

/** Why `--repeats auto` stopped raising repeats. */
export type AutoStop = 'detectable' | 'max-repeats' | 'max-cost' | 'undetectable'

export interface AutoRepeats {
  /** Runs per example it ended with. */
  repeats: number
  rounds: number
  stopped: AutoStop
  /** The sentence the report says it with. */
  detail: string
}

/** What a round has cost: spend so far (judge, simulator) over the runs made. */
export interface Spend {
  usd: number
  runs: number
}

export type AutoStep = { next: number } | { stop: AutoStop; detail: string }

const num = (x: number) => String(Math.round(x * 1000) / 1000)

/** The graded metrics the gate decides on: compared with the baseline when there is one, all of them otherwise. */
function decided(results: readonly MetricResult[], compared: boolean): GradedResult[] {
  return results.filter((r): r is GradedResult => r.kind === 'graded' && r.detectableDrop !== undefined && (!compared || r.delta !== undefined))
}

/**
 * After a round of `current` repeats each: stop when every graded metric can detect a drop
 * of the fail threshold (80% power), when no number of repeats would make one detectable, or at
 * --max-repeats or --max-cost; else the repeats for the next round: what the least detectable
 * metric needs, at most twice as many as now (the first rounds' variance is itself a rough
 * estimate), within what the budget affords at this round's cost per run.
 */
export function autoStep(
  results: readonly MetricResult[],
  o: { current: number; items: number; compared: boolean; spend: Spend; maxCostUsd?: number } & Pick<GatePolicy, 'maxRepeats' | 'failThreshold'>,
): AutoStep {
  const metrics = decided(results, o.compared)
  const short = metrics.filter((r) => r.detectableDrop! > o.failThreshold)
  const at = `at ${o.current} repeats each`
  if (!short.length) return { stop: 'detectable', detail: `a drop of ${o.failThreshold} (the fail threshold) is detectable on every graded metric ${at}` }
  const list = (rs: readonly GradedResult[]) => rs.map((r) => `${r.name} ${num(r.detectableDrop!)}`).join(', ')
  const reachable = short.filter((r) => r.repeatsForFailThreshold !== null && r.repeatsForFailThreshold !== undefined)
  if (!reachable.length) {
    return {
      stop: 'undetectable',
      detail: `no number of repeats makes a drop of ${o.failThreshold} detectable on ${list(short)} (detectable drops ${at}): the baseline's own noise or the examples' spread is too large`,
    }
  }
  if (o.current >= o.maxRepeats)
    return {
      stop: 'max-repeats',
      detail: `--max-repeats ${o.maxRepeats} reached; detectable drops there: ${list(short)}, above the fail threshold ${o.failThreshold}`,
    }
  const needed = Math.max(...reachable.map((r) => r.repeatsForFailThreshold!))
  let next = Math.max(o.current + 1, Math.min(needed, o.current * 2, o.maxRepeats))
  if (o.maxCostUsd !== undefined && o.spend.runs > 0 && o.spend.usd > 0) {
    const perRound = (o.spend.usd / o.spend.runs) * o.items
    const affordable = Math.floor((o.maxCostUsd - o.spend.usd) / perRound)
    if (affordable < 1)
      return {
        stop: 'max-cost',
        detail: `--max-cost $${o.maxCostUsd} reached ($${o.spend.usd.toFixed(4)} spent) ${at}; detectable drops there: ${list(short)}`,
      }
    next = Math.min(next, o.current + affordable)
  }
  return { next }
}

/**
 * Runs rounds of repeats: `round(to)` brings every item to `to` runs; `evaluate()` gives the metrics
 * after it. A fixed number of repeats is one round; `auto` starts at `start` and follows autoStep.
 */
export async function repeatRounds(
  repeats: number | 'auto',
  o: { start: number; items: number; compared: boolean; maxCostUsd?: number } & Pick<GatePolicy, 'maxRepeats' | 'failThreshold'>,
  round: (to: number) => Promise<void>,
  evaluate: () => { results: readonly MetricResult[]; spend: Spend },
  log: (line: string) => void,
): Promise<{ repeats: number; auto?: AutoRepeats }> {
  if (repeats !== 'auto') {
    await round(repeats)
    return { repeats }
  }
  let current = Math.min(o.start, o.maxRepeats)
  for (let rounds = 1; ; rounds++) {
    await round(current)
    const { results, spend } = evaluate()
    const step = autoStep(results, { ...o, current, spend })
    if ('stop' in step) {
      log(`--repeats auto: stopped at ${current} repeats each: ${step.detail}`)
      return { repeats: current, auto: { repeats: current, rounds, stopped: step.stop, detail: step.detail } }
    }
    log(`--repeats auto: ${current} → ${step.next} repeats each`)
    current = step.next
  }
}
