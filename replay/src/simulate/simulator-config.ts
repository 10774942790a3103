import { zodProblems, type Config } from '@sieve/core'
import { priceTableSchema } from '@sieve/scoring'
import { aliasProblem } from '@sieve/llm'
import { z } from 'zod'

const count = z.number().int().positive()

/**
 * The `simulator` section of the config file plus the SIMULATOR_* variables: the LLM that plays
 * the user in `sieve simulate`. The same HTTP rules as the judge's (retries, backoff, timeout),
 * and a model pinned the same way, since a simulated user that changes under you changes every
 * conversation after it.
 */
export const simulatorSectionSchema = z.strictObject({
  seed: z.number().int().default(7),
  /** 0 by default: the same user turns for the same conversation, so repeats measure the agent. */
  temperature: z.number().min(0).max(2).default(0),
  /** Longest user turn, in tokens. */
  maxTokens: count.default(400),
  maxRetries: z.number().int().min(0).default(4),
  backoff: z.strictObject({ baseMs: count.default(500), maxMs: count.default(30_000) }).default({ baseMs: 500, maxMs: 30_000 }),
  timeoutMs: count.default(60_000),
  /** USD per million tokens by model, as judge.prices: what --max-cost counts. */
  prices: priceTableSchema.default({}),
  /** The model is pinned by the operator (a self-hosted model whose names carry no date). */
  pinned: z.boolean().default(false),
})

export interface SimulatorConfig extends z.output<typeof simulatorSectionSchema> {
  baseUrl: string
  apiKey: string
  model: string
}

export class SimulatorConfigError extends Error {
  readonly code = 'SIMULATE_CONFIG'
}

/** The simulated user's model as configured; undefined when SIMULATOR_MODEL is not set (scripted users only). */
export function loadSimulatorConfig(config: Pick<Config, 'simulator' | 'sections'>): SimulatorConfig | undefined {
  const section = simulatorSectionSchema.safeParse(config.sections.simulator ?? {})
  if (!section.success) throw new SimulatorConfigError(`simulator section: ${zodProblems(section.error, { at: 'simulator' }).join('; ')}`)
  const { baseUrl, apiKey, model, allowModelAlias } = config.simulator
  if (!model) return undefined
  const problems: string[] = []
  if (!baseUrl) problems.push('SIMULATOR_BASE_URL is required when SIMULATOR_MODEL is set (any OpenAI-compatible endpoint)')
  const alias = allowModelAlias
    ? undefined
    : aliasProblem(model, { role: 'simulator', allowVariable: 'SIMULATOR_ALLOW_MODEL_ALIAS', pinnedKey: 'simulator.pinned', pinned: section.data.pinned })
  if (alias) problems.push(alias)
  if (problems.length) throw new SimulatorConfigError(problems.join('; '))
  return { ...section.data, baseUrl: baseUrl!, apiKey: apiKey ?? 'unused', model }
}
