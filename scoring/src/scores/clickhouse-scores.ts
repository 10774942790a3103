import { insertCompactRows, type Storage } from '@sieve/core'
import { countedInsert, type PipelineMetrics } from '@sieve/metrics'
import type { ScoreRecord } from './score-record.js'
import type { ScoreSink } from './score-sink.js'

function decimalSeconds(nanos: string): string {
  const n = BigInt(nanos)
  return `${n / 1_000_000_000n}.${(n % 1_000_000_000n).toString().padStart(9, '0')}`
}

/** The `scores` columns, in the order of `scoreValues`. */
export const SCORE_COLUMNS = [
  'project_id',
  'trace_id',
  'span_id',
  'scorer_name',
  'kind',
  'scorer_version',
  'config_hash',
  'value',
  'passed',
  'detail',
  'evaluation_name',
  'evaluation_label',
  'evaluation_explanation',
  'judge_model',
  'prompt_version',
  'rubric_id',
  'rubric_version',
  'evidence',
  'sample_reason',
  'cost_usd',
  'input_tokens',
  'output_tokens',
  'error',
  'trace_start_time',
  'service_name',
  'agent_version',
  'trace_prompt_version',
  'model',
  'environment',
] as const

/** A record as a row of the `scores` table: its values in `SCORE_COLUMNS` order. */
export function scoreValues(r: ScoreRecord): (string | number)[] {
  return [
    r.projectId,
    r.traceId,
    r.spanId,
    r.scorerName,
    r.kind,
    r.scorerVersion,
    r.configHash,
    r.value,
    r.passed ? 1 : 0,
    r.detail,
    r.evaluationName,
    r.evaluationLabel,
    r.evaluationExplanation,
    r.judgeModel,
    r.promptVersion,
    r.rubricId,
    r.rubricVersion,
    r.evidence,
    r.sampleReason,
    r.costUsd,
    r.inputTokens,
    r.outputTokens,
    r.error,
    decimalSeconds(r.traceStartTimeUnixNano),
    r.serviceName,
    r.agentVersion,
    r.tracePromptVersion,
    r.model,
    r.environment,
  ]
}

/** A record as a row of the `scores` table, by column name. */
export function scoreRow(r: ScoreRecord): Record<string, string | number> {
  const values = scoreValues(r)
  return Object.fromEntries(SCORE_COLUMNS.map((column, i) => [column, values[i]!]))
}

/**
 * The `scores` table as a sink, on the client from core's createStorage (its database is the
 * session default). One INSERT per write, so a batch of traces costs one round trip; its rows are
 * encoded in time slices (insertCompactRows). With `metrics`, each write counts in the insert figures
 * under `table="scores"`, beside the spans and the rollup: what a score write costs the engine grows
 * with the writes, not their size.
 */
export function clickhouseScoreSink(client: Storage, metrics?: Pick<PipelineMetrics, 'insertDuration' | 'insertRows'>): ScoreSink {
  return {
    async write(records) {
      if (!records.length) return
      await countedInsert(metrics, 'scores', records.length, async () => {
        await insertCompactRows(client, 'scores', SCORE_COLUMNS, records, scoreValues)
      })
    },
  }
}
