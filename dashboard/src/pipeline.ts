/**
 * Pipeline health for the overview, read from the collector's Prometheus text (`/metrics`): the
 * counters that say spans were received, accepted, rejected, dropped or failed, summed over labels.
 */
export interface PipelineCounter {
  name: string
  help: string
  value: number
  /** A counter of lost or failed work: the overview shows it in red when above zero. */
  problem: boolean
}

const INTERESTING = /(received|accepted|rejected|dropped|evict|error|fail|retr|dead_letter|insert_rows|scored|judge)/
const PROBLEM = /(rejected|dropped|evict|error|fail|dead_letter)/
/** Counters of work not done whose reason is the point (the judge's `skipped{reason=no_content}`): one row per reason. */
const BY_REASON = /_skipped_total$/

export function pipelineCounters(prometheusText: string): PipelineCounter[] {
  const help = new Map<string, string>()
  const types = new Map<string, string>()
  const sums = new Map<string, number>()
  for (const line of prometheusText.split('\n')) {
    const meta = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line)
    if (meta) {
      ;(meta[1] === 'HELP' ? help : types).set(meta[2]!, meta[3]!)
      continue
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/.exec(line)
    if (!sample) continue
    const reason = BY_REASON.test(sample[1]!) ? /reason="([^"]*)"/.exec(sample[2] ?? '')?.[1] : undefined
    const name = reason === undefined ? sample[1]! : `${sample[1]!}{reason="${reason}"}`
    const value = Number(sample[3])
    if (!Number.isFinite(value)) continue
    sums.set(name, (sums.get(name) ?? 0) + value)
  }
  const counters: PipelineCounter[] = []
  for (const [name, value] of sums) {
    // prom-client names counter samples `<family>_total`; the family carries HELP and TYPE.
    const metric = name.replace(/\{.*$/, '')
    const family = types.has(metric) ? metric : metric.replace(/_total$/, '')
    if (types.get(family) !== 'counter' || !INTERESTING.test(name)) continue
    counters.push({ name, help: help.get(family) ?? '', value, problem: PROBLEM.test(name) })
  }
  return counters.sort((a, b) => a.name.localeCompare(b.name))
}
