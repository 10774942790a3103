import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'

/** Span lookups shared by the SDK tests. */
export function byName(spans: ReadableSpan[], name: string): ReadableSpan {
  const span = spans.find((s) => s.name === name)
  if (!span) throw new Error(`no span named '${name}' among: ${spans.map((s) => s.name).join(', ')}`)
  return span
}

export const parentId = (span: ReadableSpan) => span.parentSpanContext?.spanId
export const json = (span: ReadableSpan, key: string) => JSON.parse(String(span.attributes[key]))
