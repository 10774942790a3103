import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'
import { traceView } from '../trace/view.js'
import { toolCallsUnseen } from './absent-inputs.js'
import { defineCheck } from './check.js'
import { callsInScope, describeRule, matchesRule, toolRuleSchema, toolScopeParam } from './tool-rule.js'

export const prohibitedTools = defineCheck({
  name: 'prohibited_tools',
  version: '2',
  description: 'No listed tool was called by this trace (with the listed arguments, where given); with scope session, nor earlier in its session.',
  params: z.object({ tools: z.array(toolRuleSchema).default([]), scope: toolScopeParam }),
  evaluate(trace, { tools, scope }) {
    if (!tools.length) return { skipped: 'no prohibited tools configured' }
    const view = traceView(trace)
    const unseen = toolCallsUnseen(view)
    if (unseen) return unseen
    const violations = []
    for (const call of callsInScope(view, scope)) {
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
