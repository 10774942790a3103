import { Counter, type Registry } from 'prom-client'

/**
 * Every counter of the judge stage, declared once: exported as `sieve_judge_<name>_total` with
 * these labels, in this order.
 */
export const JUDGE_COUNTERS = {
  sampled: { help: 'Traces the judge sampled, by the slice that took them', labels: ['slice'] },
  not_sampled: { help: 'Scored traces no slice took', labels: [] },
  traces_judged: { help: 'Traces judged', labels: [] },
  skipped: { help: 'Sampled traces not judged, by slice and reason', labels: ['slice', 'reason'] },
  calls: { help: 'Calls to the judge model', labels: ['model'] },
  retries: { help: 'Judge calls retried after a 429, 5xx or network error', labels: ['status'] },
  invalid_answer_retries: { help: 'Judge answers asked again because they did not follow the rubric', labels: ['dimension'] },
  unverified_evidence_retries: { help: 'Judge answers asked again because their evidence was not in the transcript', labels: ['dimension'] },
  unverified_evidence: { help: 'Verdicts stored with evidence not found in the transcript', labels: ['dimension'] },
  errors: { help: 'Judge calls that ended in an error row, by code', labels: ['code'] },
  dimension_errors: { help: 'Rubric dimensions stored as errors, by code', labels: ['code'] },
  needs_review: { help: 'Dimensions on which the judges of a panel disagreed', labels: ['dimension'] },
  write_errors: { help: 'Judge score writes that failed', labels: [] },
  offer_errors: { help: 'Scored traces the judge stage failed to take', labels: [] },
  worker_crashes: { help: 'Crashes of the judge worker thread', labels: [] },
  lookup_errors: { help: 'Failed storage lookups of the new-user and feedback slices', labels: [] },
  reopened: { help: 'Scored traces reopened by late negative feedback', labels: ['reason'] },
  budget_sync_errors: { help: 'Failed reads or writes of the daily budgets in judge_budget', labels: ['op'] },
  review_queued: { help: 'Judged traces put in a review queue, by the rule that took them', labels: ['reason'] },
  review_not_queued: { help: 'Judged traces a rule took but no queue did, by reason (queue_full: maxOpen traces wait already)', labels: ['reason'] },
  review_errors: { help: 'Failed review queue writes, recalibrations and reads of the trust in effect', labels: ['op'] },
} as const satisfies Record<string, { help: string; labels: readonly string[] }>

export type JudgeCounter = keyof typeof JUDGE_COUNTERS

interface KeyNode {
  key?: string
  children: Map<string, KeyNode>
}

/**
 * Counters of the judge stage: nothing the judge skips, retries or fails is silent. Keys read like
 * `skipped{slice=random,reason=calls_per_day}`; with a registry each counter is also exported
 * (`JUDGE_COUNTERS`).
 */
export class JudgeMetrics {
  private readonly counters = new Map<string, number>()
  private readonly exported = new Map<JudgeCounter, Counter>()
  /** name → label value → ... → key: counting on the scorer's path builds no strings. */
  private readonly keys = new Map<string, KeyNode>()

  constructor(registry?: Registry) {
    if (!registry) return
    for (const [name, { help, labels }] of Object.entries(JUDGE_COUNTERS) as [JudgeCounter, (typeof JUDGE_COUNTERS)[JudgeCounter]][]) {
      this.exported.set(name, new Counter({ name: `sieve_judge_${name}_total`, help: `LLM judge: ${help}`, labelNames: [...labels], registers: [registry] }))
    }
  }

  /** `labels` are the counter's (`JUDGE_COUNTERS`), in its order. */
  inc(name: JudgeCounter, labels: Record<string, string> = {}, by = 1): void {
    const key = this.keyOf(name, labels)
    this.counters.set(key, (this.counters.get(key) ?? 0) + by)
    this.exported.get(name)?.inc(labels, by)
  }

  private keyOf(name: string, labels: Record<string, string>): string {
    let node: KeyNode | undefined = this.keys.get(name)
    if (!node) this.keys.set(name, (node = { children: new Map() }))
    for (const k in labels) {
      const v = labels[k]!
      let next: KeyNode | undefined = node.children.get(v)
      if (!next) node.children.set(v, (next = { children: new Map() }))
      node = next
    }
    if (node.key === undefined) {
      const entries = Object.entries(labels)
      node.key = entries.length ? `${name}{${entries.map(([k, v]) => `${k}=${v}`).join(',')}}` : name
    }
    return node.key
  }

  get(key: string): number {
    return this.counters.get(key) ?? 0
  }

  /** Sum over every label combination of `name`. */
  total(name: string): number {
    let sum = 0
    for (const [k, v] of this.counters) if (k === name || k.startsWith(`${name}{`)) sum += v
    return sum
  }

  snapshot(): Record<string, number> {
    return Object.fromEntries([...this.counters].sort(([a], [b]) => a.localeCompare(b)))
  }
}
