import type { Storage } from '@sieve/core'

/** Rows for the tables the dashboard reads, with only the columns a test cares about. */
export interface SeedTrace {
  projectId?: string
  traceId: string
  start: Date
  agentVersion: string
  promptVersion?: string
  model?: string
  service?: string
  rootName?: string
  errorCount?: number
  inputTokens?: number
  outputTokens?: number
  /** deployment.environment.name; left out of the rows unless given (schemas before 0013 lack the column). */
  environment?: string
  scores: { name: string; kind?: 'deterministic' | 'judge' | 'scorecard'; value: number; passed: boolean; detail?: unknown; error?: string; costUsd?: number }[]
}

const time = (d: Date) => d.toISOString().replace('T', ' ').replace('Z', '')

export async function seed(client: Storage, traces: SeedTrace[]): Promise<void> {
  const t = traces.map((x) => ({
    project_id: x.projectId ?? 'default',
    trace_id: x.traceId,
    service_name: x.service ?? 'support-api',
    root_name: x.rootName ?? 'invoke_agent support',
    start_time: time(x.start),
    end_time: time(new Date(x.start.getTime() + 1500)),
    duration_ns: 1_500_000_000,
    span_count: 4,
    error_count: x.errorCount ?? 0,
    input_tokens: x.inputTokens ?? 0,
    output_tokens: x.outputTokens ?? 0,
    agent_version: x.agentVersion,
    prompt_version: x.promptVersion ?? '',
    model: x.model ?? '',
    ...(x.environment !== undefined ? { environment: x.environment } : {}),
  }))
  await client.insert({ table: 'traces', values: t, format: 'JSONEachRow' })
  const s = traces.flatMap((x, i) =>
    x.scores.map((sc) => ({
      project_id: t[i]!.project_id,
      trace_id: x.traceId,
      span_id: '',
      scorer_name: sc.name,
      kind: sc.kind ?? 'deterministic',
      scorer_version: '1',
      value: sc.value,
      passed: sc.passed ? 1 : 0,
      detail: sc.detail === undefined ? '' : JSON.stringify(sc.detail),
      error: sc.error ?? '',
      cost_usd: sc.costUsd ?? 0,
      trace_start_time: t[i]!.start_time,
      service_name: t[i]!.service_name,
      agent_version: x.agentVersion,
      trace_prompt_version: t[i]!.prompt_version,
      model: t[i]!.model,
      ...(x.environment !== undefined ? { environment: x.environment } : {}),
    })),
  )
  // One insert per trace, as the scorer writes them.
  for (const trace of traces) {
    const values = s.filter((row) => row.trace_id === trace.traceId)
    if (values.length) await client.insert({ table: 'scores', values, format: 'JSONEachRow' })
  }
}

export const traceId = (n: number, prefix = 'a'): string => `${prefix}${n.toString(16).padStart(31, '0')}`
