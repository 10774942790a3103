import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'

/**
 * JSON Schemas declared in config (tool arguments, structured outputs), turned into zod validators
 * with zod's own converter. Compiled once per schema object; a schema that cannot be converted is a
 * config error, reported when the config loads.
 */
export const jsonSchemaParam = z.record(z.string(), z.unknown()).superRefine((schema, ctx) => {
  try {
    z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `not a usable JSON Schema: ${(err as Error).message}` })
  }
})

const byObject = new WeakMap<object, z.ZodType>()
/** Schemas read from traces (tool definitions) are new objects every time but the same text. */
const byText = new Map<string, z.ZodType>()
const MAX_CACHED_TEXTS = 1000

export function compileJsonSchema(schema: object): z.ZodType {
  let validator = byObject.get(schema)
  if (validator) return validator
  const text = canonicalJson(schema)
  validator = byText.get(text)
  if (!validator) {
    validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0])
    if (byText.size >= MAX_CACHED_TEXTS) byText.delete(byText.keys().next().value!)
    byText.set(text, validator)
  }
  byObject.set(schema, validator)
  return validator
}

/** Problems of `value` against `schema`, each as `path: message`; empty when it conforms. */
export function schemaProblems(schema: object, value: unknown, limit = 5): string[] {
  let validator: z.ZodType
  try {
    validator = compileJsonSchema(schema)
  } catch (err) {
    return [`schema cannot be used: ${(err as Error).message}`]
  }
  const result = validator.safeParse(value)
  if (result.success) return []
  return result.error.issues.slice(0, limit).map((issue) => `${issue.path.length ? issue.path.join('.') : '(root)'}: ${issue.message}`)
}
