import { isToolSpan } from '@sieve/core'
import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { counted, defineCheck } from './check.js'

/** Spans with error status. Tool spans are left to tool_errors, which knows about recovery, unless included. */
export const errorSpans = defineCheck({
  name: 'error_spans',
  version: '1',
  description: 'No span ended with error status (tool spans are judged by tool_errors).',
  params: z.object({
    maxErrors: z.number().int().min(0).default(0),
    includeToolSpans: z.boolean().default(false),
  }),
  evaluate(trace, { maxErrors, includeToolSpans }) {
    const spans = traceView(trace).spans
    const errors = spans
      .filter((s) => s.status.code === 'ERROR' && (includeToolSpans || !isToolSpan(s)))
      .map((s) => ({ spanId: s.spanId, name: s.name, message: s.status.message || String(s.attributes['error.type'] ?? '') }))
    return {
      value: errors.length ? Math.max(0, 1 - errors.length / spans.length) : 1,
      passed: errors.length <= maxErrors,
      detail: {
        message: errors.length
          ? errors.map((e) => `span ${e.spanId} (${e.name}) ended in error${e.message ? `: ${e.message}` : ''}`).join('; ')
          : `${counted(spans.length, 'span')}, none in error`,
        errors,
      },
    }
  },
})
