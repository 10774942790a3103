import type { ClickHouseClient } from '@clickhouse/client'
import type { Trace } from '../span.js'
import { rowToSpan, SPAN_SELECT, type SpanReadRow } from './span-row.js'

/** All spans of one trace of one project, each once, in start order; undefined when none is stored. */
export async function readTrace(client: ClickHouseClient, projectId: string, traceId: string): Promise<Trace | undefined> {
  const result = await client.query({
    query: `SELECT ${SPAN_SELECT} FROM spans FINAL
      WHERE project_id = {projectId:String} AND trace_id = {traceId:String}
      ORDER BY start_time, span_id`,
    query_params: { projectId, traceId: traceId.toLowerCase() },
    format: 'JSONEachRow',
  })
  const spans = (await result.json<SpanReadRow>()).map(rowToSpan)
  if (spans.length === 0) return undefined
  return { projectId, traceId: traceId.toLowerCase(), spans, complete: spans.some((s) => s.parentSpanId === '') }
}
