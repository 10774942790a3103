import {
  asText,
  compareNanos,
  contentHint,
  ContentReader,
  conversationOf,
  finishReasons,
  GENAI_ATTR,
  genAiFields,
  isLlmCall,
  offeredTools,
  toolDefinitions,
  type ChatMessage,
  type Conversation,
  type GenAiFields,
  type Span,
  type ToolInvocation,
  type Trace,
  type Turn,
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
  /** Said before this trace began (the history its model calls were sent again): see core's `Turn.history`. */
  history?: true
}

export interface TraceView {
  trace: Trace
  /** The trace's conversation (core's conversation model): every message once, in order. */
  conversation: Conversation
  /** The span with no parent, when it has arrived. */
  root: Span | undefined
  /** Spans sorted by start time (the conversation orders by causality; this is for clock figures). */
  spans: Span[]
  agentName: string
  serviceName: string
  /** First agent version / prompt version / environment (deployment.environment.name) found, root span first. */
  agentVersion: string
  promptVersion: string
  environment: string
  llmCalls: LlmCall[]
  /**
   * What this trace called: its `execute_tool` spans; when it has none, the tool calls its model
   * calls asked for in their output. Calls in the history its model calls were sent are not here.
   */
  toolCalls: ToolInvocation[]
  toolCallsFrom: 'spans' | 'messages'
  /** Tool calls of the history the trace's model calls were sent (earlier turns of its session), for checks in session scope. */
  historyToolCalls: ToolInvocation[]
  /**
   * Whether the trace shows what it called: it has tool spans, or some model call's output was
   * captured (where the calls it asked for would be). Without either, "called nothing" is unknown.
   */
  toolCallsVisible: boolean
  /** Why the trace lacks message content and which setting of its instrumentation sends it; '' when it has content. */
  contentHint: string
  /** Tool name → JSON schema of its parameters, as offered to the model (`gen_ai.tool.definitions`). */
  toolDefinitions: Map<string, unknown>
  systemPrompt: string
  /** The conversation's user turns, in order, those of its history included (and marked). */
  userTexts: TextAt[]
  /** What the agent said in this trace, in order (its history's assistant texts are not here). */
  assistantTexts: TextAt[]
  /** The assistant text this trace ends on; empty text when it ends on the user or on tool calls. */
  finalAnswer: TextAt | undefined
  /** Text the agent was given rather than produced in this trace: system prompt, user turns, its history, tool calls and results, retrieved documents. */
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

function buildView(trace: Trace): TraceView {
  const spans = [...trace.spans].sort((a, b) => compareNanos(a.startTimeUnixNano, b.startTimeUnixNano))
  const root = spans.find((s) => s.parentSpanId === '')
  const reader = new ContentReader()
  const conversation = conversationOf(trace, reader)
  const fromSpans = readSpans(spans, root, reader)
  const fromTurns = readTurns(conversation.turns, fromSpans.sourceTexts, fromSpans.retrievedDocIds)
  const useSpans = fromSpans.toolSpans.length > 0
  const outputSeen = fromSpans.llmCalls.some((c) => c.output.length > 0)
  return {
    trace,
    conversation,
    root,
    spans,
    agentName: fromSpans.agentName,
    serviceName: root?.serviceName ?? spans[0]?.serviceName ?? '',
    agentVersion: fromSpans.agentVersion,
    promptVersion: fromSpans.promptVersion,
    environment: fromSpans.environment,
    llmCalls: fromSpans.llmCalls,
    toolCalls: useSpans ? withRequestedArguments(fromSpans.toolSpans, conversation.turns) : fromTurns.requestedCalls,
    toolCallsFrom: useSpans ? 'spans' : 'messages',
    historyToolCalls: fromTurns.historyCalls,
    toolCallsVisible: useSpans || outputSeen,
    contentHint: fromSpans.hasContent ? '' : contentHint(spans),
    toolDefinitions: fromSpans.toolDefinitions,
    systemPrompt: fromTurns.systemPrompt,
    userTexts: fromTurns.userTexts,
    assistantTexts: fromTurns.assistantTexts,
    finalAnswer: finalAnswerOf(conversation.turns, fromSpans.llmCalls),
    sourceTexts: fromSpans.sourceTexts,
    retrievedDocIds: fromSpans.retrievedDocIds,
    hasContent: fromSpans.hasContent,
    startNs: fromSpans.startNs,
    endNs: fromSpans.endNs,
  }
}

/** What the view reads from the spans themselves rather than from the conversation. */
type SpanFacts = Pick<
  TraceView,
  | 'agentName'
  | 'agentVersion'
  | 'promptVersion'
  | 'environment'
  | 'llmCalls'
  | 'toolDefinitions'
  | 'sourceTexts'
  | 'retrievedDocIds'
  | 'hasContent'
  | 'startNs'
  | 'endNs'
> & {
  toolSpans: ToolInvocation[]
}

/** One pass over the spans in start order; `sourceTexts` gets the retrieved documents' texts. */
function readSpans(spans: readonly Span[], root: Span | undefined, reader: ContentReader): SpanFacts {
  let agentName = ''
  const rootFields = root ? genAiFields(root) : undefined
  let agentVersion = rootFields?.agentVersion ?? ''
  let promptVersion = rootFields?.promptVersion ?? ''
  let environment = rootFields?.environment ?? ''
  const llmCalls: LlmCall[] = []
  const toolSpans: ToolInvocation[] = []
  const definitions = new Map<string, unknown>()
  const mergedDefinitions = new Set<unknown>()
  const sourceTexts: string[] = []
  const retrievedDocIds = new Set<string>()
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
    agentVersion ||= fields.agentVersion
    promptVersion ||= fields.promptVersion
    environment ||= fields.environment
    if (fields.operation === 'execute_tool') {
      toolSpans.push(reader.tool(span))
      continue
    }
    if (fields.operation === 'retrieval') readRetrieval(span, reader, sourceTexts, retrievedDocIds)
    const content = reader.of(span)
    if (content.systemInstructions || content.input.length || content.output.length) hasContent = true
    if (isLlmCall(fields) || span.attributes[GENAI_ATTR.toolDefinitions] !== undefined) mergeToolDefinitions(span, reader, definitions, mergedDefinitions)
    if (isLlmCall(fields)) {
      llmCalls.push({ span, fields, systemInstructions: content.systemInstructions, output: content.output, finishReasons: finishReasons(span, content) })
    }
  }
  return {
    agentName,
    agentVersion,
    promptVersion,
    environment,
    llmCalls,
    toolSpans,
    toolDefinitions: definitions,
    sourceTexts,
    retrievedDocIds,
    hasContent,
    startNs: startNs ?? 0n,
    endNs: endNs ?? 0n,
  }
}

/** Adds the tools a span offered the model to `into`, the first definition of a name winning. */
function mergeToolDefinitions(span: Span, reader: ContentReader, into: Map<string, unknown>, merged: Set<unknown>): void {
  // Every model call of an agent usually offers the same tools: the shared parse returns the
  // same value for the same text, and merging it again would change nothing.
  const offered = offeredTools(span, reader.parse)
  if (!offered || merged.has(offered)) return
  merged.add(offered)
  for (const [name, schema] of toolDefinitions(span, reader.parse, offered)) if (!into.has(name)) into.set(name, schema)
}

/** A retrieval span's documents: their text is a source, their ids are retrieved. */
function readRetrieval(span: Span, reader: ContentReader, sourceTexts: string[], retrievedDocIds: Set<string>): void {
  const raw = span.attributes[GENAI_ATTR.retrievalDocuments]
  const docs = reader.parse(raw, GENAI_ATTR.retrievalDocuments)
  if (docs === undefined) return
  sourceTexts.push(typeof raw === 'string' ? raw : asText(docs))
  collectDocIds(docs, retrievedDocIds)
}

type TurnFacts = Pick<TraceView, 'systemPrompt' | 'userTexts' | 'assistantTexts'> & {
  /** Tool calls the model asked for in this trace; only read when the trace has no tool spans. */
  requestedCalls: ToolInvocation[]
  historyCalls: ToolInvocation[]
}

/** The conversation's texts by role; what the agent was given is added to `sourceTexts`, system prompts last. */
function readTurns(turns: readonly Turn[], sourceTexts: string[], retrievedDocIds: Set<string>): TurnFacts {
  const systemPrompts = new Set<string>()
  const userTexts: TextAt[] = []
  const assistantTexts: TextAt[] = []
  const requestedCalls: ToolInvocation[] = []
  const historyCalls: ToolInvocation[] = []
  for (const turn of turns) {
    switch (turn.role) {
      case 'system':
        systemPrompts.add(turn.text)
        break
      case 'user':
        userTexts.push(turn.history ? { spanId: turn.spanId, text: turn.text, history: true } : { spanId: turn.spanId, text: turn.text })
        sourceTexts.push(turn.text)
        break
      case 'assistant':
        // What the agent said before this trace is context it was given, not its output now.
        if (turn.history) sourceTexts.push(turn.text)
        else assistantTexts.push({ spanId: turn.spanId, text: turn.text })
        break
      case 'tool_call':
        if (turn.text) sourceTexts.push(turn.text)
        ;(turn.history ? historyCalls : requestedCalls).push(requestedCall(turn))
        break
      case 'tool_result':
        if (turn.text) sourceTexts.push(turn.text)
        collectDocIds(turn.result, retrievedDocIds)
    }
  }
  for (const prompt of systemPrompts) sourceTexts.push(prompt)
  return { systemPrompt: [...systemPrompts].join('\n'), userTexts, assistantTexts, requestedCalls, historyCalls }
}

/**
 * Tool spans whose instrumentation kept no usable arguments (LangChain's tool span holds the tool's
 * input string, `"A-1"`) take those the model asked for in the call with the same id.
 */
function withRequestedArguments(calls: ToolInvocation[], turns: readonly Turn[]): ToolInvocation[] {
  if (calls.every((c) => !c.callId || (c.arguments !== null && typeof c.arguments === 'object'))) return calls
  const requested = new Map<string, Turn>()
  for (const t of turns)
    if (t.role === 'tool_call' && t.callId && !t.history && t.arguments !== null && typeof t.arguments === 'object') requested.set(t.callId, t)
  return calls.map((c) => {
    const asked = c.callId && (c.arguments === null || typeof c.arguments !== 'object') ? requested.get(c.callId) : undefined
    return asked ? { ...c, arguments: asked.arguments, rawArguments: asked.text } : c
  })
}

/** A tool call the model asked for, as an invocation (the trace has no tool span for it). */
function requestedCall(turn: Turn): ToolInvocation {
  return {
    spanId: turn.spanId,
    name: turn.name ?? '',
    callId: turn.callId ?? '',
    arguments: turn.arguments,
    rawArguments: turn.arguments === undefined ? undefined : turn.text,
    result: undefined,
    rawResult: undefined,
    error: '',
    startTimeUnixNano: '',
  }
}

/**
 * The agent's last word: the assistant text that ends the conversation. When the conversation ends
 * on the user, on tool calls or on its history, the agent answered nothing in this trace: an empty
 * answer of the last model call that produced output (none when no call did).
 */
function finalAnswerOf(turns: readonly Turn[], llmCalls: LlmCall[]): TextAt | undefined {
  for (let i = turns.length - 1; i >= 0; i--) {
    const turn = turns[i]!
    if (turn.role === 'assistant' && !turn.history) return { spanId: turn.spanId, text: turn.text }
    if (turn.role !== 'system') break
  }
  for (let i = llmCalls.length - 1; i >= 0; i--) {
    if (llmCalls[i]!.output.length) return { spanId: llmCalls[i]!.span.spanId, text: '' }
  }
  return undefined
}
