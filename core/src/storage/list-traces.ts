import type { Storage } from './storage.js'
/** One row of the `traces` rollup as the read API and the dashboard show it (token sums are exact up to 2^53). */
export interface TraceSummary {
  projectId: string
  traceId: string
  serviceName: string
  rootSpanId: string
  rootName: string
  startTimeUnixNano: string
  endTimeUnixNano: string
  durationNs: string
  spanCount: number
  llmCallCount: number
  toolCallCount: number
  errorCount: number
  inputTokens: number
  outputTokens: number
  agentName: string
  agentVersion: string
  promptVersion: string
  model: string
  sessionId: string
  userId: string
  environment: string
}

export interface ListTracesQuery {
  /** Unix nanoseconds; traces that started at or after it. */
  sinceUnixNano?: string
  service?: string
  limit: number
}

/** The most recent traces of a project, newest first, each once. */
export async function listTraces(client: Storage, projectId: string, query: ListTracesQuery): Promise<TraceSummary[]> {
  const result = await client.query({
    query: `SELECT project_id AS projectId, trace_id AS traceId, service_name AS serviceName,
        root_span_id AS rootSpanId, root_name AS rootName,
        toString(toUnixTimestamp64Nano(start_time)) AS startTimeUnixNano,
        toString(toUnixTimestamp64Nano(end_time)) AS endTimeUnixNano, toString(duration_ns) AS durationNs,
        span_count AS spanCount, llm_call_count AS llmCallCount, tool_call_count AS toolCallCount,
        error_count AS errorCount, toFloat64(input_tokens) AS inputTokens, toFloat64(output_tokens) AS outputTokens,
        agent_name AS agentName, agent_version AS agentVersion, prompt_version AS promptVersion, model,
        session_id AS sessionId, user_id AS userId, environment
      FROM traces FINAL
      WHERE project_id = {projectId:String}
        AND start_time >= fromUnixTimestamp64Nano({since:Int64}, 'UTC')
        AND ({service:String} = '' OR service_name = {service:String})
      ORDER BY start_time DESC, trace_id
      LIMIT {limit:UInt32}`,
    query_params: {
      projectId,
      since: query.sinceUnixNano ?? '0',
      service: query.service ?? '',
      limit: query.limit,
    },
    format: 'JSONEachRow',
  })
  return result.json<TraceSummary>()
}
