import { z } from 'zod'
import { expectationRules, expectationShape } from '@sieve/dataset'
import { COMBINE, isVariantName, TEMPLATE_NAMES } from './template-names.js'

/** Version of the scenario schema below; bump when a field changes meaning. */
export const SCENARIO_VERSION = 1

const text = z.string().trim().min(1)
const texts = z.array(text)
/** One phrase or several: `handoff: "a human colleague"` reads as well as a list. */
const phrases = z.union([text.transform((p) => [p]), texts])

/**
 * One conversation to drive an agent through, with a simulated user: who the user is, how it
 * opens, what it knows, when it stops and what must hold. A YAML file each, `version: 1`.
 */
export const scenarioSchema = z.strictObject({
  version: z.literal(SCENARIO_VERSION),
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'ids are lower-case letters and digits joined by - or _'),
  title: text,
  /** Who the simulated user is; an LLM user plays from this, a scripted one only reads its lines. */
  persona: z.strictObject({
    name: text.optional(),
    /** Who they are, in a sentence or two. */
    who: text,
    tone: text.default('neutral'),
    /** What they want from the conversation: their goal, reached or not. */
    wants: text,
    /** What the agent must not give them (a refund outside the policy, another customer's data): what the scenario probes. */
    mustNotGet: texts.default([]),
    /** How they behave; templates add to these. */
    traits: texts.default([]),
  }),
  /** The user's first message. */
  opening: text,
  facts: z
    .strictObject({
      /** What the user knows and may say (an order number, a delivery date). */
      user: texts.default([]),
      /** What the agent's tools may see, passed to the agent as `fixtures` in each turn's input. */
      fixtures: z.record(z.string(), z.unknown()).default({}),
    })
    .default({ user: [], fixtures: {} }),
  stop: z
    .strictObject({
      /** User turns at most (each one agent call). */
      maxTurns: z.number().int().min(1).max(200).default(8),
      /** The user may end the conversation once its goal is reached (an LLM user answers [DONE]). */
      userMayEnd: z.boolean().default(true),
      /** A phrase in the agent's answer (case aside) that means it handed the user off: the run stops there. */
      handoff: phrases.default([]),
    })
    .default({ maxTurns: 8, userMayEnd: true, handoff: [] }),
  /** What must hold over the whole conversation; the agent's scorecard from the config applies as well. */
  expect: z.strictObject({ ...expectationShape, checks: expectationShape.checks.default({}) }).superRefine(expectationRules('expect.checks')),
  tags: texts.default([]),
  /**
   * Edge-case templates this scenario also runs under, each a variant of its own (`sieve simulate
   * --list-templates`); `impatient+pii-overshare` combines templates into one variant.
   */
  templates: z
    .array(
      z.string().refine((name) => isVariantName(name), {
        error: (i) => `no such template ${JSON.stringify(i.input)} (known: ${TEMPLATE_NAMES.join(', ')}; combine with ${COMBINE}, each once)`,
      }),
    )
    .default([]),
  /** The scripted user: the user turns after the opening, one per line; `[DONE]` ends the conversation as reached. */
  user: z.strictObject({ script: texts.min(1) }).optional(),
})

export type Scenario = z.output<typeof scenarioSchema>
