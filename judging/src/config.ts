import { z } from 'zod'
import { zodProblems, type Config } from '@sieve/core'
import { sliceMatchSchema } from './slices.js'
import { aliasProblem, JudgeError } from '@sieve/llm'
import { priceOf, priceTableSchema } from '@sieve/scoring'

/**
 * The `judge` section of the config file plus the JUDGE_* variables. Everything has a default
 * except the endpoint and model: with no JUDGE_MODEL the judge stage is off.
 */
const count = z.number().int().positive()

const budgetLimits = z.strictObject({
  callsPerMinute: count.optional(),
  callsPerDay: count.optional(),
  /** USD per UTC day, from token usage and `prices`. */
  spendPerDay: z.number().positive().optional(),
})

const sliceBudget = z.strictObject({ callsPerMinute: count.optional(), callsPerDay: count.optional() })

const slice = z.strictObject({
  name: z.string().regex(/^[a-z][a-z0-9_-]*$/, 'slice names are lower-case words joined by - or _'),
  match: sliceMatchSchema,
  /** Fraction of matching traces judged (chosen by trace id hash, so every instance agrees). */
  rate: z.number().min(0).max(1).default(1),
  budget: sliceBudget.default({}),
  /**
   * Stop this slice once any global budget is used up to this fraction. Give lower-priority slices
   * a lower value so they stop first and leave the rest to the slices above them.
   */
  stopAt: z.number().gt(0).max(1).default(1),
})

const judgeRef = z.strictObject({ model: z.string().min(1).optional(), seed: z.number().int().optional() })

export const judgeSectionSchema = z.strictObject({
  /** Folder with more rubric files, added to (or overriding by id) the shipped ones. */
  rubricsDir: z.string().optional(),
  /** Which rubric judges which agent: keys are agent names or service names. */
  rubrics: z
    .strictObject({ default: z.string().default('generic'), byAgent: z.record(z.string(), z.string()).default({}) })
    .default({ default: 'generic', byAgent: {} }),
  seed: z.number().int().default(7),
  /** Judge calls in flight at once. */
  concurrency: count.default(4),
  /** Traces waiting for the judge; beyond this, sampled traces are skipped (counted) rather than slow the scorer. */
  queueSize: count.default(1000),
  /** Retries of one call on 429 / 5xx / network errors, with exponential backoff and jitter. */
  maxRetries: z.number().int().min(0).default(4),
  backoff: z.strictObject({ baseMs: count.default(500), maxMs: count.default(30_000) }).default({ baseMs: 500, maxMs: 30_000 }),
  timeoutMs: count.default(60_000),
  /** USD per million tokens by judge model (the scorer's price table format: `model*` is a prefix). */
  prices: priceTableSchema.default({}),
  sampling: z
    .strictObject({
      /** Random sample of all traces. */
      rate: z.number().min(0).max(1).default(0.05),
      budget: sliceBudget.default({}),
      stopAt: z.number().gt(0).max(1).default(1),
      /** Targeted slices, highest priority first. */
      slices: z.array(slice).default([]),
    })
    .default({ rate: 0.05, budget: {}, stopAt: 1, slices: [] }),
  budgets: budgetLimits.default({}),
  /** Judges for risky rubric dimensions: majority wins, any disagreement puts the trace up for review. */
  panel: z.strictObject({ judges: z.array(judgeRef).min(2) }).optional(),
  /**
   * The judge models are pinned by the operator: for endpoints whose model names carry no date or
   * revision (a self-hosted model that changes only when you deploy another). A name saying
   * `latest` is refused all the same.
   */
  pinned: z.boolean().default(false),
  /** When `sieve judge calibrate` marks a rubric dimension trusted: every rule must hold. */
  calibration: z
    .strictObject({
      /** Within-one agreement with the labeller. */
      threshold: z.number().min(0).max(1).default(0.85),
      /**
       * Quadratic-weighted Cohen's kappa with the labeller: agreement beyond what the level frequencies
       * give by chance. A judge answering one level whatever it reads can score high within-one
       * agreement (most labels sit near the middle) and has a kappa of 0.
       */
      minKappa: z.number().min(-1).max(1).default(0.6),
      /** Labels the judge scored, per dimension: fewer say too little to trust (or distrust) anything. */
      minLabels: count.default(20),
    })
    .default({ threshold: 0.85, minKappa: 0.6, minLabels: 20 }),
  /**
   * Verdicts on a conversation that is incomplete (trace closed before its root span ended, content
   * cut to a size limit) are stored and flagged; by default they are kept out of means.
   */
  includeTruncated: z.boolean().default(false),
})

export type JudgeSection = z.infer<typeof judgeSectionSchema>
export type SliceConfig = JudgeSection['sampling']['slices'][number]
export type BudgetLimits = z.infer<typeof budgetLimits>
export type CalibrationRules = JudgeSection['calibration']
export type SliceBudget = z.infer<typeof sliceBudget>

export interface JudgeConfig extends JudgeSection {
  baseUrl: string
  apiKey: string
  model: string
}

/** Reads and checks the judge settings; `undefined` when no judge model is configured. */
export function loadJudgeConfig(config: Pick<Config, 'judge' | 'sections'>): JudgeConfig | undefined {
  const result = judgeSectionSchema.safeParse(config.sections.judge ?? {})
  if (!result.success) {
    throw new JudgeError('CONFIG_INVALID', `judge section: ${zodProblems(result.error).join('; ')}`)
  }
  const { baseUrl, apiKey, model, allowModelAlias } = config.judge
  if (!model) return undefined
  const section = result.data
  const problems: string[] = []
  if (!baseUrl) problems.push('JUDGE_BASE_URL is required when JUDGE_MODEL is set (any OpenAI-compatible endpoint, e.g. https://api.openai.com/v1)')
  const models = [model, ...(section.panel?.judges.map((j) => j.model).filter((m): m is string => !!m) ?? [])]
  if (!allowModelAlias) {
    const pin = { role: 'judge', allowVariable: 'JUDGE_ALLOW_MODEL_ALIAS', pinnedKey: 'judge.pinned', pinned: section.pinned }
    for (const m of models) {
      const problem = aliasProblem(m, pin)
      if (problem) problems.push(problem)
    }
  }
  if (section.budgets.spendPerDay !== undefined) {
    for (const m of models) if (!priceOf(m, section.prices)) problems.push(`judge.budgets.spendPerDay needs a price for model '${m}' in judge.prices`)
  }
  const names = new Set<string>()
  for (const s of section.sampling.slices) {
    if (names.has(s.name) || s.name === 'random') problems.push(`judge.sampling.slices: slice name '${s.name}' is used twice (or is the reserved 'random')`)
    names.add(s.name)
  }
  if (problems.length) throw new JudgeError('CONFIG_INVALID', problems.join('; '))
  return { ...section, baseUrl: baseUrl!, apiKey: apiKey ?? 'unused', model }
}
