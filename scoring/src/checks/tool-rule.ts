import type { ToolInvocation } from '@sieve/core'
import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'
import type { TraceView } from '../trace/view.js'
import { jsonSchemaParam, schemaProblems } from './json-schema.js'

/**
 * A tool named in config, optionally narrowed by its arguments: `args` lists values the call must
 * carry (a subset match), `argsSchema` a JSON Schema they must satisfy. Shared by required_tools
 * and prohibited_tools.
 */
export const toolRuleSchema = z.union([
  z
    .string()
    .min(1)
    .transform((name) => ({ name, args: undefined, argsSchema: undefined })),
  z.object({
    name: z.string().min(1),
    args: z.record(z.string(), z.unknown()).optional(),
    argsSchema: jsonSchemaParam.optional(),
  }),
])

export type ToolRule = z.output<typeof toolRuleSchema>

function containsSubset(actual: unknown, expected: unknown): boolean {
  if (expected === null || typeof expected !== 'object') return canonicalJson(actual) === canonicalJson(expected)
  if (Array.isArray(expected)) return canonicalJson(actual) === canonicalJson(expected)
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false
  return Object.entries(expected).every(([k, v]) => containsSubset((actual as Record<string, unknown>)[k], v))
}

export function matchesRule(call: ToolInvocation, rule: ToolRule): boolean {
  if (call.name !== rule.name) return false
  if (rule.args && !containsSubset(call.arguments, rule.args)) return false
  if (rule.argsSchema && schemaProblems(rule.argsSchema, call.arguments, 1).length) return false
  return true
}

export function describeRule(rule: ToolRule): string {
  const parts = [rule.name]
  if (rule.args) parts.push(`with args ${canonicalJson(rule.args)}`)
  if (rule.argsSchema) parts.push('with args matching the declared schema')
  return parts.join(' ')
}

/**
 * Whose calls a tool rule reads: `trace`, what this trace called (the default: a turn is judged on
 * what it did); `session`, also the calls of the history its model calls were sent, i.e. the earlier
 * turns of its session as far as this trace carries them.
 */
export const toolScopeParam = z.enum(['trace', 'session']).default('trace')

export function callsInScope(view: TraceView, scope: z.output<typeof toolScopeParam>): ToolInvocation[] {
  return scope === 'session' ? [...view.historyToolCalls, ...view.toolCalls] : view.toolCalls
}
