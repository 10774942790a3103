import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { toolCallsUnseen } from './absent-inputs.js'
import { defineCheck, ratioVerdict } from './check.js'
import { callsInScope, describeRule, matchesRule, toolRuleSchema, toolScopeParam } from './tool-rule.js'

export const requiredTools = defineCheck({
  name: 'required_tools',
  version: '2',
  description: 'Every listed tool was called by this trace (with the expected arguments, where given); with scope session, by it or earlier in its session.',
  params: z.object({ tools: z.array(toolRuleSchema).default([]), scope: toolScopeParam }),
  evaluate(trace, { tools, scope }) {
    if (!tools.length) return { skipped: 'no required tools configured' }
    const view = traceView(trace)
    const unseen = toolCallsUnseen(view)
    if (unseen) return unseen
    const calls = callsInScope(view, scope)
    const missing = tools.filter((rule) => !calls.some((call) => matchesRule(call, rule)))
    const calledNames = [...new Set(calls.map((c) => c.name))]
    return ratioVerdict(tools.length, missing.length, {
      message: missing.length
        ? `required tool not called: ${missing.map(describeRule).join('; ')} (called: ${calledNames.join(', ') || 'none'})`
        : `all ${tools.length} required tools were called`,
      missing: missing.map((r) => r.name),
      called: calledNames,
    })
  },
})
