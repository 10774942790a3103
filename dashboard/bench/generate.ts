import type { Storage } from '@sieve/core'

/**
 * Synthetic load for `bench:dashboard`, generated inside the engine (INSERT ... SELECT FROM numbers())
 * so 10 million spans take seconds, not minutes. Shape: traces of `spansPerTrace` spans spread over
 * `days` days, three agent versions, two prompt versions, two models; eight deterministic checks on
 * every trace and four judge dimensions on one trace in ten.
 */
export interface GenerateOptions {
  projectId: string
  spans: number
  spansPerTrace: number
  days: number
  /** Unix seconds of the newest trace. */
  endSeconds: number
}

const PARALLEL = { max_insert_threads: '2', max_threads: 2 }

export const CHECKS = [
  'prohibited_tools',
  'required_tools',
  'tool_call_validity',
  'output_schema',
  'banned_content',
  'invented_urls',
  'pii_echo',
  'latency_budget',
] as const
export const DIMENSIONS = ['accuracy', 'empathy', 'resolution', 'policy_adherence'] as const

export async function generate(client: Storage, o: GenerateOptions): Promise<{ traces: number; scores: number; seconds: Record<string, number> }> {
  const seconds: Record<string, number> = {}
  // numbers_mt and parallel insert threads: generation uses both cores.
  const phase = async (name: string, run: () => Promise<unknown>) => {
    const start = performance.now()
    await run()
    seconds[name] = (performance.now() - start) / 1000
  }
  const traces = Math.floor(o.spans / o.spansPerTrace)
  const spanSeconds = (o.days * 86400) / traces
  const params = { p: o.projectId, n: o.spans, k: o.spansPerTrace, step: spanSeconds, end: o.endSeconds, days: o.days }
  // One expression per derived column, shared by the spans, traces and scores inserts.
  const t = `intDiv(number, {k:UInt32})`
  const traceId = (x: string) => `lower(leftPad(hex(cityHash64(${x}, 'trace')), 32, '0'))`
  const start = (x: string) => `toDateTime64({end:UInt32} - {days:UInt32} * 86400 + ${x} * {step:Float64}, 9, 'UTC')`
  const version = (x: string) => `['support-agent@1.4.0', 'support-agent@1.5.0', 'support-agent@1.6.0'][1 + ${x} % 3]`
  const prompt = (x: string) => `['refund-v7', 'refund-v8'][1 + intDiv(${x}, 7) % 2]`
  const model = (x: string) => `['gpt-4o-2024-08-06', 'claude-sonnet-4-20250514'][1 + intDiv(${x}, 5) % 2]`

  await phase('spans', () =>
    client.command({
      query: `INSERT INTO spans (project_id, trace_id, span_id, parent_span_id, name, kind, start_time, end_time, duration_ns,
              status_code, service_name, gen_ai_operation, request_model, input_tokens, output_tokens, tool_name,
              agent_version, prompt_version, attributes, events, links)
            SELECT {p:String}, ${traceId(t)}, lower(leftPad(hex(number), 16, '0')),
              if(number % {k:UInt32} = 0, '', lower(leftPad(hex(number - number % {k:UInt32}), 16, '0'))),
              multiIf(number % {k:UInt32} = 0, 'invoke_agent support', number % 2 = 1, 'chat', 'execute_tool lookup_order'),
              'INTERNAL', ${start(t)} + toIntervalMillisecond(number % {k:UInt32} * 40),
              ${start(t)} + toIntervalMillisecond(number % {k:UInt32} * 40 + 35 + number % 17),
              (35 + number % 17) * 1000000,
              if(number % 97 = 0, 'ERROR', 'OK'), 'support-api',
              multiIf(number % {k:UInt32} = 0, 'invoke_agent', number % 2 = 1, 'chat', 'execute_tool'),
              if(number % 2 = 1, ${model(t)}, ''), if(number % 2 = 1, 800 + number % 400, 0), if(number % 2 = 1, 120 + number % 80, 0),
              if(number % 2 = 0 AND number % {k:UInt32} != 0, 'lookup_order', ''),
              ${version(t)}, ${prompt(t)},
              map('gen_ai.input.messages', concat('[{"role":"user","parts":[{"type":"text","content":"Where is order ', toString(${t}), '?"}]}]')),
              '[]', '[]'
            FROM numbers_mt({n:UInt64})`,
      query_params: params,
      clickhouse_settings: PARALLEL,
    }),
  )
  await phase('traces', () =>
    client.command({
      query: `INSERT INTO traces (project_id, trace_id, service_name, root_span_id, root_name, start_time, end_time, duration_ns,
              span_count, llm_call_count, tool_call_count, error_count, input_tokens, output_tokens, agent_version, prompt_version, model)
            SELECT {p:String}, ${traceId('number')}, 'support-api', lower(leftPad(hex(number * {k:UInt32}), 16, '0')), 'invoke_agent support',
              ${start('number')}, ${start('number')} + toIntervalMillisecond({k:UInt32} * 40), {k:UInt32} * 40000000,
              {k:UInt32}, intDiv({k:UInt32}, 2), intDiv({k:UInt32} - 1, 2), 0, 1000 * intDiv({k:UInt32}, 2), 160 * intDiv({k:UInt32}, 2),
              ${version('number')}, ${prompt('number')}, ${model('number')}
            FROM numbers_mt({traces:UInt64})`,
      query_params: { ...params, traces },
      clickhouse_settings: PARALLEL,
    }),
  )
  const checks = `[${CHECKS.map((c) => `'${c}'`).join(', ')}]`
  const dims = `[${DIMENSIONS.map((c) => `'${c}'`).join(', ')}]`
  // Version 1.6.0 fails prohibited_tools more often: the regression the compare view must show.
  const scoreCommon = (kind: string) =>
    `{p:String}, ${traceId('tr')}, '', s, '${kind}', '1', '', ${start('tr')}, 'support-api', ${version('tr')}, ${prompt('tr')}, ${model('tr')}`
  await phase('deterministic scores', () =>
    client.command({
      query: `INSERT INTO scores (project_id, trace_id, span_id, scorer_name, kind, scorer_version, config_hash, trace_start_time, service_name,
              agent_version, trace_prompt_version, model, value, passed, detail)
            SELECT ${scoreCommon('deterministic')}, if(fail, 0, 1), if(fail, 0, 1), if(fail, '{"reason":"seen"}', '{}')
            FROM (SELECT intDiv(number, ${CHECKS.length}) AS tr, ${checks}[1 + number % ${CHECKS.length}] AS s,
                         cityHash64(number) % 100 < if(s = 'prohibited_tools' AND tr % 3 = 2, 20, 4) AS fail
                  FROM numbers_mt({traces:UInt64} * ${CHECKS.length}))`,
      query_params: { ...params, traces },
      clickhouse_settings: PARALLEL,
    }),
  )
  const judged = Math.ceil(traces / 10)
  await phase('judge scores', () =>
    client.command({
      query: `INSERT INTO scores (project_id, trace_id, span_id, scorer_name, kind, scorer_version, config_hash, trace_start_time, service_name,
              agent_version, trace_prompt_version, model, value, passed, rubric_id, judge_model, cost_usd)
            SELECT ${scoreCommon('judge')}, v / 5, v >= 3, 'customer-support', 'gpt-4.1-2025-04-14', 0.0004
            FROM (SELECT intDiv(number, ${DIMENSIONS.length}) * 10 AS tr, ${dims}[1 + number % ${DIMENSIONS.length}] AS s,
                         1 + cityHash64(number, 'j') % 5 AS v
                  FROM numbers_mt({judged:UInt64} * ${DIMENSIONS.length}))`,
      query_params: { ...params, judged },
      clickhouse_settings: PARALLEL,
    }),
  )
  return { traces, scores: traces * CHECKS.length + judged * DIMENSIONS.length, seconds }
}
