import type { Storage } from '@sieve/core'
import { figureTrust, readTrust } from '@sieve/review'
import { readFailedGates, readScorecardTotals } from '@sieve/scoring'
import { chTime, filterSql } from '../db.js'
import type { ScorecardQuery } from '../params.js'

export interface ScorecardSummary {
  /** Traces with a scorecard verdict in the range; 0 when no scorecard is configured. */
  traces: number
  passed: number
  passRate: number | null
  /**
   * The hard gates that failed, most often first, with the traces each failed. A judge gate is
   * `untrusted` when the dimension it reads (or one of its rubric's) breaks a trust rule.
   */
  gates: { name: string; kind: 'deterministic' | 'judge'; failed: number; untrusted: boolean }[]
}

/**
 * The scorecard verdicts of a range: how many traces passed their agent's card, and which gates
 * failed them. Read from each trace's latest verdict (FINAL: the judge rewrites the checks' one).
 */
export async function scorecard(client: Storage, projectId: string, q: ScorecardQuery): Promise<ScorecardSummary> {
  const f = filterSql(q, {
    service: 'service_name',
    agent_version: 'agent_version',
    prompt_version: 'trace_prompt_version',
    model: 'model',
    environment: 'environment',
  })
  const range = { projectId, from: chTime(q.from), to: chTime(q.to), filter: f }
  const [totals, gates, trust] = await Promise.all([readScorecardTotals(client, range), readFailedGates(client, range), readTrust(client, projectId)])
  const { traces, passed } = totals[0] ?? { traces: 0, passed: 0 }
  return {
    traces,
    passed,
    passRate: traces ? passed / traces : null,
    gates: gates.map((g) => ({
      name: g.name,
      kind: g.item_kind,
      failed: g.failed,
      untrusted: g.item_kind === 'judge' && figureTrust(g.name, trust) === false,
    })),
  }
}
