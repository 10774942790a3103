import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { tokensAbsent } from './absent-inputs.js'
import { defineCheck } from './check.js'

export const tokenBudget = defineCheck({
  name: 'token_budget',
  version: '2',
  description: 'Tokens used by the model calls of the trace stay within bounds (total, input, output).',
  params: z.object({
    maxTotalTokens: z.number().int().positive().default(200_000),
    maxInputTokens: z.number().int().positive().optional(),
    maxOutputTokens: z.number().int().positive().optional(),
  }),
  evaluate(trace, { maxTotalTokens, maxInputTokens, maxOutputTokens }) {
    const view = traceView(trace)
    const absent = tokensAbsent(view)
    if (absent) return absent
    const calls = view.llmCalls
    let input = 0
    let output = 0
    for (const c of calls) {
      input += c.fields.inputTokens
      output += c.fields.outputTokens
    }
    const total = input + output
    const over = [
      total > maxTotalTokens ? `${total} tokens (max ${maxTotalTokens})` : '',
      maxInputTokens && input > maxInputTokens ? `${input} input tokens (max ${maxInputTokens})` : '',
      maxOutputTokens && output > maxOutputTokens ? `${output} output tokens (max ${maxOutputTokens})` : '',
    ].filter(Boolean)
    return {
      value: total > maxTotalTokens ? maxTotalTokens / total : over.length ? 0.5 : 1,
      passed: over.length === 0,
      detail: {
        message: over.length ? `over budget: ${over.join(', ')}` : `${total} tokens (${input} in, ${output} out)`,
        inputTokens: input,
        outputTokens: output,
      },
    }
  },
})
