import type { Storage } from './storage.js'
import type { Span } from '../span.js'

/**
 * Per Kafka partition, the last offset an insert into `spans` may have reached (migration 0012).
 * Recorded before the insert begins, so a record past it was never stored.
 */
export type InsertIntents = Map<number, bigint>

export async function readInsertIntents(client: Storage, group: string): Promise<InsertIntents> {
  const rows = await (
    await client.query({
      query: `SELECT partition, toString(max(through_offset)) AS through FROM insert_intents
        WHERE consumer_group = {group:String} GROUP BY partition`,
      query_params: { group },
      format: 'JSONEachRow',
    })
  ).json<{ partition: number; through: string }>()
  return new Map(rows.map((r) => [Number(r.partition), BigInt(r.through)]))
}

export async function recordInsertIntents(client: Storage, group: string, intents: InsertIntents): Promise<void> {
  if (intents.size === 0) return
  await client.insert({
    table: 'insert_intents',
    format: 'JSONEachRow',
    values: [...intents].map(([partition, through]) => ({ consumer_group: group, partition, through_offset: through.toString() })),
  })
}

/** A span's identity in `spans`: its ReplacingMergeTree key. */
export const spanKey = (span: Pick<Span, 'projectId' | 'traceId' | 'spanId'>): string => `${span.projectId}\u0000${span.traceId}\u0000${span.spanId}`

/** Traces looked up per query: their ids travel as a query parameter, in the URL. */
const LOOKUP_TRACES = 1000

/** The keys (`spanKey`) of those spans that `spans` already holds; lookups by the table's key prefix. */
export async function storedSpanKeys(client: Storage, spans: readonly Span[]): Promise<Set<string>> {
  const stored = new Set<string>()
  const projects = [...new Set(spans.map((s) => s.projectId))]
  const traces = [...new Set(spans.map((s) => s.traceId))]
  for (let i = 0; i < traces.length; i += LOOKUP_TRACES) {
    const rows = await (
      await client.query({
        query: `SELECT DISTINCT project_id, trace_id, span_id FROM spans
          WHERE project_id IN {projects:Array(String)} AND trace_id IN {traces:Array(String)}`,
        query_params: { projects, traces: traces.slice(i, i + LOOKUP_TRACES) },
        format: 'JSONEachRow',
      })
    ).json<{ project_id: string; trace_id: string; span_id: string }>()
    for (const r of rows) stored.add(spanKey({ projectId: r.project_id, traceId: r.trace_id, spanId: r.span_id }))
  }
  return stored
}
