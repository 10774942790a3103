import {
  finishReasons,
  genAiFields,
  isLlmSpan,
  isToolSpan,
  messageText,
  parseJsonValue,
  spanContent,
  toolDefinitions,
  toolInvocation,
  type GenAiFields,
  type Span,
  type SpanContent,
  type ToolInvocation,
  type Trace,
} from '@sieve/core'

/**
 * Everything the checks read from a trace, extracted once. Checks are pure functions of the trace;
 * they call `traceView(trace)`, which parses content on first use and caches it per trace object,
 * so twenty checks over one trace parse its messages once.
 */
export interface LlmCall {
  span: Span
  fields: GenAiFields
  content: SpanContent
  finishReasons: string[]
}

export interface TextAt {
  spanId: string
  text: string
}

export interface TraceView {
  trace: Trace
  /** The span with no parent, when it has arrived. */
  root: Span | undefined
  /** Spans sorted by start time. */
  spans: Span[]
  agentName: string
  serviceName: string
  llmCalls: LlmCall[]
  /** `execute_tool` spans; when a trace has none, the tool calls the model asked for in its output. */
  toolCalls: ToolInvocation[]
  toolCallsFrom: 'spans' | 'messages'
  /** Tool name → JSON schema of its parameters, as offered to the model (`gen_ai.tool.definitions`). */
  toolDefinitions: Map<string, unknown>
  systemPrompt: string
  /** What users said, across every model call (deduplicated). */
  userTexts: TextAt[]
  /** Every assistant text the model produced, in order. */
  assistantTexts: TextAt[]
  /** The agent's answer: the root span's output when it carries one, else the last model output with text. */
  finalAnswer: TextAt | undefined
  /** Text the agent was given rather than produced: system prompt, user and tool messages, tool results, retrieved documents. */
  sourceTexts: string[]
  /** Document ids present in retrieved context (retrieval spans, tool results). */
  retrievedDocIds: Set<string>
  /** True when some span carried conversation content (content capture is opt-in). */
  hasContent: boolean
  startNs: bigint
  endNs: bigint
}

const cache = new WeakMap<Trace, TraceView>()

export function traceView(trace: Trace): TraceView {
  let view = cache.get(trace)
  if (!view) {
    view = buildView(trace)
    cache.set(trace, view)
  }
  return view
}

const DOC_ID_KEY = /^(id|doc_?id|document_?id|documentid|source_?id|docid)$/i

function collectDocIds(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 5 || value === null || typeof value !== 'object') return
  if (Array.isArray(value)) {
    for (const item of value) collectDocIds(item, into, depth + 1)
    return
  }
  for (const [key, v] of Object.entries(value)) {
    if ((typeof v === 'string' || typeof v === 'number') && DOC_ID_KEY.test(key)) into.add(String(v))
    else collectDocIds(v, into, depth + 1)
  }
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v))

function buildView(trace: Trace): TraceView {
  const spans = [...trace.spans].sort((a, b) => compareNanos(a.startTimeUnixNano, b.startTimeUnixNano))
  const root = spans.find((s) => s.parentSpanId === '')
  let agentName = ''
  const llmCalls: LlmCall[] = []
  const toolSpans: ToolInvocation[] = []
  const definitions = new Map<string, unknown>()
  const systemPrompts = new Set<string>()
  const userTexts = new Map<string, TextAt>()
  const assistantTexts: TextAt[] = []
  const sourceTexts: string[] = []
  const retrievedDocIds = new Set<string>()
  const requestedCalls = new Map<string, ToolInvocation>()
  let rootAnswer: TextAt | undefined
  let hasContent = false
  let startNs: bigint | undefined
  let endNs: bigint | undefined

  for (const span of spans) {
    const start = BigInt(span.startTimeUnixNano)
    const end = BigInt(span.endTimeUnixNano)
    if (startNs === undefined || start < startNs) startNs = start
    if (endNs === undefined || end > endNs) endNs = end
    const fields = genAiFields(span)
    if (!agentName && fields.agentName) agentName = fields.agentName
    for (const [name, schema] of toolDefinitions(span)) if (!definitions.has(name)) definitions.set(name, schema)

    if (isToolSpan(span)) {
      const call = toolInvocation(span)
      toolSpans.push(call)
      if (call.rawArguments !== undefined) sourceTexts.push(call.rawArguments)
      if (call.result !== undefined) {
        sourceTexts.push(asText(call.result))
        collectDocIds(call.result, retrievedDocIds)
      }
      continue
    }
    if (fields.operation === 'retrieval') {
      const docs = parseJsonValue(span.attributes['gen_ai.retrieval.documents'])
      if (docs !== undefined) {
        sourceTexts.push(asText(docs))
        collectDocIds(docs, retrievedDocIds)
      }
    }

    const content = spanContent(span)
    if (content.systemInstructions || content.input.length || content.output.length) hasContent = true
    if (content.systemInstructions) systemPrompts.add(content.systemInstructions)
    for (const message of content.input) {
      if (message.role === 'assistant') continue
      for (const part of message.parts) {
        if (part.type === 'text' && part.content) {
          sourceTexts.push(part.content)
          if (message.role === 'user' && !userTexts.has(part.content)) userTexts.set(part.content, { spanId: span.spanId, text: part.content })
        } else if (part.type === 'tool_call_response') {
          sourceTexts.push(asText(part.response))
          collectDocIds(part.response, retrievedDocIds)
        }
      }
    }
    const isRoot = span === root
    for (const message of content.output) {
      const text = messageText(message)
      if (text) {
        if (isRoot) rootAnswer = { spanId: span.spanId, text }
        else assistantTexts.push({ spanId: span.spanId, text })
      }
      for (const part of message.parts) {
        if (part.type !== 'tool_call') continue
        const key = part.id || `${span.spanId}:${requestedCalls.size}`
        if (!requestedCalls.has(key)) {
          requestedCalls.set(key, {
            spanId: span.spanId,
            name: part.name,
            callId: part.id,
            arguments: part.arguments,
            rawArguments: part.arguments === undefined ? undefined : asText(part.arguments),
            result: undefined,
            error: '',
            startTimeUnixNano: span.endTimeUnixNano,
          })
        }
      }
    }
    if (isLlmSpan(span)) llmCalls.push({ span, fields, content, finishReasons: finishReasons(span, content) })
  }

  // The root's answer is the agent's final word; it also counts among the assistant texts.
  if (rootAnswer) assistantTexts.push(rootAnswer)
  for (const prompt of systemPrompts) sourceTexts.push(prompt)
  const useSpans = toolSpans.length > 0
  return {
    trace,
    root,
    spans,
    agentName,
    serviceName: root?.serviceName ?? spans[0]?.serviceName ?? '',
    llmCalls,
    toolCalls: useSpans ? toolSpans : [...requestedCalls.values()],
    toolCallsFrom: useSpans ? 'spans' : 'messages',
    toolDefinitions: definitions,
    systemPrompt: [...systemPrompts].join('\n'),
    userTexts: [...userTexts.values()],
    assistantTexts,
    finalAnswer: rootAnswer ?? lastModelAnswer(llmCalls),
    sourceTexts,
    retrievedDocIds,
    hasContent,
    startNs: startNs ?? 0n,
    endNs: endNs ?? 0n,
  }
}

/** The text of the last model call that produced output; '' when that output was only tool calls. */
function lastModelAnswer(llmCalls: LlmCall[]): TextAt | undefined {
  for (let i = llmCalls.length - 1; i >= 0; i--) {
    const call = llmCalls[i]!
    if (!call.content.output.length) continue
    return { spanId: call.span.spanId, text: call.content.output.map(messageText).filter(Boolean).join('\n') }
  }
  return undefined
}

export function compareNanos(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
}
