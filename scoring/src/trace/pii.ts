import { builtInDetectors, detectPii, type Detector } from '@sieve/pii'

/**
 * Structured PII in text: what the PII echo check compares between what a user said and what the
 * agent answered. The finding is done by the same detectors the dataset scrubber uses; each finding
 * gets a normalized form so "+1 (415) 555-0100" said by the user matches "415.555.0100" in the answer.
 */
export const PII_KINDS = ['email', 'phone', 'credit_card', 'ssn', 'iban', 'ip_address'] as const
export type PiiKind = (typeof PII_KINDS)[number]

export interface PiiFinding {
  kind: PiiKind
  /** As written in the text. */
  text: string
  /** Comparable form: lower-case email, digits only for numbers, upper-case compact IBAN. */
  normalized: string
}

const digits = (s: string): string => s.replace(/\D/g, '')

const KINDS: Record<PiiKind, { detector: Detector; normalize(text: string): string }> = {
  email: { detector: builtInDetectors.EMAIL, normalize: (t) => t.toLowerCase() },
  // Compared on the national part: the user may give the country code and the agent not.
  phone: { detector: builtInDetectors.PHONE, normalize: (t) => digits(t).slice(-9) },
  credit_card: { detector: builtInDetectors.CREDIT_CARD, normalize: digits },
  ssn: { detector: builtInDetectors.SSN, normalize: digits },
  iban: { detector: builtInDetectors.IBAN, normalize: (t) => t.replace(/\s/g, '').toUpperCase() },
  ip_address: { detector: builtInDetectors.IP_ADDRESS, normalize: (t) => t.toLowerCase() },
}
const KIND_OF = new Map<string, PiiKind>(PII_KINDS.map((k) => [KINDS[k].detector.type, k]))

export function findPii(text: string, kinds: readonly PiiKind[] = PII_KINDS): PiiFinding[] {
  // Overlaps are settled among the kinds asked for: a card number that also reads as a phone is a card.
  return detectPii(
    text,
    kinds.map((k) => KINDS[k].detector),
  ).map((f) => {
    const kind = KIND_OF.get(f.type)!
    const found = text.slice(f.start, f.end)
    return { kind, text: found, normalized: KINDS[kind].normalize(found) }
  })
}

/** Enough of a finding to recognise it in the trace without copying the PII into scores. */
export function maskPii(text: string): string {
  if (text.length <= 4) return '*'.repeat(text.length)
  const keep = Math.min(4, Math.floor(text.length / 4))
  return `${text.slice(0, 1)}${'*'.repeat(text.length - 1 - keep)}${text.slice(-keep)}`
}
