import type { MetricObjectWithValues, MetricValue } from 'prom-client'

/**
 * Pipeline health for the overview, read from the process's Prometheus registry (what `/metrics`
 * serves): the counters that say spans were received, accepted, rejected, dropped or failed,
 * summed over labels.
 */
export interface PipelineCounter {
  /** As Prometheus exposes it (`sieve_spans_received_total`), for alerts and queries. */
  name: string
  /** As people read it: `Spans received`, `Judge skipped (no content)`. */
  label: string
  help: string
  value: number
  /** A counter of lost or failed work: the overview shows it in red when above zero. */
  problem: boolean
}

const INTERESTING = /(received|accepted|rejected|dropped|evict|error|fail|retr|dead_letter|insert_rows|scored|judge)/
const PROBLEM = /(rejected|dropped|evict|error|fail|dead_letter)/
/** Counters of work not done whose reason is the point (the judge's `skipped{reason=no_content}`): one row per reason. */
const BY_REASON = /_skipped_total$/

/** What `Registry.getMetricsAsJSON()` gives. */
export type MetricFamilies = MetricObjectWithValues<MetricValue<string>>[]

export function pipelineCounters(families: MetricFamilies): PipelineCounter[] {
  const counters: PipelineCounter[] = []
  for (const { name: family, help, type, values } of families) {
    if (String(type) !== 'counter') continue
    // prom-client's counters are named `<family>` and exposed as `<family>_total`; Sieve names its families with the suffix.
    const exposed = family.endsWith('_total') ? family : `${family}_total`
    const sums = new Map<string, number>()
    for (const { labels, value } of values) {
      const reason = BY_REASON.test(exposed) ? labels.reason : undefined
      const name = reason === undefined ? exposed : `${exposed}{reason="${reason}"}`
      if (Number.isFinite(value)) sums.set(name, (sums.get(name) ?? 0) + value)
    }
    for (const [name, value] of sums) if (INTERESTING.test(name)) counters.push({ name, label: readable(name), help, value, problem: PROBLEM.test(name) })
  }
  return counters.sort((a, b) => a.name.localeCompare(b.name))
}

/** `sieve_judge_skipped_total{reason="no_content"}` → `Judge skipped (no content)`. */
function readable(name: string): string {
  const [, family = name, reason] = /^(.*?)(?:\{reason="(.*)"\})?$/.exec(name) ?? []
  const words = family
    .replace(/^sieve_/, '')
    .replace(/_total$/, '')
    .replaceAll('_', ' ')
  const text = words.charAt(0).toUpperCase() + words.slice(1)
  return reason === undefined ? text : `${text} (${reason.replaceAll('_', ' ')})`
}
