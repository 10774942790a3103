import { createHash } from 'node:crypto'
import type { Trace } from '@sieve/core'
import type { AskJudge, DimensionOutcome, JudgeRef } from './client.js'
import { JudgeError } from '@sieve/llm'
import { panelMajority } from './panel.js'
import { PROMPT_VERSION } from './prompt.js'
import { normalizeLevel, type Rubric, type RubricDimension } from './rubric.js'
import { traceFields, type ScoreRecord } from '@sieve/scoring'
import type { Transcript } from './transcript.js'

export interface DimensionResult {
  dimension: RubricDimension
  outcomes: DimensionOutcome[]
  /** The level: the single judge's, or the panel's strict majority. */
  level: number | undefined
  needsReview: boolean
  error: JudgeError | undefined
  /** The retained level stands only on a quote that is not in the turn it cites. */
  unverified: string | undefined
}

/** Who judges a dimension: the panel for risky dimensions when one is configured, else the one judge. */
export function judgesFor(dimension: RubricDimension, judge: JudgeRef, panel: JudgeRef[] | undefined): JudgeRef[] {
  return dimension.risky && panel?.length ? panel : [judge]
}

export async function judgeDimension(
  ask: AskJudge,
  judges: JudgeRef[],
  rubric: Rubric,
  dimension: RubricDimension,
  transcript: Transcript,
): Promise<DimensionResult> {
  const outcomes = await Promise.all(judges.map((j) => ask(j, rubric, dimension, transcript)))
  const failed = outcomes.find((o) => !o.ok)
  if (failed && !failed.ok) return { dimension, outcomes, level: undefined, needsReview: false, error: failed.error, unverified: undefined }
  const levels = outcomes.map((o) => (o.ok ? o.verdict.score : NaN))
  const { majority, disagreement } = levels.length === 1 ? { majority: levels[0], disagreement: false } : panelMajority(levels)
  const error = majority === undefined ? new JudgeError('PANEL_NO_MAJORITY', `panel split with no majority: ${levels.join(', ')}`) : undefined
  // The level is verified when one judge that gave it quoted the transcript faithfully.
  const giving = outcomes.filter((o) => o.ok && o.verdict.score === majority)
  const unverified = giving.every((o) => o.ok && o.unverified) ? giving.map((o) => (o.ok ? o.unverified : undefined)).find(Boolean) : undefined
  return { dimension, outcomes, level: majority, needsReview: disagreement, error, unverified }
}

export interface RecordContext {
  trace: Trace
  rubric: Rubric
  sampleReason: string
  /** Why the transcript was incomplete (empty when whole): such verdicts are flagged. */
  truncation?: string[]
  /** Count verdicts on incomplete transcripts in means (off by default: they judged part of a conversation). */
  includeTruncated?: boolean
}

/**
 * Why a verdict is kept out of means. Stored in the `error` column, which every rollup, the worst
 * traces and export leave out of scores (migrations/0006, 0007): a verdict on invented evidence or
 * on part of a conversation is shown, never averaged.
 */
function untrusted(r: DimensionResult, truncation: string[], includeTruncated: boolean): { label: string; error: string } | undefined {
  if (r.unverified) return { label: 'unverified_evidence', error: `UNVERIFIED_EVIDENCE: ${r.unverified}` }
  if (truncation.length && !includeTruncated) return { label: 'truncated', error: `TRUNCATED: ${truncation.join('; ')}` }
  return undefined
}

const configHash = (judges: JudgeRef[]) => createHash('sha256').update(JSON.stringify(judges)).digest('hex').slice(0, 16)

/**
 * Scores rows for one judged trace: one per dimension (an error row when no verdict could be had)
 * and one for the rubric's weighted overall score when every dimension has a level.
 */
export function toScoreRecords(ctx: RecordContext, results: DimensionResult[]): ScoreRecord[] {
  const { trace, rubric, sampleReason } = ctx
  const truncation = ctx.truncation ?? []
  const scorerVersion = `${rubric.version}+prompt.${PROMPT_VERSION}`
  const base = {
    ...traceFields(trace),
    spanId: '',
    kind: 'judge' as const,
    scorerVersion,
    promptVersion: PROMPT_VERSION,
    rubricId: rubric.id,
    rubricVersion: rubric.version,
    sampleReason,
  }
  const records: ScoreRecord[] = []
  let totalCost = 0
  let totalIn = 0
  let totalOut = 0
  for (const r of results) {
    const name = `${rubric.id}.${r.dimension.id}`
    const judges = r.outcomes.map((o) => o.judge)
    const costUsd = r.outcomes.reduce((s, o) => s + o.costUsd, 0)
    const inputTokens = r.outcomes.reduce((s, o) => s + o.usage.inputTokens, 0)
    const outputTokens = r.outcomes.reduce((s, o) => s + o.usage.outputTokens, 0)
    totalCost += costUsd
    totalIn += inputTokens
    totalOut += outputTokens
    const verdicts = r.outcomes.flatMap((o) => (o.ok ? [{ model: o.judge.model, seed: o.judge.seed, score: o.verdict.score, verdict: o.verdict }] : []))
    // The explanation and evidence shown are those of a judge that gave the retained level.
    const chosen = verdicts.find((v) => v.score === r.level)?.verdict
    const passed = r.level !== undefined && r.level >= r.dimension.passAt
    const distrust = r.error ? undefined : untrusted(r, truncation, ctx.includeTruncated ?? false)
    records.push({
      ...base,
      scorerName: name,
      configHash: configHash(judges),
      value: r.level === undefined || r.error ? 0 : normalizeLevel(r.dimension, r.level),
      passed: !r.error && passed,
      detail: JSON.stringify({
        level: r.error ? null : r.level,
        passAt: r.dimension.passAt,
        needsReview: r.needsReview,
        ...(verdicts.length > 1 ? { panel: verdicts.map(({ model, seed, score }) => ({ model, seed, score })) } : {}),
        ...(truncation.length ? { truncated: truncation } : {}),
      }),
      evaluationName: name,
      // A split panel is for review even when it has no majority (and so no level).
      evaluationLabel: r.needsReview ? 'needs_review' : r.error ? 'error' : distrust ? distrust.label : passed ? 'pass' : 'fail',
      evaluationExplanation: chosen?.reasoning ?? '',
      judgeModel: [...new Set(judges.map((j) => j.model))].join(','),
      evidence: JSON.stringify((chosen?.evidence ?? []).map((e) => ({ turn: e.turn, spanId: e.span_id, quote: e.quote }))),
      costUsd,
      inputTokens,
      outputTokens,
      error: r.error ? `${r.error.code}: ${r.error.message}` : (distrust?.error ?? ''),
    })
  }
  // The weighted score is a mean: only over verdicts that every mean may count.
  const scored = results.filter((r) => r.level !== undefined && !r.error && !untrusted(r, truncation, ctx.includeTruncated ?? false))
  if (scored.length === results.length && results.length > 0) {
    const weight = results.reduce((s, r) => s + r.dimension.weight, 0)
    const value = results.reduce((s, r) => s + r.dimension.weight * normalizeLevel(r.dimension, r.level!), 0) / weight
    const needsReview = results.some((r) => r.needsReview)
    const passed = value >= rubric.passingThreshold
    records.push({
      ...base,
      scorerName: rubric.id,
      configHash: configHash(results.flatMap((r) => r.outcomes.map((o) => o.judge))),
      value,
      passed,
      // Cost and tokens stay on the dimension rows (summing the column stays right); totals are here for reading.
      detail: JSON.stringify({
        passingThreshold: rubric.passingThreshold,
        needsReview,
        dimensions: Object.fromEntries(results.map((r) => [r.dimension.id, r.level])),
        totals: { costUsd: totalCost, inputTokens: totalIn, outputTokens: totalOut },
      }),
      evaluationName: rubric.id,
      evaluationLabel: needsReview ? 'needs_review' : passed ? 'pass' : 'fail',
      evaluationExplanation: `weighted score ${value.toFixed(3)} against threshold ${rubric.passingThreshold}`,
      judgeModel: [...new Set(results.flatMap((r) => r.outcomes.map((o) => o.judge.model)))].join(','),
      evidence: '[]',
      costUsd: 0,
      inputTokens: 0,
      outputTokens: 0,
      error: '',
    })
  }
  return records
}
