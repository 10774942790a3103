import type { Trace } from '@sieve/core'
import {
  type AskJudge,
  buildTranscript,
  type CalibrationRules,
  judgeDimension,
  type JudgeRef,
  judgesFor,
  PROMPT_VERSION,
  type Rubric,
  type Transcript,
  type TranscriptTurn,
} from '@sieve/judging'
import { JudgeError } from '@sieve/llm'
import { agreement, type Agreement, type Pair } from './agreement.js'
import type { Label, ProjectLabel } from './labels.js'
import type { ScoreRecord } from '@sieve/scoring'

export interface DimensionCalibration {
  rubricId: string
  rubricVersion: string
  dimension: string
  /** Judge vs the first labeller. */
  judge: Agreement
  /** First vs second labeller, where a second labeller exists: the ceiling the judge can be held to. */
  humans: Agreement | undefined
  /** Labelled items the judge could not score (errors); left out of the figures. */
  judgeErrors: number
  /** Every rule of `judge.calibration` holds (`failed` is empty). */
  trusted: boolean
  /** The rules that do not hold, each with the figure and the bound it missed. */
  failed: FailedRule[]
}

/** A trust rule named by its `judge.calibration` key. */
export interface FailedRule {
  rule: keyof CalibrationRules
  message: string
}

export interface CalibrationReport extends CalibrationRules {
  promptVersion: string
  judgeModel: string
  dimensions: DimensionCalibration[]
}

export interface CalibrateDeps extends CalibrationRules {
  ask: AskJudge
  judge: JudgeRef
  panel: JudgeRef[] | undefined
  rubrics: ReadonlyMap<string, Rubric>
  /** Reads a labelled trace from storage; undefined when it is not there. */
  loadTrace?: (projectId: string, traceId: string) => Promise<Trace | undefined>
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`

/**
 * Why a dimension with these figures is not to be trusted; empty when it is. Within-one agreement
 * alone is not enough: a judge answering one level whatever it reads lands within one of most
 * labels (they cluster near the middle) while telling good from bad no better than chance, which
 * kappa shows. And a few labels prove nothing either way.
 */
export function failedRules(judge: Agreement, judgeErrors: number, rules: CalibrationRules): FailedRule[] {
  const failed: FailedRule[] = []
  if (judge.n < rules.minLabels) {
    failed.push({
      rule: 'minLabels',
      message: `${judge.n} ${judge.n === 1 ? 'label' : 'labels'} judged${judgeErrors ? ` (${judgeErrors} judge ${judgeErrors === 1 ? 'error' : 'errors'})` : ''}, fewer than ${rules.minLabels}`,
    })
  }
  if (judge.withinOne < rules.threshold)
    failed.push({ rule: 'threshold', message: `within-one agreement ${pct(judge.withinOne)} under ${pct(rules.threshold)}` })
  if (judge.weightedKappa < rules.minKappa)
    failed.push({ rule: 'minKappa', message: `weighted kappa ${judge.weightedKappa.toFixed(3)} under ${rules.minKappa}` })
  return failed
}

/** An inline transcript as the judge sees one built from spans; turns without a span id get `turn-N`. */
export function inlineTranscript(turns: NonNullable<Label['transcript']>): Transcript {
  const built = turns.map(
    (t, i): TranscriptTurn => ({
      index: i + 1,
      spanId: t.spanId ?? `turn-${i + 1}`,
      // A labelled tool turn is the tool's answer.
      role: t.role === 'tool' ? 'tool_result' : t.role,
      ...(t.name ? { name: t.name } : {}),
      text: t.text,
    }),
  )
  const userTurns = built.filter((t) => t.role === 'user').length
  return { turns: built, userTurns, tokens: 0, contentMissing: !built.some((t) => t.role === 'user' || t.role === 'assistant'), truncation: [] }
}

/**
 * Runs the judge, as configured, on every labelled dimension and compares with the labellers.
 * A dimension is trusted when it meets every rule of `judge.calibration` (`failedRules`).
 */
export async function calibrate(labels: readonly ProjectLabel[], deps: CalibrateDeps): Promise<CalibrationReport> {
  const judged = new Map<string, { rubric: Rubric; dimension: string; pairs: Pair[]; humans: Pair[]; errors: number }>()
  for (const label of labels) {
    const rubric = deps.rubrics.get(label.rubric)
    if (!rubric)
      throw new JudgeError(
        'LABELS_INVALID',
        `label for ${label.traceId ?? 'an inline transcript'} names rubric '${label.rubric}', known: ${[...deps.rubrics.keys()].join(', ')}`,
      )
    let transcript: Transcript
    if (label.transcript) transcript = inlineTranscript(label.transcript)
    else {
      const trace = deps.loadTrace ? await deps.loadTrace(label.projectId, label.traceId!) : undefined
      if (!trace)
        throw new JudgeError(
          'LABELS_INVALID',
          `trace ${label.traceId} (project ${label.projectId}) is not in storage; label it with an inline transcript instead`,
        )
      transcript = buildTranscript(trace)
    }
    for (const [dimensionId, human] of Object.entries(label.labels)) {
      const dimension = rubric.dimensions.find((d) => d.id === dimensionId)
      if (!dimension)
        throw new JudgeError(
          'LABELS_INVALID',
          `rubric '${rubric.id}' has no dimension '${dimensionId}' (has: ${rubric.dimensions.map((d) => d.id).join(', ')})`,
        )
      const key = `${rubric.id}.${dimensionId}`
      let entry = judged.get(key)
      if (!entry) judged.set(key, (entry = { rubric, dimension: dimensionId, pairs: [], humans: [], errors: 0 }))
      const second = label.secondLabels?.[dimensionId]
      if (second !== undefined) entry.humans.push([human, second])
      const result = await judgeDimension(deps.ask, judgesFor(dimension, deps.judge, deps.panel), rubric, dimension, transcript)
      if (result.error || result.level === undefined) entry.errors++
      else entry.pairs.push([human, result.level])
    }
  }
  const rules: CalibrationRules = { threshold: deps.threshold, minKappa: deps.minKappa, minLabels: deps.minLabels }
  const dimensions = [...judged.values()].map((e): DimensionCalibration => {
    const judge = agreement(e.pairs)
    const failed = failedRules(judge, e.errors, rules)
    return {
      rubricId: e.rubric.id,
      rubricVersion: e.rubric.version,
      dimension: e.dimension,
      judge,
      humans: e.humans.length ? agreement(e.humans) : undefined,
      judgeErrors: e.errors,
      trusted: failed.length === 0,
      failed,
    }
  })
  return { ...rules, promptVersion: PROMPT_VERSION, judgeModel: deps.judge.model, dimensions }
}

const ci = (a: Agreement) => `${(a.withinOneCi.low * 100).toFixed(1)}-${(a.withinOneCi.high * 100).toFixed(1)}%`

/** The report as a table for a terminal. */
export function formatCalibration(report: CalibrationReport): string {
  const head = [
    'dimension',
    'n',
    'exact',
    'within-1',
    'within-1 95% CI',
    'kappa',
    'qw kappa',
    'human exact',
    'human within-1',
    'human kappa',
    'human qw kappa',
    'errors',
    'status',
  ]
  const rows = report.dimensions.map((d) => [
    `${d.rubricId}.${d.dimension}`,
    String(d.judge.n),
    pct(d.judge.exact),
    pct(d.judge.withinOne),
    ci(d.judge),
    d.judge.kappa.toFixed(3),
    d.judge.weightedKappa.toFixed(3),
    d.humans ? pct(d.humans.exact) : '-',
    d.humans ? pct(d.humans.withinOne) : '-',
    d.humans ? d.humans.kappa.toFixed(3) : '-',
    d.humans ? d.humans.weightedKappa.toFixed(3) : '-',
    String(d.judgeErrors),
    d.trusted ? 'trusted' : `UNTRUSTED: ${d.failed.map((f) => f.message).join('; ')}`,
  ])
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()
  return [
    `judge ${report.judgeModel}, prompt v${report.promptVersion}; trusted at ${pct(report.threshold)} within-one agreement, ` +
      `quadratic-weighted kappa ${report.minKappa} and ${report.minLabels} labels per dimension, or more`,
    line(head),
    ...rows.map(line),
  ].join('\n')
}

/**
 * The report as `scores` rows of kind 'calibration', one per dimension, so dashboards can show
 * untrusted dimensions apart: scorer_name and scorer_version match the judge rows they qualify,
 * value is the within-one agreement, passed says trusted; detail holds the rules, both raters'
 * figures (the within-one interval among them) and the rules that failed. Re-calibrating replaces them.
 */
export function calibrationRecords(report: CalibrationReport, projectId: string, nowUnixNano: string): ScoreRecord[] {
  return report.dimensions.map((d) => ({
    projectId,
    traceId: '',
    spanId: '',
    scorerName: `${d.rubricId}.${d.dimension}`,
    kind: 'calibration' as const,
    scorerVersion: `${d.rubricVersion}+prompt.${report.promptVersion}`,
    configHash: '',
    value: d.judge.withinOne,
    passed: d.trusted,
    detail: JSON.stringify({
      threshold: report.threshold,
      minKappa: report.minKappa,
      minLabels: report.minLabels,
      judge: d.judge,
      humans: d.humans ?? null,
      judgeErrors: d.judgeErrors,
      failed: d.failed,
    }),
    evaluationName: `${d.rubricId}.${d.dimension}`,
    evaluationLabel: d.trusted ? 'trusted' : 'untrusted',
    evaluationExplanation:
      `within-one agreement ${pct(d.judge.withinOne)} (95% CI ${ci(d.judge)}), weighted kappa ${d.judge.weightedKappa.toFixed(3)} over ${d.judge.n} labelled traces` +
      (d.trusted ? '' : `; untrusted: ${d.failed.map((f) => f.message).join('; ')}`),
    judgeModel: report.judgeModel,
    promptVersion: report.promptVersion,
    rubricId: d.rubricId,
    rubricVersion: d.rubricVersion,
    evidence: '[]',
    sampleReason: 'calibration',
    costUsd: 0,
    inputTokens: 0,
    outputTokens: 0,
    error: '',
    traceStartTimeUnixNano: nowUnixNano,
    serviceName: '',
    agentVersion: '',
    tracePromptVersion: '',
    model: '',
    environment: '',
  }))
}
