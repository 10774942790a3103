import { genAiFields, type Trace } from '@sieve/core'
import { z } from 'zod'
import type { ScoredCheck, TraceScore } from '../score-trace.js'
import { traceView } from '../trace/view.js'

/**
 * One score, for every kind of scorer (deterministic checks, the judge, humans): the camelCase of the
 * columns of the `scores` table (migrations/0003_scores.sql). The `evaluation*` fields mirror the
 * OpenTelemetry GenAI `gen_ai.evaluation.result` event so scores can be forwarded to other OTel
 * backends. The table keeps one row per (project, trace, kind, scorer name, scorer version, span id):
 * re-scoring replaces, never duplicates.
 */
export const SCORE_KINDS = ['deterministic', 'judge', 'human'] as const

export const scoreRecordSchema = z.object({
  projectId: z.string().min(1),
  traceId: z.string().min(1),
  /** The span the score is about; '' for the whole trace (deterministic checks name spans in `detail`). */
  spanId: z.string(),
  scorerName: z.string().min(1),
  kind: z.enum(SCORE_KINDS),
  scorerVersion: z.string().min(1),
  configHash: z.string(),
  value: z.number().min(0).max(1),
  passed: z.boolean(),
  /** JSON text: what was seen, where. */
  detail: z.string(),
  evaluationName: z.string().min(1),
  evaluationLabel: z.string(),
  evaluationExplanation: z.string(),
  judgeModel: z.string(),
  promptVersion: z.string(),
  rubricId: z.string(),
  rubricVersion: z.string(),
  /** JSON array text of cited span ids / turns. */
  evidence: z.string(),
  sampleReason: z.string(),
  costUsd: z.number().min(0),
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  /** Set when no score could be had; such rows are never counted as low scores. */
  error: z.string(),
  traceStartTimeUnixNano: z.string().regex(/^\d+$/),
  serviceName: z.string(),
  agentVersion: z.string(),
  tracePromptVersion: z.string(),
  model: z.string(),
})

export type ScoreRecord = z.output<typeof scoreRecordSchema>

/** Trace-level fields every score of a trace carries, so dashboards slice scores without a join. */
export type TraceFields = Pick<ScoreRecord, 'projectId' | 'traceId' | 'traceStartTimeUnixNano' | 'serviceName' | 'agentVersion' | 'tracePromptVersion' | 'model'>

export function traceFields(trace: Trace): TraceFields {
  const view = traceView(trace)
  let agentVersion = ''
  let promptVersion = ''
  for (const span of view.root ? [view.root, ...view.spans] : view.spans) {
    const f = genAiFields(span)
    agentVersion ||= f.agentVersion
    promptVersion ||= f.promptVersion
    if (agentVersion && promptVersion) break
  }
  const firstCall = view.llmCalls[0]?.fields
  return {
    projectId: trace.projectId,
    traceId: trace.traceId,
    traceStartTimeUnixNano: view.startNs.toString(),
    serviceName: view.serviceName,
    agentVersion,
    tracePromptVersion: promptVersion,
    model: firstCall ? firstCall.responseModel || firstCall.requestModel : '',
  }
}

export function checkRecord(result: ScoredCheck, fields: TraceFields): ScoreRecord {
  // Fields listed one by one: a spread followed by this many properties is ~500x slower in V8.
  return {
    projectId: fields.projectId,
    traceId: fields.traceId,
    traceStartTimeUnixNano: fields.traceStartTimeUnixNano,
    serviceName: fields.serviceName,
    agentVersion: fields.agentVersion,
    tracePromptVersion: fields.tracePromptVersion,
    model: fields.model,
    spanId: '',
    scorerName: result.name,
    kind: 'deterministic',
    scorerVersion: result.version,
    configHash: result.configHash,
    value: result.value,
    passed: result.passed,
    detail: JSON.stringify(result.detail),
    evaluationName: result.name,
    evaluationLabel: result.error ? 'error' : result.passed ? 'pass' : 'fail',
    evaluationExplanation: result.detail.message,
    judgeModel: '',
    promptVersion: '',
    rubricId: '',
    rubricVersion: '',
    evidence: '[]',
    sampleReason: '',
    costUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    error: result.error ?? '',
  }
}

export function traceScoreRecords(score: TraceScore): ScoreRecord[] {
  const fields = traceFields(score.trace)
  return score.results.map((r) => checkRecord(r, fields))
}
