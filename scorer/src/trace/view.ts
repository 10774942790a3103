import {
  finishReasons,
  genAiFields,
  isLlmCall,
  messageText,
  parseJsonValue,
  spanContent,
  toolDefinitions,
  toolInvocation,
  type ChatMessage,
  type ContentParser,
  type GenAiFields,
  type MessagePart,
  type Span,
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
  systemInstructions: string
  output: ChatMessage[]
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
  /** First agent version / prompt version found, root span first. */
  agentVersion: string
  promptVersion: string
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

/**
 * The view is kept on the trace object itself, under a symbol no copy carries along (not
 * enumerable). A WeakMap from trace to view costs a quarter of the scoring time: young-generation
 * collections keep weak-map values alive and promote every view, which then waits for a full
 * collection. Frozen traces fall back to the WeakMap.
 */
const VIEW = Symbol('sieve.traceView')
const frozenCache = new WeakMap<Trace, TraceView>()

export function traceView(trace: Trace): TraceView {
  const cached = (trace as { [VIEW]?: TraceView })[VIEW] ?? frozenCache.get(trace)
  if (cached) return cached
  const view = buildView(trace)
  if (Object.isExtensible(trace)) Object.defineProperty(trace, VIEW, { value: view, configurable: true })
  else frozenCache.set(trace, view)
  return view
}

/**
 * The trace without the view cached on it, for a trace that waits (a queue, a storage lookup) or
 * crosses to another thread: a waiting view keeps the trace's parsed content alive into V8's old
 * generation.
 */
export function bareTrace({ projectId, traceId, spans, complete }: Trace): Trace {
  return { projectId, traceId, spans, complete }
}

const DOC_ID_KEY = /^(id|doc_?id|document_?id|documentid|source_?id|docid)$/i

function collectDocIds(value: unknown, into: Set<string>, depth = 0): void {
  if (depth > 5 || value === null || typeof value !== 'object') return
  if (Array.isArray(value)) {
    for (const item of value) collectDocIds(item, into, depth + 1)
    return
  }
  // for-in over own keys visits what Object.entries would, without an array per property.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue
    const v = (value as Record<string, unknown>)[key]
    if ((typeof v === 'string' || typeof v === 'number') && DOC_ID_KEY.test(key)) into.add(String(v))
    else collectDocIds(v, into, depth + 1)
  }
}

/**
 * Parses the content attributes of one trace. Texts repeated on every model call and in every
 * trace of an agent (its system prompt and tool definitions) are parsed once per process. A model call's input usually repeats
 * the previous call's input with new messages appended; then only the appended part is parsed, so
 * reading a conversation costs its length, not its length squared. The view needs each message
 * once (who said what, which tool returned what), so returning only the new ones is exact for it.
 */
/** Texts repeated across every trace of an agent (its system prompt, its tool definitions). */
const SHARED_ATTRIBUTES = new Set(['gen_ai.system_instructions', 'gen_ai.tool.definitions'])
const shared = new Map<string, unknown>()
const MAX_SHARED = 500

export function traceParser(): ContentParser {
  let previousInput: string | undefined
  return (value, attribute) => {
    if (typeof value !== 'string') return value
    if (attribute === 'gen_ai.input.messages') {
      const previous = previousInput
      previousInput = value
      if (previous !== undefined) {
        if (previous === value) return []
        if (
          value.length > previous.length &&
          previous.endsWith(']') &&
          value.charCodeAt(previous.length - 1) === 44 /* , */ &&
          // Equality of two slices compares memory; startsWith walks the text a character at a time.
          value.slice(0, previous.length - 1) === previous.slice(0, -1)
        ) {
          return parseJsonValue(`[${value.slice(previous.length)}`)
        }
      }
    }
    if (!SHARED_ATTRIBUTES.has(attribute)) return parseJsonValue(value)
    const known = shared.get(value) // never undefined once stored: parsing text yields text or a value
    if (known !== undefined) return known
    const parsed = parseJsonValue(value)
    if (shared.size >= MAX_SHARED) shared.delete(shared.keys().next().value!)
    shared.set(value, parsed)
    return parsed
  }
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v))

function buildView(trace: Trace): TraceView {
  const spans = [...trace.spans].sort((a, b) => compareNanos(a.startTimeUnixNano, b.startTimeUnixNano))
  const root = spans.find((s) => s.parentSpanId === '')
  const parse = traceParser()
  let agentName = ''
  const rootFields = root ? genAiFields(root) : undefined
  let agentVersion = rootFields?.agentVersion ?? ''
  let promptVersion = rootFields?.promptVersion ?? ''
  const llmCalls: LlmCall[] = []
  const toolSpans: ToolInvocation[] = []
  const definitions = new Map<string, unknown>()
  const systemPrompts = new Set<string>()
  const userTexts = new Map<string, TextAt>()
  const assistantTexts: TextAt[] = []
  const sourceTexts: string[] = []
  const seenResponses = new Set<string>()
  const retrievedDocIds = new Set<string>()
  // Tool calls the model asked for; only read when the trace has no tool spans, so their
  // arguments are turned back into text only then.
  const requestedCalls = new Map<string, { spanId: string; endTimeUnixNano: string; part: ToolCallPart }>()
  const mergedDefinitions = new Set<unknown>()
  let rootAnswer: TextAt | undefined
  let hasContent = false
  let startNs: bigint | undefined
  let endNs: bigint | undefined

  // Tool results recorded on tool spans are read there; the same results fed back to the model
  // (tool_call_response parts with the same call id) are then skipped.
  for (const span of spans) {
    const id = span.attributes['gen_ai.tool.call.id']
    if (typeof id === 'string' && id && span.attributes['gen_ai.tool.call.result'] !== undefined) seenResponses.add(id)
  }

  for (const span of spans) {
    const start = BigInt(span.startTimeUnixNano)
    const end = BigInt(span.endTimeUnixNano)
    if (startNs === undefined || start < startNs) startNs = start
    if (endNs === undefined || end > endNs) endNs = end
    const fields = genAiFields(span)
    if (!agentName && fields.agentName) agentName = fields.agentName
    agentVersion ||= fields.agentVersion
    promptVersion ||= fields.promptVersion
    if (span.attributes['gen_ai.tool.definitions'] !== undefined) {
      // Every model call of an agent usually offers the same tools: the shared parse returns the
      // same value for the same text, and merging it again would change nothing.
      const offered = parse(span.attributes['gen_ai.tool.definitions'], 'gen_ai.tool.definitions')
      if (!mergedDefinitions.has(offered)) {
        mergedDefinitions.add(offered)
        for (const [name, schema] of toolDefinitions(span, () => offered)) if (!definitions.has(name)) definitions.set(name, schema)
      }
    }

    if (fields.operation === 'execute_tool') {
      const call = toolInvocation(span)
      toolSpans.push(call)
      if (call.rawArguments !== undefined) sourceTexts.push(call.rawArguments)
      if (call.result !== undefined) {
        const raw = span.attributes['gen_ai.tool.call.result']
        sourceTexts.push(typeof raw === 'string' ? raw : asText(call.result))
        collectDocIds(call.result, retrievedDocIds)
      }
      continue
    }
    if (fields.operation === 'retrieval') {
      const raw = span.attributes['gen_ai.retrieval.documents']
      const docs = parse(raw, 'gen_ai.retrieval.documents')
      if (docs !== undefined) {
        sourceTexts.push(typeof raw === 'string' ? raw : asText(docs))
        collectDocIds(docs, retrievedDocIds)
      }
    }

    const content = spanContent(span, parse)
    if (content.systemInstructions || content.input.length || content.output.length) hasContent = true
    if (content.systemInstructions) systemPrompts.add(content.systemInstructions)
    for (const message of content.input) {
      if (message.role === 'assistant') continue
      for (const part of message.parts) {
        if (part.type === 'text' && part.content) {
          if (message.role === 'user') {
            if (userTexts.has(part.content)) continue
            userTexts.set(part.content, { spanId: span.spanId, text: part.content })
          }
          sourceTexts.push(part.content)
        } else if (part.type === 'tool_call_response') {
          if (part.id && seenResponses.has(part.id)) continue
          if (part.id) seenResponses.add(part.id)
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
        if (!requestedCalls.has(key)) requestedCalls.set(key, { spanId: span.spanId, endTimeUnixNano: span.endTimeUnixNano, part })
      }
    }
    if (isLlmCall(fields)) {
      llmCalls.push({ span, fields, systemInstructions: content.systemInstructions, output: content.output, finishReasons: finishReasons(span, content) })
    }
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
    agentVersion,
    promptVersion,
    llmCalls,
    toolCalls: useSpans ? toolSpans : [...requestedCalls.values()].map(requestedCall),
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

type ToolCallPart = Extract<MessagePart, { type: 'tool_call' }>

function requestedCall({ spanId, endTimeUnixNano, part }: { spanId: string; endTimeUnixNano: string; part: ToolCallPart }): ToolInvocation {
  return {
    spanId,
    name: part.name,
    callId: part.id,
    arguments: part.arguments,
    rawArguments: part.arguments === undefined ? undefined : asText(part.arguments),
    result: undefined,
    error: '',
    startTimeUnixNano: endTimeUnixNano,
  }
}

/** The text of the last model call that produced output; '' when that output was only tool calls. */
function lastModelAnswer(llmCalls: LlmCall[]): TextAt | undefined {
  for (let i = llmCalls.length - 1; i >= 0; i--) {
    const call = llmCalls[i]!
    if (!call.output.length) continue
    return { spanId: call.span.spanId, text: call.output.map(messageText).filter(Boolean).join('\n') }
  }
  return undefined
}

export function compareNanos(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
}
