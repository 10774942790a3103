import type { Storage } from '@sieve/core'
import { figureTrust, readTrust, WITHDRAWN_SOURCE } from '@sieve/review'
import { rows } from '../db.js'

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
  const params = { project: projectId, trace: traceId }
  const [scores, feedback, trust] = await Promise.all([
    rows<Record<string, string | number>>(
      client,
      `SELECT kind, scorer_name, scorer_version, span_id, value, passed, detail, evidence, evaluation_label, evaluation_explanation,
              judge_model, rubric_id, rubric_version, sample_reason, error, cost_usd, toString(created_at) AS created
       FROM scores FINAL WHERE project_id = {project:String} AND trace_id = {trace:String}
       ORDER BY kind = 'judge', passed, scorer_name`,
      params,
    ),
    rows<Record<string, string | number>>(
      client,
      `SELECT feedback_id, span_id, score, comment, source, user_id, toString(created_at) AS created
       FROM feedback FINAL WHERE project_id = {project:String} AND trace_id = {trace:String} AND source != {withdrawn:String}
       ORDER BY created_at`,
      { ...params, withdrawn: WITHDRAWN_SOURCE },
    ),
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
