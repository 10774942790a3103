import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'
import { traceView } from '../trace/view.js'
import { defineCheck } from './check.js'

export const toolLoop = defineCheck({
  name: 'tool_loop',
  version: '1',
  description: 'The same tool is not called with the same arguments over and over.',
  params: z.object({ maxRepeats: z.number().int().min(1).default(3) }),
  evaluate(trace, { maxRepeats }) {
    const calls = traceView(trace).toolCalls
    if (!calls.length) return { skipped: 'no tool calls' }
    const groups = new Map<string, { tool: string; arguments: unknown; spanIds: string[] }>()
    for (const call of calls) {
      const key = `${call.name}\u0000${canonicalJson(call.arguments)}`
      const group = groups.get(key) ?? { tool: call.name, arguments: call.arguments, spanIds: [] }
      group.spanIds.push(call.spanId)
      groups.set(key, group)
    }
    const loops = [...groups.values()].filter((g) => g.spanIds.length >= maxRepeats)
    const repeatedCalls = loops.reduce((n, g) => n + g.spanIds.length - 1, 0)
    return {
      value: 1 - repeatedCalls / calls.length,
      passed: loops.length === 0,
      detail: {
        message: loops.length
          ? loops.map((g) => `${g.tool} called ${g.spanIds.length} times with args ${canonicalJson(g.arguments)} (spans ${g.spanIds.join(', ')})`).join('; ')
          : `no tool called ${maxRepeats} or more times with the same arguments`,
        loops,
      },
    }
  },
})
