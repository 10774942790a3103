import { readFileSync } from 'node:fs'
import { feedbackSchema, listTracesQuerySchema, traceIdSchema } from '@sieve/http'
import { z } from 'zod'
import { compareQuery, exportBody, qualityQuery, scorecardQuery, sessionIdParam, worstQuery } from './params.js'
import { calibrationQuery, labelBody, labelsExportQuery, nextQuery, queuesQuery, rubricQuery, rulesBody, traceActionBody } from './review/params.js'

/**
 * The HTTP API of a Sieve server as an OpenAPI 3.1 document, generated from the zod schemas the
 * routes validate with, so the document cannot describe a parameter the code does not take.
 * Served at `GET /api/openapi.json`; committed as `dashboard/openapi.json` (`npm run openapi`
 * writes it, a test holds the two equal). Responses are described in words: only requests have
 * schemas in the code. The owner's `/ops` routes (CLI commands while `sieve up` runs) are internal
 * and left out.
 */

type JsonSchema = Record<string, unknown>
type Method = 'get' | 'post'

interface RouteDoc {
  method: Method
  path: string
  /** Unique across the document: what generated clients name the call. */
  operationId: string
  summary: string
  tag: 'ingest' | 'read' | 'review' | 'operations'
  /** A strict zod object whose properties are the query parameters. */
  query?: z.ZodType
  pathParams?: Record<string, { description: string; schema: z.ZodType }>
  body?: { schema: z.ZodType } | { contentTypes: Record<string, string> }
  responses: Record<number, string>
  /** Public: no API key asked (health, readiness, this document). */
  open?: boolean
}

const inputSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    // A schema whose metadata names its JSON type (queryCount: a number sent as text) is that type alone.
    override: ({ zodSchema, jsonSchema }) => {
      if ((z.globalRegistry.get(zodSchema) as JsonSchema | undefined)?.type) delete jsonSchema.anyOf
    },
  }) as JsonSchema
  return rest
}

const TRACE_ID = { description: 'trace id, 32 hex digits', schema: traceIdSchema }
/** What both OTLP routes answer a request they refuse before reading it (the receiver's shared checks, otlp-exchange.ts). */
const OTLP_REFUSALS = {
  401: 'no or unknown API key',
  413: 'body larger than SIEVE_MAX_BODY_BYTES, as sent or decompressed',
  415: 'content type other than application/x-protobuf or application/json',
}
const ERRORS = { 400: 'a parameter or the body is invalid: `{error: {code, message}}` naming it', 401: 'no or unknown API key' }
const RANGE = 'Times: ISO 8601 (a date first) or Unix milliseconds; `from` defaults to `to` minus 24 h, `to` to now; at most 93 days.'

export const ROUTES: readonly RouteDoc[] = [
  {
    method: 'post',
    path: '/v1/traces',
    operationId: 'exportTraces',
    tag: 'ingest',
    summary: 'OTLP/HTTP trace export (ExportTraceServiceRequest), protobuf or JSON, gzip optional. 200 means stored.',
    body: { contentTypes: { 'application/x-protobuf': 'binary ExportTraceServiceRequest', 'application/json': 'ExportTraceServiceRequest in OTLP/JSON' } },
    responses: {
      200: 'stored; `partialSuccess.rejectedSpans` and `errorMessage` name spans refused for their content (never retried)',
      400: "nothing in the request could be stored (google.rpc.Status in the request's format)",
      ...OTLP_REFUSALS,
      429: 'the queue is full: retry after `Retry-After` seconds',
      503: 'storage or the queue cannot take spans now: retry',
    },
  },
  {
    method: 'post',
    path: '/v1/logs',
    operationId: 'exportLogs',
    tag: 'ingest',
    summary:
      'OTLP/HTTP logs export (ExportLogsServiceRequest), protobuf or JSON, gzip optional, for the GenAI events instrumentations send as log records: each is stored as an event of the span it names. 200 means stored.',
    body: { contentTypes: { 'application/x-protobuf': 'binary ExportLogsServiceRequest', 'application/json': 'ExportLogsServiceRequest in OTLP/JSON' } },
    responses: {
      200: 'the GenAI events stored; `partialSuccess.rejectedLogRecords` and `errorMessage` name the records not kept, any that is not a GenAI event of a span (never retried), even when that is every record',
      400: "the body is not a logs export request (google.rpc.Status in the request's format)",
      ...OTLP_REFUSALS,
      503: 'storage cannot take the events now: retry',
    },
  },
  {
    method: 'post',
    path: '/v1/feedback',
    operationId: 'sendFeedback',
    tag: 'ingest',
    summary: "A user's judgement of a trace (thumbs, rating, comment), as the SDK's `feedback()` sends it.",
    body: { schema: feedbackSchema },
    responses: { 201: '`{feedbackId}` once stored', ...ERRORS, 413: 'body over 64 KiB', 415: 'charset or Content-Encoding not supported' },
  },
  {
    method: 'get',
    path: '/api/traces',
    operationId: 'listTraces',
    tag: 'read',
    summary: 'Traces of the project, newest first.',
    query: listTracesQuerySchema,
    responses: { 200: '`{traces: [...]}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/traces/{traceId}',
    operationId: 'getTrace',
    tag: 'read',
    pathParams: { traceId: TRACE_ID },
    summary: "A trace's span tree in causal order, its conversation, session id, scores and feedback.",
    responses: { 200: '`{trace, conversation, sessionId, scores, feedback}`', ...ERRORS, 404: 'no such trace in the project' },
  },
  {
    method: 'get',
    path: '/api/traces/{traceId}/quality',
    operationId: 'getTraceQuality',
    tag: 'read',
    pathParams: { traceId: TRACE_ID },
    summary: "A trace's scores and feedback only.",
    responses: { 200: '`{scores, feedback}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/sessions/{sessionId}',
    operationId: 'getSession',
    tag: 'read',
    pathParams: { sessionId: { description: 'session id as sent (gen_ai.conversation.id or session.id), URL-encoded', schema: sessionIdParam } },
    summary: 'The traces of one session and the conversation they hold together.',
    responses: { 200: '`{sessionId, traces, earlierTracesOmitted, conversation}`', ...ERRORS, 404: 'no trace of that session in the project' },
  },
  {
    method: 'get',
    path: '/api/quality',
    operationId: 'getQuality',
    tag: 'read',
    summary: `Bucketed pass rates, mean scores, traces, tokens and judge coverage per check or dimension. ${RANGE}`,
    query: qualityQuery,
    responses: { 200: '`{buckets, series, traces, ...}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/worst',
    operationId: 'getWorstTraces',
    tag: 'read',
    summary: `Lowest-scoring traces of a range. ${RANGE}`,
    query: worstQuery,
    responses: { 200: '`{traces: [...]}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/compare',
    operationId: 'compareVersions',
    tag: 'read',
    summary: 'Two versions side by side, per check, with the significance of each change (default range 30 days).',
    query: compareQuery,
    responses: { 200: '`{by, a, b, traces, checks}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/scorecard',
    operationId: 'getScorecard',
    tag: 'read',
    summary: `Scorecard verdicts of a range and the hard gates that failed. ${RANGE}`,
    query: scorecardQuery,
    responses: { 200: '`{traces, passed, passRate, gates}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/status',
    operationId: 'getStatus',
    tag: 'read',
    summary: 'Whether a judge is configured, and the oldest trace of the last 30 days.',
    responses: { 200: '`{judge: {on, model}, oldestTrace}`', 401: ERRORS[401] },
  },
  {
    method: 'get',
    path: '/api/pipeline',
    operationId: 'getPipelineCounters',
    tag: 'operations',
    summary: "The collector's counters that say spans were received, rejected, dropped or failed.",
    responses: { 200: '`{available, counters}`', 401: ERRORS[401] },
  },
  {
    method: 'post',
    path: '/api/export',
    operationId: 'exportDataset',
    tag: 'read',
    summary: "The selected traces as PII-scrubbed golden examples in the project's dataset.",
    body: { schema: exportBody },
    responses: { 200: '`{exported, skipped, destination}`', ...ERRORS, 501: 'no dataset exporter in this process' },
  },
  {
    method: 'get',
    path: '/api/review/queues',
    operationId: 'listReviewQueues',
    tag: 'review',
    summary: "The project's review queues, one per rubric: the rules in effect, traces in each, those nobody labelled, those waiting for `reviewer`.",
    query: queuesQuery,
    responses: { 200: '`{queues: [{rubric, title, rules, items, open, waiting?}]}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/review/next',
    operationId: 'getNextReviewItem',
    tag: 'review',
    query: nextQuery,
    summary:
      "The oldest trace of a queue waiting for this reviewer (or, with `traceId`, that trace), with its conversation and the rubric's dimensions and anchored levels. Never the judge's verdict.",
    responses: {
      200: '`{rubric, remaining, item: {traceId, reason, dimensions, addedAt, addedBy, labellers, labelledByYou, skippedByYou, stored, rootName, conversation} | null}`',
      ...ERRORS,
      404: "`traceId` is not in the project's queue",
    },
  },
  {
    method: 'post',
    path: '/api/review/labels',
    operationId: 'labelTrace',
    tag: 'review',
    body: { schema: labelBody },
    summary:
      "A reviewer's levels for a queued trace, stored as feedback (source `annotator`); the rubric's calibration is recomputed. Answers the judge's verdict beside them.",
    responses: {
      201: '`{stored, traceId, verdict: {judged, dimensions, overall}, others, calibration}`',
      ...ERRORS,
      404: "the trace is not in the project's queue",
    },
  },
  {
    method: 'post',
    path: '/api/review/skip',
    operationId: 'skipReviewItem',
    tag: 'review',
    body: { schema: traceActionBody },
    summary: 'The reviewer passes over a queued trace: not offered to them again until undone.',
    responses: { 200: '`{skipped, traceId}`', ...ERRORS, 404: "the trace is not in the project's queue" },
  },
  {
    method: 'post',
    path: '/api/review/undo',
    operationId: 'undoReviewAction',
    tag: 'review',
    body: { schema: traceActionBody },
    summary: "Withdraws the reviewer's label of a trace (and takes back a skip); the calibration is recomputed.",
    responses: { 200: '`{traceId, withdrawn, unskipped, calibration}`', ...ERRORS, 404: "the trace is not in the project's queue" },
  },
  {
    method: 'post',
    path: '/api/review/queue',
    operationId: 'addToReviewQueue',
    tag: 'review',
    body: { schema: traceActionBody },
    summary: "Puts a trace of the project in a rubric's queue (the trace view's button). A trace enters a queue once.",
    responses: {
      200: '`{added: false, why}`: it is in the queue already',
      201: '`{added: true, traceId, rubric}`',
      ...ERRORS,
      404: 'no such trace in the project',
    },
  },
  {
    method: 'get',
    path: '/api/review/rules',
    operationId: 'getReviewRules',
    tag: 'review',
    query: rubricQuery,
    summary: "A queue's rules in effect (the config file's, version 0, until a version is saved), the config file's, and every saved version.",
    responses: { 200: '`{rubric, inEffect, configured, history}`', ...ERRORS },
  },
  {
    method: 'post',
    path: '/api/review/rules',
    operationId: 'saveReviewRules',
    tag: 'review',
    body: { schema: rulesBody },
    summary: "Saves a new version of a queue's rules (the dashboard's form).",
    responses: { 201: '`{rubric, version, rules}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/review/calibration',
    operationId: 'getCalibration',
    tag: 'review',
    query: calibrationQuery,
    summary: "A rubric's calibration per dimension: the one in effect (judge and people's agreement, failed trust rules) and its newest `points` over time.",
    responses: { 200: '`{rubric, rules, dimensions: [{dimension, name, current, history}]}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/api/review/labels.jsonl',
    operationId: 'exportLabels',
    tag: 'review',
    query: labelsExportQuery,
    summary: "The project's labels as the JSONL `sieve judge calibrate --labels` takes (application/x-ndjson).",
    responses: { 200: 'one label per line: `{traceId, rubric, labels, secondLabels?, projectId}`', ...ERRORS },
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'operations',
    open: true,
    summary: 'Liveness: the process answers.',
    responses: { 200: '`{status: "ok"}`' },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'operations',
    open: true,
    summary: 'Readiness: storage reachable and migrated (the collector: taking spans too).',
    responses: { 200: '`{status: "ready"}`', 503: '`{status: "unavailable", message}`' },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'operations',
    open: true,
    summary: 'Prometheus metrics; with API keys configured, SIEVE_METRICS_TOKEN as a bearer token (or loopback).',
    responses: { 200: 'Prometheus text format', 401: 'the metrics token is missing' },
  },
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'operations',
    open: true,
    summary: 'This document.',
    responses: { 200: 'OpenAPI 3.1' },
  },
]

/** Each documented path as a pattern (`{name}` matching one segment), with its methods upper-case. */
const PATH_METHODS: readonly [RegExp, string[]][] = [...new Set(ROUTES.map((r) => r.path))].map((path) => [
  new RegExp(
    `^${path
      .split(/\{[^}]+\}/)
      .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
      .join('[^/]+')}$`,
  ),
  ROUTES.filter((r) => r.path === path).map((r) => r.method.toUpperCase()),
])

/**
 * The methods the document lists for a request path (GET with HEAD, which express answers for
 * it), or undefined for a path it does not list: a request in another method is answered 405 with
 * these as `Allow` (collector's createHttpApp).
 */
export function allowedMethods(path: string): string[] | undefined {
  const methods = PATH_METHODS.find(([pattern]) => pattern.test(path))?.[1]
  return methods?.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]))
}

function parameters(route: RouteDoc): JsonSchema[] {
  const path = Object.entries(route.pathParams ?? {}).map(([name, p]) => ({
    name,
    in: 'path',
    required: true,
    description: p.description,
    schema: inputSchema(p.schema),
  }))
  if (!route.query) return path
  const schema = inputSchema(route.query) as { properties?: Record<string, JsonSchema>; required?: string[] }
  const query = Object.entries(schema.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    schema: s,
  }))
  return [...path, ...query]
}

function requestBody(route: RouteDoc): JsonSchema | undefined {
  if (!route.body) return undefined
  if ('schema' in route.body) return { required: true, content: { 'application/json': { schema: inputSchema(route.body.schema) } } }
  return {
    required: true,
    content: Object.fromEntries(
      Object.entries(route.body.contentTypes).map(([type, description]) => [
        type,
        { schema: { description, ...(type.endsWith('protobuf') ? { type: 'string', contentMediaType: type } : { type: 'object' }) } },
      ]),
    ),
  }
}

/** The dashboard package's version, which the document carries. */
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

/** The document, from ROUTES. */
export function openApiDocument(version = VERSION): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {}
  for (const route of ROUTES) {
    const body = requestBody(route)
    const params = parameters(route)
    ;(paths[route.path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      ...(route.open ? { security: [] } : {}),
      ...(params.length ? { parameters: params } : {}),
      ...(body ? { requestBody: body } : {}),
      responses: Object.fromEntries(Object.entries(route.responses).map(([status, description]) => [status, { description }])),
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sieve',
      version,
      description:
        "Ingest (OTLP/HTTP traces, user feedback) and the read API of a Sieve server. Every route but the open ones takes an API key as `Authorization: Bearer <key>` or `x-api-key`, and reads or writes only that key's project; without SIEVE_API_KEYS everything is project `default` (loopback only). Errors are `{error: {code, message}}` (OTLP routes: google.rpc.Status).",
    },
    // Relative: the document is served by the Sieve it describes, whatever its address.
    servers: [{ url: '/', description: 'the Sieve server serving this document (`sieve up`: http://127.0.0.1:4318)' }],
    security: [{ bearer: [] }, { apiKey: [] }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' }, apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
    tags: [
      { name: 'ingest', description: 'what agents and SDKs send' },
      { name: 'read', description: 'what dashboards and tools read' },
      { name: 'review', description: "people labelling the judge's traces; calibration follows" },
      { name: 'operations', description: 'health, readiness, metrics' },
    ],
    paths,
  }
}
