import { nanosToMillis } from '@sieve/core'
import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { defineCheck } from './check.js'

export const latencyBudget = defineCheck({
  name: 'latency_budget',
  version: '1',
  description: 'The trace (first span start to last span end) and each model call stayed within their time bounds.',
  params: z.object({
    maxMs: z.number().positive().default(60_000),
    maxModelCallMs: z.number().positive().optional(),
  }),
  evaluate(trace, { maxMs, maxModelCallMs }) {
    const view = traceView(trace)
    if (!view.spans.length) return { skipped: 'no spans' }
    const totalMs = nanosToMillis(view.endNs - view.startNs)
    const slowCalls = maxModelCallMs
      ? view.llmCalls
          .map((c) => ({ spanId: c.span.spanId, ms: nanosToMillis(BigInt(c.span.endTimeUnixNano) - BigInt(c.span.startTimeUnixNano)) }))
          .filter((c) => c.ms > maxModelCallMs)
      : []
    const over = totalMs > maxMs
    const problems = [
      over ? `trace took ${totalMs} ms (max ${maxMs})` : '',
      ...slowCalls.map((c) => `model call in span ${c.spanId} took ${c.ms} ms (max ${maxModelCallMs})`),
    ].filter(Boolean)
    return {
      value: over ? maxMs / totalMs : slowCalls.length ? 0.5 : 1,
      passed: problems.length === 0,
      detail: { message: problems.length ? problems.join('; ') : `trace took ${totalMs} ms`, totalMs, slowCalls },
    }
  },
})
