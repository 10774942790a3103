import { readTraceFeedback, type Storage } from '@sieve/core'
import { figureTrust, readTrust, WITHDRAWN_SOURCE } from '@sieve/review'
import { readTraceScores } from '@sieve/scoring'

export interface TraceScore {
  kind: string
  name: string
  version: string
  spanId: string
  value: number
  passed: boolean
  /** Parsed JSON when the scorer wrote JSON, else the text as written. */
  detail: unknown
  evidence: unknown
  label: string
  explanation: string
  judgeModel: string
  rubric: string
  sampleReason: string
  error: string
  costUsd: number
  createdAt: string
  /** A judge score's trust in effect (judge's figureTrust); null for other kinds and when never calibrated. */
  trusted: boolean | null
}

export interface TraceFeedback {
  feedbackId: string
  spanId: string
  score: number
  comment: string
  source: string
  userId: string
  createdAt: string
}

function json(text: string): unknown {
  if (text === '') return null
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Every score and every piece of feedback of one trace, exact (read with FINAL from the raw tables);
 * labels withdrawn on the review page are gone, as from every reader of annotations.
 */
export async function traceQuality(client: Storage, projectId: string, traceId: string): Promise<{ scores: TraceScore[]; feedback: TraceFeedback[] }> {
  const [scores, feedback, trust] = await Promise.all([
    readTraceScores(client, projectId, traceId),
    readTraceFeedback(client, projectId, traceId, WITHDRAWN_SOURCE),
    readTrust(client, projectId),
  ])
  const s = (v: string | number | undefined) => String(v ?? '')
  const n = (v: string | number | undefined) => Number(v ?? 0)
  return {
    scores: scores.map((r) => ({
      kind: s(r.kind),
      name: s(r.scorer_name),
      version: s(r.scorer_version),
      spanId: s(r.span_id),
      value: n(r.value),
      passed: n(r.passed) === 1,
      detail: json(s(r.detail)),
      evidence: json(s(r.evidence)),
      label: s(r.evaluation_label),
      explanation: s(r.evaluation_explanation),
      judgeModel: s(r.judge_model),
      rubric: r.rubric_id ? `${s(r.rubric_id)}@${s(r.rubric_version)}` : '',
      sampleReason: s(r.sample_reason),
      error: s(r.error),
      costUsd: n(r.cost_usd),
      createdAt: `${s(r.created).replace(' ', 'T')}Z`,
      trusted: r.kind === 'judge' ? figureTrust(s(r.scorer_name), trust) : null,
    })),
    feedback: feedback.map((r) => ({
      feedbackId: s(r.feedback_id),
      spanId: s(r.span_id),
      score: n(r.score),
      comment: s(r.comment),
      source: s(r.source),
      userId: s(r.user_id),
      createdAt: `${s(r.created).replace(' ', 'T')}Z`,
    })),
  }
}
