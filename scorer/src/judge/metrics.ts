import { Counter, type Registry } from 'prom-client'

/**
 * Counters of the judge stage: nothing the judge skips, retries or fails is silent. Keys read like
 * `skipped{slice=random,reason=calls_per_day}`; with a registry each counter is also exported as
 * `sieve_judge_<name>_total` with the same labels.
 */
export class JudgeMetrics {
  private readonly counters = new Map<string, number>()
  private readonly exported = new Map<string, Counter>()

  constructor(private readonly registry?: Registry) {}

  inc(name: string, labels: Record<string, string> = {}, by = 1): void {
    const entries = Object.entries(labels)
    const key = entries.length ? `${name}{${entries.map(([k, v]) => `${k}=${v}`).join(',')}}` : name
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
