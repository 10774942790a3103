import type { SliceLimits } from './budget.js'
import { type JudgeSection, type SliceFacts, sliceMatches } from '@sieve/judging'

/** The random sample's name wherever a slice name is expected (sample_reason, metrics). */
export const RANDOM_SLICE = 'random'

/**
 * A trace id's position in [0, 1) for one slice: the same on every scorer instance and every
 * re-run, and independent between slices (the slice name salts the hash). A 53-bit multiply-xor
 * hash (cyrb53): uniform enough for sampling and far cheaper than a cryptographic digest, which
 * matters because it runs on the scorer's path for every trace.
 */
export function hashUnit(traceId: string, salt: string): number {
  let h1 = 0xdeadbeef
  let h2 = 0x41c6ce57
  // The salt, a 0 separator, then the id lower-cased (ids are hex: case does not matter).
  const total = salt.length + 1 + traceId.length
  for (let i = 0; i < total; i++) {
    let c = i < salt.length ? salt.charCodeAt(i) : i === salt.length ? 0 : traceId.charCodeAt(i - salt.length - 1)
    if (c >= 65 && c <= 90 && i > salt.length) c += 32
    h1 = Math.imul(h1 ^ c, 2654435761)
    h2 = Math.imul(h2 ^ c, 1597334677)
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909)
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909)
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)) / 2 ** 53
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

/** Each slice's own budget and `stopAt` by slice name, the random sample's under RANDOM_SLICE. */
export function sliceLimitsOf(sampling: JudgeSection['sampling']): Map<string, SliceLimits> {
  const limits = new Map<string, SliceLimits>(sampling.slices.map((s) => [s.name, { ...s.budget, stopAt: s.stopAt }]))
  limits.set(RANDOM_SLICE, { ...sampling.budget, stopAt: sampling.stopAt })
  return limits
}

/**
 * The sampling feedback that arrives after its trace was scored is decided by: the
 * negative-feedback slices alone, in their order, and no random sample.
 */
export function lateFeedbackSampling(sampling: JudgeSection['sampling']): JudgeSection['sampling'] {
  return { ...sampling, rate: 0, slices: sampling.slices.filter((s) => s.match.kind === 'negative_feedback') }
}
