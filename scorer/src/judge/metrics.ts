import { Counter, type Registry } from 'prom-client'

interface KeyNode {
  key?: string
  children: Map<string, KeyNode>
}

/**
 * Counters of the judge stage: nothing the judge skips, retries or fails is silent. Keys read like
 * `skipped{slice=random,reason=calls_per_day}`; with a registry each counter is also exported as
 * `sieve_judge_<name>_total` with the same labels.
 */
export class JudgeMetrics {
  private readonly counters = new Map<string, number>()
  private readonly exported = new Map<string, Counter>()
  /** name → label value → ... → key: counting on the scorer's path builds no strings. */
  private readonly keys = new Map<string, KeyNode>()

  constructor(private readonly registry?: Registry) {}

  inc(name: string, labels: Record<string, string> = {}, by = 1): void {
    const key = this.keyOf(name, labels)
    this.counters.set(key, (this.counters.get(key) ?? 0) + by)
    if (this.registry) {
      let counter = this.exported.get(name)
      if (!counter) {
        counter = new Counter({ name: `sieve_judge_${name}_total`, help: `LLM judge: ${name.replace(/_/g, ' ')}.`, labelNames: Object.keys(labels), registers: [this.registry] })
        this.exported.set(name, counter)
      }
      counter.inc(labels, by)
    }
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
