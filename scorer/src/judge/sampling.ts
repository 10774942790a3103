import type { JudgeSection } from './config.js'
import { sliceMatches, type SliceFacts } from './slices.js'

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
  const mix = (code: number) => {
    h1 = Math.imul(h1 ^ code, 2654435761)
    h2 = Math.imul(h2 ^ code, 1597334677)
  }
  for (let i = 0; i < salt.length; i++) mix(salt.charCodeAt(i))
  mix(0)
  for (let i = 0; i < traceId.length; i++) {
    const c = traceId.charCodeAt(i)
    mix(c >= 65 && c <= 90 ? c + 32 : c) // ids are hex: case does not matter
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
