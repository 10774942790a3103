import { runFigures, type RunFigures, type RunResult } from '../eval/run-verdict.js'
import type { StopReason } from './converse.js'
import type { LocatedFailure } from './score-run.js'
import type { VisibleMessage } from './user-prompt.js'

/** One run of a scenario × template: the eval run's verdict plus the conversation it came from. */
export interface SimRun extends RunResult {
  run: number
  /** The agent's session id for the run (SIEVE_EVAL_SESSION_ID, `gen_ai.conversation.id`). */
  sessionId: string
  user: 'scripted' | 'llm'
  /** User turns taken (agent calls). */
  turns: number
  stop: { reason: StopReason; detail?: string }
  /** Ended by the cost ceiling or a simulator failure: kept out of pass rates, shown. */
  incomplete?: true
  transcript: VisibleMessage[]
  failures: LocatedFailure[]
  traceIds: string[]
  cost: { simulatorUsd: number; simulatorCalls: number; judgeUsd: number }
}

/** A failure across the runs of a variant: how many runs had it, and where it was first seen. */
export interface FailingItem {
  kind: LocatedFailure['kind']
  name: string
  runs: number
  first: LocatedFailure & { run: number }
}

export interface VariantResult extends Omit<RunFigures, 'status'> {
  /** `scenario@template`: the baseline's key for it. */
  id: string
  scenario: string
  template: string
  title: string
  path: string
  tags: string[]
  user: 'scripted' | 'llm'
  runs: SimRun[]
  /** Over the counted runs; `incomplete` when every run was cut short (cost ceiling, simulator failure). */
  status: RunFigures['status'] | 'incomplete'
  incomplete: number
  turns: { mean: number; min: number; max: number }
  stops: Partial<Record<StopReason, number>>
  failing: FailingItem[]
  costUsd: number
}

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits

function failingItems(runs: readonly SimRun[]): FailingItem[] {
  const items = new Map<string, FailingItem>()
  for (const r of runs) {
    for (const key of new Set(r.failures.map((f) => `${f.kind}:${f.name}`))) {
      const item = items.get(key)
      if (item) item.runs++
      else {
        const f = r.failures.find((x) => `${x.kind}:${x.name}` === key)!
        items.set(key, { kind: f.kind, name: f.name, runs: 1, first: { ...f, run: r.run } })
      }
    }
  }
  return [...items.values()]
}

export function variantResult(v: Pick<VariantResult, 'id' | 'scenario' | 'template' | 'title' | 'path' | 'tags' | 'user'>, runs: SimRun[]): VariantResult {
  const counted = runs.filter((r) => !r.incomplete)
  const figures: Omit<RunFigures, 'status'> & { status: VariantResult['status'] } = counted.length
    ? runFigures(counted)
    : { mean: 0, passRate: 0, errored: 0, status: 'incomplete' }
  const turns = runs.map((r) => r.turns)
  const stops: VariantResult['stops'] = {}
  for (const r of runs) stops[r.stop.reason] = (stops[r.stop.reason] ?? 0) + 1
  return {
    ...v,
    ...figures,
    runs,
    incomplete: runs.length - counted.length,
    turns: { mean: round(turns.reduce((a, b) => a + b, 0) / Math.max(1, turns.length), 2), min: Math.min(...turns), max: Math.max(...turns) },
    stops,
    failing: failingItems(counted),
    costUsd: round(
      runs.reduce((n, r) => n + r.cost.simulatorUsd + r.cost.judgeUsd, 0),
      6,
    ),
  }
}
