import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { defineCheck, ratioVerdict } from './check.js'
import { describeRule, matchesRule, toolRuleSchema } from './tool-rule.js'

export const requiredTools = defineCheck({
  name: 'required_tools',
  version: '1',
  description: 'Every listed tool was called (with the expected arguments, where given).',
  params: z.object({ tools: z.array(toolRuleSchema).default([]) }),
  evaluate(trace, { tools }) {
    if (!tools.length) return { skipped: 'no required tools configured' }
    const calls = traceView(trace).toolCalls
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
