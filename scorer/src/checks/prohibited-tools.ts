import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'
import { traceView } from '../trace/view.js'
import { defineCheck } from './check.js'
import { describeRule, matchesRule, toolRuleSchema } from './tool-rule.js'

export const prohibitedTools = defineCheck({
  name: 'prohibited_tools',
  version: '1',
  description: 'No listed tool was called (with the listed arguments, where given).',
  params: z.object({ tools: z.array(toolRuleSchema).default([]) }),
  evaluate(trace, { tools }) {
    if (!tools.length) return { skipped: 'no prohibited tools configured' }
    const violations = []
    for (const call of traceView(trace).toolCalls) {
      const rule = tools.find((r) => matchesRule(call, r))
      if (rule) violations.push({ spanId: call.spanId, tool: call.name, arguments: call.arguments, rule: describeRule(rule) })
    }
    return {
      value: violations.length ? 0 : 1,
      passed: violations.length === 0,
      detail: {
        message: violations.length
          ? violations.map((v) => `prohibited tool ${v.tool} called in span ${v.spanId} with args ${canonicalJson(v.arguments)}`).join('; ')
          : `none of ${tools.map((r) => r.name).join(', ')} was called`,
        violations,
      },
    }
  },
})
