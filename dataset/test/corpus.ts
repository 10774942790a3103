import { readFileSync } from 'node:fs'
import type { Finding, Scrubber } from '../src/index.js'

/** One line of the hand-made corpus: values that must be replaced, values that must stay. */
export interface CorpusLine {
  kind: string
  text: string
  pii: { type: string; value: string }[]
  keep: string[]
}

export function readCorpus(): CorpusLine[] {
  const raw = readFileSync(new URL('./fixtures/scrub-corpus.jsonl', import.meta.url), 'utf8')
  return raw
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as CorpusLine)
}

/** Secrets may be reported as SECRET, URL_CREDENTIALS or URL_PARAM depending on where they sit. */
const SAME_FAMILY: Record<string, string[]> = {
  SECRET: ['SECRET', 'URL_PARAM', 'URL_CREDENTIALS'],
  URL_PARAM: ['URL_PARAM', 'SECRET'],
  URL_CREDENTIALS: ['URL_CREDENTIALS', 'SECRET'],
}

export interface CorpusResult {
  /** kind → [found, total] over the values to replace. */
  recall: Map<string, [number, number]>
  missed: string[]
  /** Kept values some finding touched. */
  overScrubbed: string[]
}

const covers = (findings: Finding[], start: number, end: number, types: string[]) =>
  findings.some((f) => f.start <= start && end <= f.end && types.includes(f.type))

export function runCorpus(scrubber: Scrubber, lines = readCorpus()): CorpusResult {
  const recall = new Map<string, [number, number]>()
  const missed: string[] = []
  const overScrubbed: string[] = []
  for (const line of lines) {
    const findings = scrubber.detect(line.text)
    for (const { type, value } of line.pii) {
      const start = line.text.indexOf(value)
      const ok = covers(findings, start, start + value.length, SAME_FAMILY[type] ?? [type])
      const figures = recall.get(line.kind) ?? [0, 0]
      recall.set(line.kind, [figures[0] + (ok ? 1 : 0), figures[1] + 1])
      if (!ok)
        missed.push(
          `${line.kind} ${type} ${JSON.stringify(value)} in ${JSON.stringify(line.text)} → ${JSON.stringify(findings.map((f) => `${f.type}:${line.text.slice(f.start, f.end)}`))}`,
        )
    }
    for (const value of line.keep) {
      const start = line.text.indexOf(value)
      const end = start + value.length
      const hit = findings.filter((f) => f.start < end && start < f.end)
      if (hit.length)
        overScrubbed.push(
          `${JSON.stringify(value)} in ${JSON.stringify(line.text)} → ${hit.map((f) => `${f.type}:${line.text.slice(f.start, f.end)}`).join(', ')}`,
        )
    }
  }
  return { recall, missed, overScrubbed }
}
