import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { counted, defineCheck, ratioVerdict } from './check.js'
import { jsonSchemaParam, schemaProblems } from './json-schema.js'

/**
 * Tool arguments parse and match the tool's declared schema: from config first, else from the tool
 * definitions the model was offered in the trace (`gen_ai.tool.definitions`). With definitions in the
 * trace, a call to a tool that was never offered is invalid too.
 */
export const toolCallValidity = defineCheck({
  name: 'tool_call_validity',
  version: '1',
  description: 'Tool-call arguments parse as JSON and match the declared JSON Schema of the tool.',
  params: z.object({
    /** Tool name → JSON Schema of its arguments. */
    tools: z.record(z.string(), jsonSchemaParam).default({}),
    allowUnknownTools: z.boolean().default(false),
  }),
  evaluate(trace, params) {
    const view = traceView(trace)
    if (!view.toolCalls.length) return { skipped: 'no tool calls' }
    const declared = new Set([...Object.keys(params.tools), ...view.toolDefinitions.keys()])
    const invalid: { spanId: string; tool: string; problems: string[] }[] = []
    let checked = 0
    for (const call of view.toolCalls) {
      const schema = params.tools[call.name] ?? view.toolDefinitions.get(call.name)
      const problems: string[] = []
      if (!declared.has(call.name)) {
        if (declared.size && !params.allowUnknownTools) problems.push(`tool '${call.name}' is not among the declared tools (${[...declared].join(', ')})`)
      } else if (call.rawArguments !== undefined) {
        const raw = call.rawArguments.trim()
        if (typeof call.arguments === 'string' && (raw.startsWith('{') || raw.startsWith('['))) {
          problems.push(`arguments are not valid JSON: ${raw.slice(0, 120)}`)
        } else if (schema && typeof schema === 'object') {
          problems.push(...schemaProblems(schema, call.arguments))
        }
      }
      if (declared.has(call.name) || declared.size) checked++
      if (problems.length) invalid.push({ spanId: call.spanId, tool: call.name, problems })
    }
    if (!checked) return { skipped: 'no tool schemas declared in config or in the trace' }
    return ratioVerdict(checked, invalid.length, {
      message: invalid.length
        ? invalid.map((i) => `invalid call to ${i.tool} in span ${i.spanId}: ${i.problems.join('; ')}`).join(' | ')
        : `${counted(checked, 'tool call')} ${checked === 1 ? 'matches its' : 'match their'} declared schema${checked === 1 ? '' : 's'}`,
      invalid,
    })
  },
})
