import type { Config } from '@sieve/core'
import { ConfigError, zodProblems } from '@sieve/core'
import { scrubOptionsSchema, type ResolvedScrubOptions } from './options.js'

/**
 * The scrubber's settings: the `scrub` section of the config file, and SIEVE_SCRUB_SECRET (which
 * wins over a secret in the file, so the key can stay out of it).
 */
export function loadScrubOptions(config: Pick<Config, 'sections'>, env: Record<string, string | undefined> = process.env): ResolvedScrubOptions {
  const section = (config.sections.scrub ?? {}) as Record<string, unknown>
  const input = env.SIEVE_SCRUB_SECRET ? { ...section, secret: env.SIEVE_SCRUB_SECRET } : section
  const result = scrubOptionsSchema.safeParse(input)
  if (!result.success) {
    throw new ConfigError(zodProblems(result.error, { at: 'scrub' }))
  }
  return result.data
}
