import { GENAI_ATTR } from '@sieve/core'
import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { defineCheck } from './check.js'
import { jsonSchemaParam, schemaProblems } from './json-schema.js'

const FENCE = /^```(?:json)?\s*([\s\S]*?)\s*```$/

function parseAnswer(text: string): { ok: true; value: unknown } | { ok: false } {
  const trimmed = text.trim()
  const body = FENCE.exec(trimmed)?.[1] ?? trimmed
  try {
    return { ok: true, value: JSON.parse(body) }
  } catch {
    return { ok: false }
  }
}

function fieldAt(value: unknown, path: string): unknown {
  let current = value
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

const isEmpty = (v: unknown): boolean =>
  v === undefined ||
  v === null ||
  (typeof v === 'string' && v.trim() === '') ||
  (Array.isArray(v) && v.length === 0) ||
  (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0)

/**
 * The final answer is JSON conforming to the declared schema, with the listed fields non-empty.
 * With no schema configured it still runs when the model was asked for JSON (`gen_ai.output.type`).
 */
export const structuredOutput = defineCheck({
  name: 'structured_output',
  version: '1',
  description: 'The final answer parses as JSON, conforms to the declared schema, and required fields are non-empty.',
  params: z.object({
    schema: jsonSchemaParam.optional(),
    /** Dotted paths that must hold a non-empty value. */
    requiredFields: z.array(z.string().min(1)).default([]),
  }),
  evaluate(trace, { schema, requiredFields }) {
    const view = traceView(trace)
    const askedForJson = view.llmCalls.some((c) => c.span.attributes[GENAI_ATTR.outputType] === 'json')
    if (!schema && !requiredFields.length && !askedForJson) return { skipped: 'no output schema declared and no JSON output requested' }
    const answer = view.finalAnswer
    if (!answer) return { skipped: 'no answer content captured' }
    const parsed = parseAnswer(answer.text)
    if (!parsed.ok) {
      return {
        value: 0,
        passed: false,
        detail: { message: `answer in span ${answer.spanId} is not JSON: ${answer.text.slice(0, 120)}`, spanId: answer.spanId },
      }
    }
    const problems = schema ? schemaProblems(schema, parsed.value) : []
    const emptyFields = requiredFields.filter((f) => isEmpty(fieldAt(parsed.value, f)))
    const failures = problems.length + emptyFields.length
    const checks = (schema ? 1 : 0) + requiredFields.length
    return {
      value: failures === 0 ? 1 : Math.max(0, 1 - failures / Math.max(checks, failures)),
      passed: failures === 0,
      detail: {
        message: failures
          ? [
              problems.length ? `answer in span ${answer.spanId} breaks the schema: ${problems.join('; ')}` : '',
              emptyFields.length ? `required fields empty: ${emptyFields.join(', ')}` : '',
            ]
              .filter(Boolean)
              .join('; ')
          : `answer in span ${answer.spanId} conforms`,
        spanId: answer.spanId,
        schemaProblems: problems,
        emptyFields,
      },
    }
  },
})
