import type { Storage } from './storage.js'
import { ASSOCIATED_SESSION } from '../conventions/index.js'
import { LLM_OPERATIONS } from '../genai.js'

export interface TraceKey {
  projectId: string
  traceId: string
}

const literal = (s: string): string => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`

/** The root span's value when it has one, else the earliest span's that has the field set. */
const fromRoot = (column: string): string => `argMinIf(${column}, (parent_span_id != '', start_time), ${column} != '') AS r_${column}`

const llm = [...LLM_OPERATIONS].map(literal).join(', ')
/**
 * The span names a session its user associated explicitly (traceSessionId's first rank). Asked of
 * the maps' `keys` subcolumns, which the engine reads without the values: `mapContains` read every
 * attribute value (the prompts and answers) of every span of the traces rewritten, and with 32 KB
 * spans under overload RSS peaked 0.4-0.6 GiB higher (collector/bench/RESULTS.md).
 */
const associated = ASSOCIATED_SESSION.map((k) => `has(attributes.keys, ${literal(k)}) OR has(resource_attributes.keys, ${literal(k)})`).join(' OR ')
/** A model call, as `isLlmCall` decides from a span's fields. */
const isLlmCall = `gen_ai_operation IN (${llm}) OR (gen_ai_operation = '' AND (request_model != '' OR gen_ai_system != ''))`
/**
 * Tokens of the trace's model calls. An agent span often repeats its calls' totals (the Vercel AI
 * SDK's ai.generateText, OpenInference agents): counting both doubles them. Only a trace whose model
 * calls carry no counts takes what other spans say.
 */
const tokens = (column: string): string => `if(sumIf(${column}, ${isLlmCall}) > 0, sumIf(${column}, ${isLlmCall}), sum(${column})) AS r_${column}`

/**
 * Rewrites the `traces` row of each given trace from `spans FINAL`, so the rollup counts every
 * distinct span once however often it was delivered. ReplacingMergeTree(updated_at) keeps the
 * newest row per trace.
 */
export async function refreshTraceRollups(client: Storage, keys: readonly TraceKey[]): Promise<void> {
  const byProject = new Map<string, string[]>()
  for (const { projectId, traceId } of keys) {
    const ids = byProject.get(projectId) ?? []
    if (ids.push(traceId) === 1) byProject.set(projectId, ids)
  }
  for (const [projectId, traceIds] of byProject) {
    for (let i = 0; i < traceIds.length; i += TRACES_PER_STATEMENT) {
      await rewrite(client, projectId, traceIds.slice(i, i + TRACES_PER_STATEMENT))
    }
  }
}

/** Keeps each statement well under ClickHouse's max_query_size (256 KiB). */
const TRACES_PER_STATEMENT = 2000

async function rewrite(client: Storage, projectId: string, traceIds: string[]): Promise<void> {
  await client.command({
    query: `INSERT INTO traces (project_id, trace_id, service_name, root_span_id, root_name, start_time, end_time,
        duration_ns, span_count, llm_call_count, tool_call_count, error_count, input_tokens, output_tokens,
        agent_name, agent_version, prompt_version, model, session_id, user_id, environment)
      -- r_ aliases: an alias named like a column would shadow it inside the other aggregates.
      SELECT project_id, trace_id,
        argMin(service_name, (parent_span_id != '', start_time)) AS r_service_name,
        argMinIf(span_id, start_time, parent_span_id = '') AS r_root_span_id,
        argMin(name, (parent_span_id != '', start_time)) AS r_root_name,
        min(start_time) AS r_start_time, max(end_time) AS r_end_time,
        toUnixTimestamp64Nano(max(end_time)) - toUnixTimestamp64Nano(min(start_time)) AS r_duration_ns,
        count() AS r_span_count,
        countIf(${isLlmCall}) AS r_llm_call_count,
        countIf(gen_ai_operation = 'execute_tool') AS r_tool_call_count,
        countIf(status_code = 'ERROR') AS r_error_count,
        ${tokens('input_tokens')}, ${tokens('output_tokens')},
        ${fromRoot('agent_name')}, ${fromRoot('agent_version')}, ${fromRoot('prompt_version')},
        argMinIf(if(response_model != '', response_model, request_model), start_time, request_model != '' OR response_model != '') AS r_model,
        argMinIf(session_id, (NOT (${associated}), parent_span_id != '', start_time), session_id != '') AS r_session_id,
        ${fromRoot('user_id')}, ${fromRoot('environment')}
      FROM spans FINAL
      WHERE project_id = ${literal(projectId)} AND trace_id IN (${traceIds.map(literal).join(', ')})
      GROUP BY project_id, trace_id`,
  })
}
