import { ConfigError, zodProblems } from '@sieve/core'
import { scorerOptionsSchema, type ScorerOptions } from '../scorer.js'

/** The `scorer` section of the config file (assembly timing, memory bounds), validated. */
export function loadScorerOptions(sections: Record<string, unknown>): ScorerOptions {
  const parsed = scorerOptionsSchema.safeParse(sections.scorer ?? {})
  if (parsed.success) return parsed.data
  throw new ConfigError(zodProblems(parsed.error, { at: 'scorer' }))
}
