import { zodProblems, type Config } from '@sieve/core'
import { z } from 'zod'
import { type CalibrationRules, judgeSectionSchema, loadRubrics, type Rubric } from '@sieve/judging'
import { JudgeError } from '@sieve/llm'

/**
 * What fills a review queue (one per project and rubric). The rules read the judge's verdict on a
 * trace once it is stored; the first rule that takes the trace names why it is in the queue.
 */
const ruleFields = {
  /** The judges of a panel disagreed on a risky dimension (`needs_review`). */
  panelDisagreement: z.boolean(),
  /** A level stood only on a quote that is not in the turn it cites (`unverified_evidence`). */
  unverifiedEvidence: z.boolean(),
  /** A dimension judged is marked untrusted: its agreement with people broke a trust rule. */
  untrustedDimensions: z.boolean(),
  /** A dimension judged has fewer labelled traces than `judge.calibration.minLabels`. */
  tooFewLabels: z.boolean(),
  /**
   * A share of every judged trace, chosen by a hash of its id: agreement measured on the traffic the
   * judge sees, not only on the traces it was unsure of.
   */
  randomShare: z.number().min(0).max(1),
  /** The share of labelled traces offered to a second reviewer, for human-vs-human agreement. */
  secondLabeller: z.number().min(0).max(1),
  /** Rules stop adding once this many traces of the queue wait for their first label. */
  maxOpen: z.number().int().min(1).max(100_000),
}

/** A whole set of rules, as the dashboard's form saves them. */
export const reviewRulesSchema = z.strictObject(ruleFields)
export type ReviewRules = z.infer<typeof reviewRulesSchema>

/** Which rule put a trace in a queue, in the order the rules are tried; `manual` is a person's add. */
export const QUEUE_REASONS = ['panel_disagreement', 'unverified_evidence', 'untrusted', 'few_labels', 'random', 'manual'] as const
export type QueueReason = (typeof QUEUE_REASONS)[number]

export const DEFAULT_REVIEW_RULES: ReviewRules = {
  panelDisagreement: true,
  unverifiedEvidence: true,
  untrustedDimensions: true,
  tooFewLabels: true,
  randomShare: 0.02,
  secondLabeller: 0.1,
  maxOpen: 500,
}

const overrides = z.strictObject(ruleFields).partial()

/** The `review` section of the config file: rules for every rubric's queue, and per rubric. */
export const reviewSectionSchema = z.strictObject({
  rules: overrides.default({}),
  byRubric: z.record(z.string(), overrides).default({}),
})
export type ReviewSection = z.infer<typeof reviewSectionSchema>

/** What the review queues need beside storage: the rules of the config file, the rubrics, the trust rules. */
export interface ReviewSetup {
  section: ReviewSection
  rubrics: ReadonlyMap<string, Rubric>
  calibration: CalibrationRules
}

/** The config file's rules for one rubric's queues (version 0): defaults, then `rules`, then `byRubric`. */
export function configuredRules(section: ReviewSection, rubricId: string): ReviewRules {
  return { ...DEFAULT_REVIEW_RULES, ...section.rules, ...section.byRubric[rubricId] } as ReviewRules
}

/**
 * The `review` section, the rubrics and the trust rules of the `judge` section, checked: a
 * `CONFIG_INVALID` naming each problem (a rubric `byRubric` names that is not loaded among them).
 * Needs no judge model: the dashboard serves the review page whether or not this process judges.
 */
export function loadReviewSetup(config: Pick<Config, 'sections'>): ReviewSetup {
  const judge = judgeSectionSchema.safeParse(config.sections.judge ?? {})
  if (!judge.success) throw new JudgeError('CONFIG_INVALID', `judge section: ${zodProblems(judge.error).join('; ')}`)
  const review = reviewSectionSchema.safeParse(config.sections.review ?? {})
  if (!review.success) throw new JudgeError('CONFIG_INVALID', `review section: ${zodProblems(review.error).join('; ')}`)
  const rubrics = loadRubrics(judge.data.rubricsDir)
  const unknown = Object.keys(review.data.byRubric).filter((id) => !rubrics.has(id))
  if (unknown.length) {
    throw new JudgeError(
      'CONFIG_INVALID',
      `review section: byRubric names ${unknown.map((id) => `'${id}'`).join(', ')}, not a loaded rubric (loaded: ${[...rubrics.keys()].join(', ')})`,
    )
  }
  return { section: review.data, rubrics, calibration: judge.data.calibration }
}
