import type { Storage } from '@sieve/core'
import { figureTrust, readTrust } from '@sieve/review'
import { chTime, filterSql, rows } from '../db.js'
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
  const where = `project_id = {project:String} AND kind = 'scorecard' AND trace_start_time >= {from:DateTime64(3)} AND trace_start_time < {to:DateTime64(3)}${f.sql}`
  const params = { project: projectId, from: chTime(q.from), to: chTime(q.to), ...f.params }
  const [totals, gates, trust] = await Promise.all([
    rows<{ traces: number; passed: number }>(client, `SELECT count() AS traces, countIf(passed = 1) AS passed FROM scores FINAL WHERE ${where}`, params),
    rows<{ name: string; failed: number; item_kind: 'deterministic' | 'judge' }>(
      client,
      `SELECT gate AS name, count() AS failed,
         any(JSONExtractString(arrayFirst(i -> JSONExtractString(i, 'name') = gate, JSONExtractArrayRaw(detail, 'items')), 'kind')) AS item_kind
       FROM scores FINAL ARRAY JOIN JSONExtract(detail, 'failedGates', 'Array(String)') AS gate
       WHERE ${where} GROUP BY gate ORDER BY failed DESC, gate LIMIT 50`,
      params,
    ),
    readTrust(client, projectId),
  ])
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
