import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { counted, defineCheck } from './check.js'

export const truncation = defineCheck({
  name: 'truncation',
  version: '1',
  description: 'No model call stopped because it ran out of tokens (finish_reason length).',
  params: z.object({
    finishReasons: z.array(z.string()).default(['length', 'max_tokens']),
  }),
  evaluate(trace, { finishReasons }) {
    const calls = traceView(trace).llmCalls
    if (!calls.length) return { skipped: 'no model calls' }
    const truncated = calls
      .filter((c) => c.finishReasons.some((r) => finishReasons.includes(r)))
      .map((c) => ({ spanId: c.span.spanId, finishReasons: c.finishReasons }))
    return {
      value: 1 - truncated.length / calls.length,
      passed: truncated.length === 0,
      detail: {
        message: truncated.length
          ? truncated.map((t) => `model output truncated in span ${t.spanId} (finish_reason ${t.finishReasons.join(', ')})`).join('; ')
          : `${counted(calls.length, 'model call')}, none truncated`,
        truncated,
      },
    }
  },
})
