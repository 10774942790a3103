import type { Trace } from '@sieve/core'
import { z } from 'zod'
import { checkOutcome, type ScoredCheck, type TraceScore } from '../score-trace.js'
import { explainScorecard, type ScorecardResult } from '../scorecard/scorecard.js'
import { traceView } from '../trace/view.js'

/**
 * One score, for every kind of scorer (deterministic checks, the judge, humans): the camelCase of the
 * columns of the `scores` table (migrations/0003_scores.sql). The `evaluation*` fields mirror the
 * OpenTelemetry GenAI `gen_ai.evaluation.result` event so scores can be forwarded to other OTel
 * backends. The table keeps one row per (project, trace, kind, scorer name, scorer version, span id):
 * re-scoring replaces, never duplicates.
 */
/**
 * 'calibration': a judge dimension's agreement with human labels (trace id ''), see judge/calibration/.
 * 'scorecard': the trace's verdict under its agent's scorecard (one row, scorer name 'scorecard'), see scorecard/.
 */
export const SCORE_KINDS = ['deterministic', 'judge', 'human', 'calibration', 'scorecard'] as const

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
  /** The trace's deployment.environment.name ('simulation' for `sieve simulate --send`); absent in records of earlier releases. */
  environment: z.string().default(''),
})

export type ScoreRecord = z.output<typeof scoreRecordSchema>

/** Trace-level fields every score of a trace carries, so dashboards slice scores without a join. */
export type TraceFields = Pick<
  ScoreRecord,
  'projectId' | 'traceId' | 'traceStartTimeUnixNano' | 'serviceName' | 'agentVersion' | 'tracePromptVersion' | 'model' | 'environment'
>

export function traceFields(trace: Trace): TraceFields {
  const view = traceView(trace)
  const firstCall = view.llmCalls[0]?.fields
  return {
    projectId: trace.projectId,
    traceId: trace.traceId,
    traceStartTimeUnixNano: view.startNs.toString(),
    serviceName: view.serviceName,
    agentVersion: view.agentVersion,
    tracePromptVersion: view.promptVersion,
    model: firstCall ? firstCall.responseModel || firstCall.requestModel : '',
    environment: view.environment,
  }
}

const EVALUATION_LABEL = { passed: 'pass', failed: 'fail', error: 'error', not_measured: 'not_measured' } as const

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
    environment: fields.environment,
    spanId: '',
    scorerName: result.name,
    kind: 'deterministic',
    scorerVersion: result.version,
    configHash: result.configHash,
    value: result.value,
    passed: result.passed,
    detail: JSON.stringify(result.detail),
    evaluationName: result.name,
    evaluationLabel: EVALUATION_LABEL[checkOutcome(result)],
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

/** The judge's columns of a row no judge call made (checkRecord lists them inline: it runs per check per trace). */
const NO_JUDGE_CALL = {
  judgeModel: '',
  promptVersion: '',
  rubricId: '',
  rubricVersion: '',
  evidence: '[]',
  sampleReason: '',
  costUsd: 0,
  inputTokens: 0,
  outputTokens: 0,
} as const

/** Bumped when a scorecard verdict is computed differently; the card's content is in configHash. */
export const SCORECARD_VERSION = '1'

/**
 * The trace's scorecard verdict as its one `scorecard` row. Written again (and so replaced) when the
 * judge adds its items; `detail` names the card, the gates that failed and every item's state.
 */
export function scorecardRecord(result: ScorecardResult, fields: TraceFields): ScoreRecord {
  return {
    ...fields,
    spanId: '',
    scorerName: 'scorecard',
    kind: 'scorecard',
    scorerVersion: SCORECARD_VERSION,
    configHash: result.configHash,
    value: result.value,
    passed: result.passed,
    detail: JSON.stringify({
      card: result.card,
      passAt: result.passAt,
      failedGates: result.failedGates,
      missing: result.missing,
      items: result.items.map((i) => ({
        name: i.name,
        kind: i.kind,
        weight: i.weight,
        gate: i.gate,
        ...(i.min !== undefined ? { min: i.min } : {}),
        state: i.state,
        ...(i.value !== undefined ? { value: i.value } : {}),
      })),
    }),
    evaluationName: 'scorecard',
    evaluationLabel: result.passed ? 'pass' : 'fail',
    evaluationExplanation: explainScorecard(result),
    ...NO_JUDGE_CALL,
    error: '',
  }
}

export function traceScoreRecords(score: TraceScore): ScoreRecord[] {
  const fields = traceFields(score.trace)
  const records = score.results.map((r) => checkRecord(r, fields))
  if (score.scorecard) records.push(scorecardRecord(score.scorecard, fields))
  return records
}
