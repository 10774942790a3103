import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { counted, defineCheck } from './check.js'

/**
 * Says when a trace was scored before it was whole: closed by its maximum age or by the memory
 * limit. Other checks then judged a partial trace, and this row says so next to them.
 */
export const traceComplete = defineCheck({
  name: 'trace_complete',
  version: '1',
  description: 'The trace was scored whole (its root span ended and the quiet period passed).',
  params: z.object({}),
  evaluate(trace) {
    const view = traceView(trace)
    if (trace.complete) return { value: 1, passed: true, detail: { message: `complete trace of ${counted(trace.spans.length, 'span')}` } }
    return {
      value: 0,
      passed: false,
      detail: {
        message: view.root
          ? `scored incomplete: closed by the memory limit before the quiet period passed (${trace.spans.length} spans)`
          : `scored incomplete: the root span never arrived before the maximum age or the memory limit (${trace.spans.length} spans)`,
        spans: trace.spans.length,
        rootArrived: !!view.root,
      },
    }
  },
})
