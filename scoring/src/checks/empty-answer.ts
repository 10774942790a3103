import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { contentAbsent } from './absent-inputs.js'
import { defineCheck } from './check.js'

export const emptyAnswer = defineCheck({
  name: 'empty_answer',
  version: '2',
  description: 'The agent gave a non-empty final answer.',
  params: z.object({ minChars: z.number().int().min(1).default(1) }),
  evaluate(trace, { minChars }) {
    const view = traceView(trace)
    const absent = contentAbsent(view)
    if (absent) return absent
    const answer = view.finalAnswer
    // A trace that called no model (an agent being built: OpenLLMetry's create_agent) had nothing to answer.
    if (!answer && !view.llmCalls.length) return { skipped: 'no model call in the trace' }
    const length = answer ? answer.text.replace(/[\s\p{P}]/gu, '').length : 0
    const passed = length >= minChars
    return {
      value: passed ? 1 : 0,
      passed,
      detail: {
        message: passed
          ? `answer of ${answer?.text.length} characters in span ${answer?.spanId}`
          : answer
            ? `answer in span ${answer.spanId} is empty (${length} non-punctuation characters)`
            : 'the trace has no answer from the model',
        spanId: answer?.spanId ?? '',
      },
    }
  },
})
