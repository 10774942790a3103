import { readCompareRollup, readCompareTraces, type Storage } from '@sieve/core'
import { chTime, filterSql, DIMENSION_COLUMNS } from '../db.js'
import type { CompareQuery } from '../params.js'

export interface SideStats {
  scored: number
  passed: number
  passRate: number | null
  meanValue: number | null
}

export interface CheckDelta {
  kind: string
  check: string
  a: SideStats
  b: SideStats
  /** b minus a; null when either side has no scores for the check. */
  passRateDelta: number | null
  meanValueDelta: number | null
  /** Two-proportion z statistic of the pass-rate change; |z| >= 1.96 is unlikely to be noise (95%). */
  z: number | null
  /** b passes significantly less often than a. */
  regression: boolean
}

export interface Comparison {
  by: CompareQuery['by']
  a: string
  b: string
  from: string
  to: string
  traces: { a: number; b: number }
  checks: CheckDelta[]
}

function side(scored: number, passed: number, valueSum: number): SideStats {
  return { scored, passed, passRate: scored ? passed / scored : null, meanValue: scored ? valueSum / scored : null }
}

function zScore(a: SideStats, b: SideStats): number | null {
  if (!a.scored || !b.scored) return null
  const pooled = (a.passed + b.passed) / (a.scored + b.scored)
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.scored + 1 / b.scored))
  if (se === 0) return 0
  return (b.passed / b.scored - a.passed / a.scored) / se
}

/** Per-check pass rates and mean values of two versions side by side (the regression view). */
export async function compare(client: Storage, projectId: string, q: CompareQuery): Promise<Comparison> {
  const column = DIMENSION_COLUMNS[q.by]
  const f = filterSql(q, { service: 'service_name', environment: 'environment' })
  const sides = { projectId, column, a: q.a, b: q.b, from: chTime(q.from), to: chTime(q.to), filter: f }
  const [scoreRows, traceRows] = await Promise.all([readCompareRollup(client, sides), readCompareTraces(client, sides)])

  const byCheck = new Map<string, { kind: string; check: string; a: SideStats; b: SideStats }>()
  const empty = side(0, 0, 0)
  for (const r of scoreRows) {
    const key = `${r.kind}\u0000${r.check}`
    const entry = byCheck.get(key) ?? { kind: r.kind, check: r.check, a: empty, b: empty }
    const stats = side(r.scored, r.passed, r.value_sum)
    // a and b may name the same version: then both sides see the same rows.
    if (r.side === q.a) entry.a = stats
    if (r.side === q.b) entry.b = stats
    byCheck.set(key, entry)
  }
  const checks = [...byCheck.values()].map(({ kind, check, a, b }) => {
    const z = zScore(a, b)
    const passRateDelta = a.passRate !== null && b.passRate !== null ? b.passRate - a.passRate : null
    return {
      kind,
      check,
      a,
      b,
      passRateDelta,
      meanValueDelta: a.meanValue !== null && b.meanValue !== null ? b.meanValue - a.meanValue : null,
      z,
      regression: passRateDelta !== null && passRateDelta < 0 && z !== null && z <= -1.96,
    }
  })
  // Worst regressions first, then by name for a stable order.
  checks.sort((x, y) => (x.passRateDelta ?? 0) - (y.passRateDelta ?? 0) || x.check.localeCompare(y.check))
  const traces = { a: 0, b: 0 }
  for (const r of traceRows) {
    if (r.side === q.a) traces.a = r.traces
    if (r.side === q.b) traces.b = r.traces
  }
  return { by: q.by, a: q.a, b: q.b, from: q.from.toISOString(), to: q.to.toISOString(), traces, checks }
}
