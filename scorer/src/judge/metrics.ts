/**
 * Counters of the judge stage: nothing the judge skips, retries or fails is silent. Keys read like
 * `skipped{slice=random,reason=calls_per_day}`.
 */
export class JudgeMetrics {
  private readonly counters = new Map<string, number>()

  inc(name: string, labels: Record<string, string> = {}, by = 1): void {
    const entries = Object.entries(labels)
    const key = entries.length ? `${name}{${entries.map(([k, v]) => `${k}=${v}`).join(',')}}` : name
    this.counters.set(key, (this.counters.get(key) ?? 0) + by)
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
