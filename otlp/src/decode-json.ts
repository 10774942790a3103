import { SPAN_KINDS, STATUS_CODES, setAttribute, wellFormed, type AttributeValue, type Attributes, type Span } from '@sieve/core'
import type { z } from 'zod'
import { DecodedRequest, spanPath } from './decoded-request.js'
import { OtlpDecodeError } from './otlp-error.js'
import { parseExactJson } from './parse-exact-json.js'
import { anyValueSchema, exportRequestSchema, keyValueSchema, spanSchema, type AnyValueJson, type KeyValueJson, type SpanJson } from './otlp-json-schema.js'
import { MAX_NESTING, NestingError, serviceNameOf, spanProblem } from './span-checks.js'

/*
 * OTLP/JSON into Span objects. JSON numbers beyond 2^53 (nanosecond timestamps, int64 attribute
 * values) would be rounded by JSON.parse, so `parseExactJson` reads their digits as strings.
 * JSON escapes can spell lone surrogates (`"\ud800"`, half an emoji), which have no UTF-8 form:
 * every string taken from the request goes through `wellFormed`, which replaces them by U+FFFD.
 * Attribute values nest by recursion, bounded by MAX_NESTING (JSON.parse itself does not recurse).
 */

/** The first few zod issues as `path: message`, the path written as in the OTLP/JSON document. */
export const describe = (error: z.ZodError): string =>
  error.issues
    .slice(0, 3)
    .map(
      (issue) =>
        `${
          issue.path
            .map(String)
            .join('.')
            .replace(/\.(\d+)/g, '[$1]') || 'body'
        }: ${issue.message}`,
    )
    .join('; ')

/** Decodes an OTLP/JSON ExportTraceServiceRequest; throws OtlpDecodeError when it is not one. */
export function decodeJsonRequest(body: Buffer, projectId: string): DecodedRequest {
  const parsed = exportRequestSchema.safeParse(parseExactJson(body.toString('utf8')))
  if (!parsed.success) throw new OtlpDecodeError('JSON_SHAPE', `not an OTLP ExportTraceServiceRequest: ${describe(parsed.error)}`)
  const out = new DecodedRequest()
  ;(parsed.data.resourceSpans ?? []).forEach((rs, ri) => {
    const resource = sharedAttributes(rs.resource?.attributes, `resourceSpans[${ri}].resource`)
    const serviceName = serviceNameOf(resource)
    ;(rs.scopeSpans ?? []).forEach((ss, si) => {
      const attributes = sharedAttributes(ss.scope?.attributes, `resourceSpans[${ri}].scopeSpans[${si}].scope`)
      const scope = { name: wellFormed(ss.scope?.name ?? ''), version: wellFormed(ss.scope?.version ?? ''), attributes }
      ;(ss.spans ?? []).forEach((raw, i) => {
        const where = spanPath(ri, si, i)
        const json = spanSchema.safeParse(raw)
        if (!json.success) return out.reject(where, describe(json.error))
        let span: Span
        try {
          span = toSpan(json.data, projectId, serviceName, resource, scope)
        } catch (err) {
          if (err instanceof FieldError) return out.reject(where, err.message)
          throw err
        }
        const problem = spanProblem(span)
        if (problem === undefined) out.spans.push(span)
        else out.reject(where, problem)
      })
    })
  })
  return out
}

/** A field of one span (or of the resource or scope it sits in) that cannot be read. */
export class FieldError extends Error {}

/** Resource and scope attributes: a bad one spoils every span beneath, so the whole request is refused. */
function sharedAttributes(list: KeyValueJson[] | undefined, where: string): Attributes {
  try {
    return attributesOf(list)
  } catch (err) {
    if (err instanceof FieldError) throw new OtlpDecodeError('JSON_SHAPE', `not an OTLP ExportTraceServiceRequest: ${where}.attributes: ${err.message}`)
    throw err
  }
}

function toSpan(s: SpanJson, projectId: string, serviceName: string, resource: Attributes, scope: Span['scope']): Span {
  return {
    projectId,
    traceId: hexId(s.traceId, 'trace id'),
    spanId: hexId(s.spanId, 'span id'),
    parentSpanId: hexId(s.parentSpanId, 'parent span id'),
    traceState: wellFormed(s.traceState ?? ''),
    name: wellFormed(s.name ?? ''),
    kind: enumName(SPAN_KINDS, s.kind, 'SPAN_KIND_'),
    startTimeUnixNano: nanos(s.startTimeUnixNano),
    endTimeUnixNano: nanos(s.endTimeUnixNano),
    status: { code: enumName(STATUS_CODES, s.status?.code, 'STATUS_CODE_'), message: wellFormed(s.status?.message ?? '') },
    flags: s.flags ?? 0,
    serviceName,
    scope,
    attributes: attributesOf(s.attributes),
    resource,
    events: (s.events ?? []).map((e) => ({
      timeUnixNano: nanos(e.timeUnixNano),
      name: wellFormed(e.name ?? ''),
      attributes: attributesOf(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount ?? 0,
    })),
    links: (s.links ?? []).map((l) => ({
      traceId: hexId(l.traceId, 'link trace id'),
      spanId: hexId(l.spanId, 'link span id'),
      traceState: wellFormed(l.traceState ?? ''),
      attributes: attributesOf(l.attributes),
      flags: l.flags ?? 0,
      droppedAttributesCount: l.droppedAttributesCount ?? 0,
    })),
    droppedAttributesCount: s.droppedAttributesCount ?? 0,
    droppedEventsCount: s.droppedEventsCount ?? 0,
    droppedLinksCount: s.droppedLinksCount ?? 0,
  }
}

/** OTLP/JSON ids are hex (either case); Sieve's are lower-case. Length is checked with the span. */
export function hexId(value: string | undefined, what: string): string {
  if (value === undefined || value === '') return ''
  if (value.length % 2 !== 0 || !/^[0-9a-fA-F]+$/.test(value)) throw new FieldError(`${what} '${value.slice(0, 40)}' is not hex`)
  return value.toLowerCase()
}

export const nanos = (value: string | number | undefined): string => (value === undefined ? '0' : BigInt(value).toString())

function enumName<T extends string>(names: readonly T[], value: string | number | undefined, prefix: string): T {
  if (typeof value === 'number') return names[value] ?? names[0]!
  if (value === undefined) return names[0]!
  return value.slice(prefix.length) as T
}

/** `depth`: how many arrays and key-value lists enclose these attributes' values. */
export function attributesOf(list: KeyValueJson[] | undefined, depth = 0): Attributes {
  const out: Attributes = {}
  if (list) for (const kv of list) setAttribute(out, wellFormed(kv.key), anyValueOf(kv.value, depth))
  return out
}

/** An item inside an array or key-value list attribute, checked as the decoder reaches it. */
function nested<T extends z.ZodType>(schema: T, item: unknown): z.infer<T> {
  const parsed = schema.safeParse(item)
  if (!parsed.success) throw new FieldError(`attribute value: ${describe(parsed.error)}`)
  return parsed.data
}

/** The depth of the values inside an array or key-value list at `depth`; past MAX_NESTING the span is rejected. */
function nestedDepth(depth: number): number {
  if (depth >= MAX_NESTING) throw new FieldError(new NestingError().message)
  return depth + 1
}

/**
 * Mirrors the protobuf decoder: exact ints (string beyond 2^53), bytes as base64, empty as null,
 * NaN and the infinities by name (as OTLP/JSON writes them: JSON has no number for them).
 */
export function anyValueOf(v: AnyValueJson | undefined, depth: number): AttributeValue {
  if (v === undefined) return null
  if (v.stringValue !== undefined) return wellFormed(v.stringValue)
  if (v.boolValue !== undefined) return v.boolValue
  if (v.intValue !== undefined) {
    if (typeof v.intValue === 'number') return v.intValue
    const n = Number(v.intValue)
    return Number.isSafeInteger(n) ? n : BigInt(v.intValue).toString()
  }
  if (v.doubleValue !== undefined) return v.doubleValue
  if (v.arrayValue !== undefined) {
    const inner = nestedDepth(depth)
    return (v.arrayValue.values ?? []).map((item) => anyValueOf(nested(anyValueSchema, item), inner))
  }
  if (v.kvlistValue !== undefined) {
    const inner = nestedDepth(depth)
    return attributesOf(
      (v.kvlistValue.values ?? []).map((item) => nested(keyValueSchema, item)),
      inner,
    )
  }
  // Re-encoded so URL-safe or unpadded base64 reads back as the protobuf path writes it.
  if (v.bytesValue !== undefined) return Buffer.from(v.bytesValue, 'base64').toString('base64')
  return null
}
