import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** What a golden example's `source` says of the trace it was exported from. */
export interface GoldenSource {
  traceId: string
  projectId: string
  service: string
  agentName: string
  agentVersion: string
  promptVersion: string
  model: string
  exportedAt: string
}

const EXAMPLE_FIELDS = {
  input: { messages: [{ role: 'user', content: 'Refund order A-1001, it arrived broken 45 days ago.' }] },
  context: { retrievedDocumentIds: [] as string[], toolResults: [] as unknown[] },
  expected: {} as Record<string, unknown>,
  observed: { output: 'Refunded.', toolCalls: [] as unknown[] },
  bucket: 'typical',
  tags: [] as string[],
  scores: [] as object[],
  reviewBy: '2026-04-15',
}

const SOURCE: GoldenSource = {
  traceId: 'a'.repeat(32),
  projectId: 'default',
  service: 'support',
  agentName: 'support',
  agentVersion: 'v12',
  promptVersion: '',
  model: 'gpt-4o-mini',
  exportedAt: '2026-01-15T10:00:00.000Z',
}

type Overrides = Partial<Record<keyof typeof EXAMPLE_FIELDS, unknown>> & { source?: Partial<GoldenSource> }

/**
 * A golden example as `sieve export` writes it (dataset/README.md), for tests of `sieve eval` and
 * its gate: a customer asking for a refund outside the 30-day policy, nothing expected, nothing
 * scored; `overrides` replace whole fields, `source` field by field.
 */
export function goldenExample<T extends Overrides>(id: string, overrides: T = {} as T) {
  const { source, ...fields } = overrides
  return { version: 1, id, ...EXAMPLE_FIELDS, ...fields, source: { ...SOURCE, ...source } } as Omit<typeof EXAMPLE_FIELDS, keyof T> &
    Omit<T, 'source'> & { version: number; id: string; source: GoldenSource }
}

/** The examples as a JSONL dataset `name` in `dir`; returns its path. */
export function writeDataset(dir: string, name: string, ...examples: object[]): string {
  const path = join(dir, name)
  writeFileSync(path, `${examples.map((e) => JSON.stringify(e)).join('\n')}\n`)
  return path
}
