import type { ScoreRecord } from '@sieve/scoring'
import { hashUnit } from '../sampling.js'
import type { QueueReason, ReviewRules } from '@sieve/review'

/** What the rules read besides the verdict: the project's trust in effect and labels per dimension. */
export interface QueueFacts {
  /** `<rubric>.<dimension>` → trusted; absent when never calibrated. */
  trusted: (name: string) => boolean | undefined
  /** `<rubric>.<dimension>` → traces a person labelled. */
  labelled: (name: string) => number
  /** `judge.calibration.minLabels`. */
  minLabels: number
}

/** The judge's verdict on one dimension, as the rules read it from its stored row. */
export interface DimensionVerdict {
  name: string
  label: string
  level: number | null
}

export function dimensionVerdicts(records: readonly ScoreRecord[]): DimensionVerdict[] {
  return records
    .filter((r) => r.kind === 'judge' && r.scorerName !== r.rubricId)
    .map((r) => {
      let level: number | null = null
      try {
        const parsed = (JSON.parse(r.detail) as { level?: unknown }).level
        level = typeof parsed === 'number' ? parsed : null
      } catch {
        // A row without a readable level is a verdict the rules cannot weigh.
      }
      return { name: r.scorerName, label: r.evaluationLabel, level }
    })
}

/**
 * Whether the rules put a judged trace in its rubric's queue, and why: the first rule, in the order
 * below, that takes it, with the dimensions that made it. A trace with no level on any dimension (the
 * judge failed) gives a person nothing to compare with and is not taken.
 */
export function queueReason(
  traceId: string,
  verdicts: readonly DimensionVerdict[],
  rules: ReviewRules,
  facts: QueueFacts,
): { reason: QueueReason; dimensions: string[] } | undefined {
  if (!verdicts.some((v) => v.level !== null)) return undefined
  const names = (pick: (v: DimensionVerdict) => boolean) => verdicts.filter(pick).map((v) => v.name)
  const tried: [boolean, QueueReason, () => string[]][] = [
    [rules.panelDisagreement, 'panel_disagreement', () => names((v) => v.label === 'needs_review')],
    [rules.unverifiedEvidence, 'unverified_evidence', () => names((v) => v.label === 'unverified_evidence')],
    [rules.untrustedDimensions, 'untrusted', () => names((v) => facts.trusted(v.name) === false)],
    [rules.tooFewLabels, 'few_labels', () => names((v) => facts.labelled(v.name) < facts.minLabels)],
  ]
  for (const [on, reason, dimensions] of tried) {
    if (!on) continue
    const found = dimensions()
    if (found.length) return { reason, dimensions: found }
  }
  // Salted apart from the judge's own sampling, so the share is of judged traces, not a slice of a slice.
  if (rules.randomShare > 0 && hashUnit(traceId, 'review') < rules.randomShare) return { reason: 'random', dimensions: [] }
  return undefined
}
