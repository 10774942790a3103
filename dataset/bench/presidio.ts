import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Scrubber } from '../src/index.js'

/**
 * Span-level evaluation of the scrubber on presidio-research's synthetic dataset.
 *
 * Gold types are split three ways. PII: what Sieve replaces, counted for recall and precision.
 * NEUTRAL: dates, of which Sieve replaces only dates of birth, so a detection on a date is neither
 * right nor wrong. KEPT: organisations, places, nationalities, titles, ages and web domains, which
 * Sieve leaves in place; a detection overlapping only those is a false positive.
 */
export const PII_TYPES = [
  'PERSON',
  'STREET_ADDRESS',
  'PHONE_NUMBER',
  'EMAIL_ADDRESS',
  'CREDIT_CARD',
  'IBAN_CODE',
  'US_SSN',
  'IP_ADDRESS',
  'US_DRIVER_LICENSE',
  'ZIP_CODE',
] as const
export const NEUTRAL_TYPES = ['DATE_TIME'] as const
export const KEPT_TYPES = ['ORGANIZATION', 'GPE', 'NRP', 'TITLE', 'AGE', 'DOMAIN_NAME'] as const
/** Types with a checksum or a fixed pattern, held to recall ≥ 0.99. */
export const PATTERN_TYPES = ['EMAIL_ADDRESS', 'CREDIT_CARD', 'IBAN_CODE', 'US_SSN', 'IP_ADDRESS'] as const

interface Record_ {
  full_text: string
  spans: { entity_type: string; start_position: number; end_position: number; entity_value: string }[]
}

export interface TypeFigures {
  gold: number
  found: number
  recall: number
}

export interface Evaluation {
  records: number
  perType: Record<string, TypeFigures>
  /** Predicted spans overlapping a PII span / all predicted spans not only on neutral ones. */
  precision: number
  recall: number
  truePositives: number
  falsePositives: number
  /** False positives that fell on a kept type (organisation, place, …), by that type. */
  falsePositivesOnKept: Record<string, number>
  falsePositiveExamples: string[]
  missedExamples: string[]
}

/** `<repo>/../shared/datasets` (where CI lays shared/), then /work/shared/datasets, or SIEVE_DATASETS_DIR. */
export function datasetsDir(): string {
  if (process.env.SIEVE_DATASETS_DIR) return process.env.SIEVE_DATASETS_DIR
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../..')
  const candidates = [join(repo, '../shared/datasets'), '/work/shared/datasets']
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!
}

export function presidioDatasetPath(): string {
  return join(datasetsDir(), 'pii/presidio-research/synth_dataset_v2.json')
}

const overlaps = (a: { start: number; end: number }, b: { start: number; end: number }) => a.start < b.end && b.start < a.end

/**
 * presidio-research's test set (tests/data/generated_small.json) names two types differently from
 * synth_dataset_v2: any part of an address, and places. Read with this, it is scored the same way.
 */
export const GENERATED_SMALL_TYPES: Record<string, string> = { ADDRESS: 'STREET_ADDRESS', LOCATION: 'GPE' }

/** `types` renames the file's entity types to the ones above (see GENERATED_SMALL_TYPES). */
export function evaluate(scrubber: Scrubber, path = presidioDatasetPath(), types: Record<string, string> = {}): Evaluation {
  const records = JSON.parse(readFileSync(path, 'utf8')) as Record_[]
  for (const record of records) for (const span of record.spans) span.entity_type = types[span.entity_type] ?? span.entity_type
  const pii = new Set<string>(PII_TYPES)
  const neutral = new Set<string>(NEUTRAL_TYPES)
  const perType: Record<string, TypeFigures> = {}
  for (const t of [...PII_TYPES, ...NEUTRAL_TYPES]) perType[t] = { gold: 0, found: 0, recall: 0 }
  let tp = 0
  let fp = 0
  const fpOnKept: Record<string, number> = {}
  const fpExamples: string[] = []
  const missed: string[] = []
  for (const record of records) {
    const predicted = scrubber.detect(record.full_text)
    const gold = record.spans.map((s) => ({ type: s.entity_type, start: s.start_position, end: s.end_position, value: s.entity_value }))
    for (const g of gold) {
      const figures = perType[g.type]
      if (!figures) continue
      figures.gold++
      if (predicted.some((p) => overlaps(p, g))) figures.found++
      else if (pii.has(g.type) && missed.length < 400) missed.push(`${g.type}: ${JSON.stringify(g.value)} in ${JSON.stringify(record.full_text.slice(0, 160))}`)
    }
    for (const p of predicted) {
      const hit = gold.filter((g) => overlaps(p, g))
      if (hit.some((g) => pii.has(g.type))) tp++
      else if (hit.some((g) => neutral.has(g.type))) continue
      else {
        fp++
        for (const g of hit) fpOnKept[g.type] = (fpOnKept[g.type] ?? 0) + 1
        if (fpExamples.length < 400)
          fpExamples.push(`${p.type}: ${JSON.stringify(record.full_text.slice(p.start, p.end))} in ${JSON.stringify(record.full_text.slice(0, 160))}`)
      }
    }
  }
  let gold = 0
  let found = 0
  for (const [type, f] of Object.entries(perType)) {
    f.recall = f.gold ? f.found / f.gold : 1
    if (pii.has(type)) {
      gold += f.gold
      found += f.found
    }
  }
  return {
    records: records.length,
    perType,
    precision: tp + fp ? tp / (tp + fp) : 1,
    recall: gold ? found / gold : 1,
    truePositives: tp,
    falsePositives: fp,
    falsePositivesOnKept: fpOnKept,
    falsePositiveExamples: fpExamples,
    missedExamples: missed,
  }
}
