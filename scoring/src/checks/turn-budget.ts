import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { counted, defineCheck } from './check.js'

export const turnBudget = defineCheck({
  name: 'turn_budget',
  version: '1',
  description: 'The agent finished within a bound on model calls (agent turns) and tool calls.',
  params: z.object({
    maxModelCalls: z.number().int().min(1).default(20),
    maxToolCalls: z.number().int().min(0).default(40),
  }),
  evaluate(trace, { maxModelCalls, maxToolCalls }) {
    const view = traceView(trace)
    const modelCalls = view.llmCalls.length
    const toolCalls = view.toolCalls.length
    if (!modelCalls && !toolCalls) return { skipped: 'no model or tool calls' }
    const over = [
      modelCalls > maxModelCalls ? `${counted(modelCalls, 'model call')} (max ${maxModelCalls})` : '',
      toolCalls > maxToolCalls ? `${counted(toolCalls, 'tool call')} (max ${maxToolCalls})` : '',
    ].filter(Boolean)
    const ratio = Math.max(modelCalls / maxModelCalls, maxToolCalls ? toolCalls / maxToolCalls : 0)
    return {
      value: ratio <= 1 ? 1 : 1 / ratio,
      passed: over.length === 0,
      detail: {
        message: over.length ? `over budget: ${over.join(', ')}` : `${counted(modelCalls, 'model call')}, ${counted(toolCalls, 'tool call')}`,
        modelCalls,
        toolCalls,
      },
    }
  },
})
