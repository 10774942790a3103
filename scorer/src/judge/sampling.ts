import { createHash } from 'node:crypto'
import type { JudgeSection } from './config.js'
import { sliceMatches, type SliceFacts } from './slices.js'

/** The random sample's name wherever a slice name is expected (sample_reason, metrics). */
export const RANDOM_SLICE = 'random'

/**
 * A trace id's position in [0, 1) for one slice: the same on every scorer instance and every
 * re-run, and independent between slices (the slice name salts the hash).
 */
export function hashUnit(traceId: string, salt: string): number {
  const digest = createHash('sha256').update(salt).update('\u0000').update(traceId.toLowerCase()).digest()
  return digest.readUIntBE(0, 6) / 2 ** 48
}

/**
 * The slices that pick this trace, highest priority first, the random sample last. Budgets then
 * decide which of them (if any) gets to spend on it.
 */
export function selectingSlices(sampling: JudgeSection['sampling'], facts: SliceFacts): string[] {
  const picked: string[] = []
  for (const s of sampling.slices) {
    if (s.rate > 0 && sliceMatches(s.match, facts) && hashUnit(facts.trace.traceId, s.name) < s.rate) picked.push(s.name)
  }
  if (sampling.rate > 0 && hashUnit(facts.trace.traceId, RANDOM_SLICE) < sampling.rate) picked.push(RANDOM_SLICE)
  return picked
}
