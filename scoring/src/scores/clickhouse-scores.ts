import { insertJsonRows, type Storage } from '@sieve/core'
import { countedInsert, type PipelineMetrics } from '@sieve/metrics'
import type { ScoreRecord } from './score-record.js'
import type { ScoreSink } from './score-sink.js'

function decimalSeconds(nanos: string): string {
  const n = BigInt(nanos)
  return `${n / 1_000_000_000n}.${(n % 1_000_000_000n).toString().padStart(9, '0')}`
}

/** A record as a row of the `scores` table. */
export function scoreRow(r: ScoreRecord): Record<string, string | number> {
  return {
    project_id: r.projectId,
    trace_id: r.traceId,
    span_id: r.spanId,
    scorer_name: r.scorerName,
    kind: r.kind,
    scorer_version: r.scorerVersion,
    config_hash: r.configHash,
    value: r.value,
    passed: r.passed ? 1 : 0,
    detail: r.detail,
    evaluation_name: r.evaluationName,
    evaluation_label: r.evaluationLabel,
    evaluation_explanation: r.evaluationExplanation,
    judge_model: r.judgeModel,
    prompt_version: r.promptVersion,
    rubric_id: r.rubricId,
    rubric_version: r.rubricVersion,
    evidence: r.evidence,
    sample_reason: r.sampleReason,
    cost_usd: r.costUsd,
    input_tokens: r.inputTokens,
    output_tokens: r.outputTokens,
    error: r.error,
    trace_start_time: decimalSeconds(r.traceStartTimeUnixNano),
    service_name: r.serviceName,
    agent_version: r.agentVersion,
    trace_prompt_version: r.tracePromptVersion,
    model: r.model,
    environment: r.environment,
  }
}

/**
 * The `scores` table as a sink, on the client from core's createStorage (its database is the
 * session default). One INSERT per write, so a batch of traces costs one round trip; its rows are
 * encoded in time slices (insertJsonRows). With `metrics`, each write counts in the insert figures
 * under `table="scores"`, beside the spans and the rollup: what a score write costs the engine grows
 * with the writes, not their size.
 */
export function clickhouseScoreSink(client: Storage, metrics?: Pick<PipelineMetrics, 'insertDuration' | 'insertRows'>): ScoreSink {
  return {
    async write(records) {
      if (!records.length) return
      await countedInsert(metrics, 'scores', records.length, async () => {
        await insertJsonRows(client, 'scores', records, scoreRow)
      })
    },
  }
}
