import { z } from 'zod'
import { BUILT_IN_TYPES } from '@sieve/pii'

const regex = z
  .string()
  .min(1)
  .refine(
    (source) => {
      try {
        new RegExp(source, 'u')
        return true
      } catch {
        return false
      }
    },
    { message: 'must be a valid regular expression' },
  )

/**
 * How the scrubber is set up, from the `scrub` section of the config file and `SIEVE_SCRUB_SECRET`.
 * Business ids are kept by default; a team that treats its order or account numbers as personal
 * lists them under `sensitive`.
 */
export const scrubOptionsSchema = z.object({
  /** With a secret, placeholders are keyed hashes, stable across the whole dataset. */
  secret: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Built-in detectors to switch off. */
  disable: z.array(z.enum(BUILT_IN_TYPES)).default([]),
  /** Extra values to replace: `{ type: ORDER_ID, pattern: "ORD-\\d{6}" }`. */
  sensitive: z.array(z.object({ type: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be UPPER_SNAKE_CASE'), pattern: regex })).default([]),
  /** Values that are never replaced even when a detector matches them (a support address, a test card). */
  allow: z.array(regex).default([]),
})

export type ScrubOptions = z.input<typeof scrubOptionsSchema>
export type ResolvedScrubOptions = z.output<typeof scrubOptionsSchema>
