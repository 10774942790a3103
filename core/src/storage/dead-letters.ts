import type { Storage } from './storage.js'
import type { Span } from '../span.js'
import { wellFormed } from '../span-values.js'

/** A span storage refused, and the full error that said so (it may quote the span's row). */
export interface DeadLetter {
  span: Span
  error: string
}

/** The span as JSON (the Span model); one that will not serialize is kept as its identity. */
function spanJson(span: Span): string {
  try {
    return JSON.stringify(span)
  } catch (err) {
    const { projectId, traceId, spanId } = span
    return JSON.stringify({ projectId, traceId, spanId, unserializable: (err as Error).message })
  }
}

/**
 * Writes spans into `dead_letters` (migration 0009), one row each under its own project: what
 * the embedded ingester keeps of a span storage refused, for an operator to read, fix and
 * replay. Every value goes in as text of its own, so these rows cannot fail the way the span did.
 */
export async function insertDeadLetters(client: Storage, letters: readonly DeadLetter[]): Promise<void> {
  if (letters.length === 0) return
  await client.insert({
    table: 'dead_letters',
    format: 'JSONEachRow',
    values: letters.map(({ span, error }) => ({
      project_id: span.projectId,
      trace_id: wellFormed(span.traceId),
      span_id: wellFormed(span.spanId),
      error: wellFormed(error),
      span: spanJson(span),
    })),
  })
}
