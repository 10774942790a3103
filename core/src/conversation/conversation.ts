import { asText, type ChatMessage } from '../content.js'
import { isLlmSpan, LLM_OPERATIONS, operationOf } from '../genai.js'
import { contentHint } from '../conventions/content-settings.js'
import { compareNanos, traceStart, type Span, type Trace } from '../span.js'
import { causalTree, type CausalKeys, type KeysOf, type SpanNode } from './causal-order.js'
import { ContentReader } from './content-reader.js'
import { primaryKey, sameTurn, turnKey, turnsOfMessage, type Turn, type TurnKey } from './turn.js'

/**
 * The conversation a trace (or a session of traces) holds: every message once, in the order it
 * was said, each turn naming the span it was read from. Judge transcripts, golden examples, eval
 * replays, the content checks and the trace view all read it, and nothing else reads messages.
 *
 * Built by walking the spans in causal order (causal-order.ts) and merging what each says:
 * - a model call's input is the conversation so far as the agent sent it (the fullest history is
 *   the last call's input plus its output; earlier calls' inputs are prefixes of it): it is aligned
 *   with the turns placed already, from its newest message back, and what is new is put where the
 *   input puts it; its output follows it;
 * - an agent (or any span with children) says its input before its children and its output after
 *   them; an output its children already said is the same message;
 * - a tool span's call is the model's request with the same call id (or the same name and
 *   arguments), its result follows the calls the model made together.
 * Traces of a session are read in start order; a later trace never moves an earlier one's turns.
 *
 * What a trace did is told apart from what it was given: see `markHistory`.
 */
export interface Conversation {
  turns: Turn[]
  /** The traces read, in conversation order. */
  traceIds: string[]
  /** No user or assistant text was captured (content capture is opt-in): nothing to judge or replay. */
  contentMissing: boolean
  /** With contentMissing: which setting of the instrumentation that wrote the spans sends the messages. */
  contentHint: string
  /** Some of it is missing or cut: an incomplete trace, content cut by a size limit. */
  truncated: boolean
  /** Why it is marked truncated, for people reading a score. */
  truncation: string[]
}

/** The SDK's mark on content it cut to its maximum length (sdk/src/content.ts). */
const CUT_MARK = '…[truncated '

interface Entry {
  turn: Turn
  key: TurnKey
  /** Order of placement: what an agent's children said has a seq at or after the agent's entry. */
  seq: number
  /** Placed as something a span said (an output), not as history it was given. */
  output?: boolean
}

/** What one span says, as turns not yet placed. */
interface SpanSays {
  /** Tool spans: the call, before its children; others: the input messages. */
  before: Entry[]
  /** Tool spans: the result; others: the output messages. */
  after: Entry[]
  tool: boolean
  /** A model call: its output follows its input at once, before anything under it (the tools it asked for). */
  model: boolean
}

export function conversationOf(traces: Trace | readonly Trace[], reader = new ContentReader()): Conversation {
  const list = (Array.isArray(traces) ? [...traces] : [traces as Trace]).sort(byTraceStart)
  const unwritten = new Map<Turn, unknown>()
  const says = spanSaying(reader, unwritten)
  const log = new TurnLog(unwritten)
  const truncation = new Set<string>()
  for (const trace of list) {
    if (!trace.complete) truncation.add(`trace ${trace.traceId} is incomplete`)
    log.startTrace()
    for (const root of causalTree(trace.spans, causalKeys(says))) log.walk(root, says)
    log.markHistory()
  }
  const turns = log.turns()
  for (const turn of turns) if (unwritten.has(turn)) turn.text = asText(unwritten.get(turn))
  nameToolResults(turns)
  if (reader.unreadable) truncation.add('some content could not be read whole (cut short by a size limit?)')
  if (turns.some((t) => t.text.includes(CUT_MARK))) truncation.add('some content was cut to the maximum length')
  const contentMissing = !turns.some((t) => (t.role === 'user' || t.role === 'assistant') && t.text !== '')
  return {
    turns,
    traceIds: list.map((t) => t.traceId),
    contentMissing,
    contentHint: contentMissing ? contentHint(list.flatMap((t) => t.spans)) : '',
    truncated: truncation.size > 0,
    truncation: [...truncation],
  }
}

/** A result read from a model's input names no tool: it is the tool its call (same id, same trace) named. */
function nameToolResults(turns: Turn[]): void {
  const names = new Map<string, string>()
  for (const t of turns) {
    if (!t.callId) continue
    const key = `${t.traceId}/${t.callId}`
    if (t.role === 'tool_call' && t.name) names.set(key, t.name)
    else if (t.role === 'tool_result' && !t.name && names.has(key)) t.name = names.get(key)!
  }
}

/** The causal links of each span, for ordering spans the way the conversation does. */
export function spanCausalKeys(reader = new ContentReader()): KeysOf {
  return causalKeys(spanSaying(reader, new Map()))
}

function byTraceStart(a: Trace, b: Trace): number {
  return compareNanos(traceStart(a), traceStart(b)) || (a.traceId < b.traceId ? -1 : a.traceId > b.traceId ? 1 : 0)
}

/** What a sibling may have produced: model outputs and tool results (nothing produces a user's or system's words). */
const producible = (e: Entry) => e.turn.role !== 'user' && e.turn.role !== 'system'

function causalKeys(says: (span: Span) => SpanSays): KeysOf {
  return (span): CausalKeys | undefined => {
    const s = says(span)
    if (!s.before.length && !s.after.length) return undefined
    return { consumes: s.before.filter(producible).map((e) => primaryKey(e.key)), produces: s.after.map((e) => primaryKey(e.key)) }
  }
}

/** Reads (once) what each span says. */
function spanSaying(reader: ContentReader, unwritten: Map<Turn, unknown>): (span: Span) => SpanSays {
  const bySpan = new Map<Span, SpanSays>()
  const byMessage = new Map<ChatMessage, Entry[]>()
  // Every model call of an agent repeats its system prompt: one entry for the text, matched by identity.
  const bySystemText = new Map<string, Entry>()
  const entriesOf = (messages: readonly ChatMessage[], span: Span): Entry[] => {
    const out: Entry[] = []
    for (const m of messages) {
      let entries = byMessage.get(m)
      if (!entries) {
        entries = turnsOfMessage(m, span.traceId, span.spanId, unwritten).map(entry)
        byMessage.set(m, entries)
      }
      out.push(...entries)
    }
    return out
  }
  return (span) => {
    let s = bySpan.get(span)
    if (s) return s
    if (operationOf(span) === 'execute_tool') {
      const call = reader.tool(span)
      const base = { traceId: span.traceId, spanId: span.spanId, ...(call.callId ? { callId: call.callId } : {}), ...(call.name ? { name: call.name } : {}) }
      const before = [entry({ role: 'tool_call', text: call.rawArguments ?? '', arguments: call.arguments, ...base })]
      // The result's text is the text as sent, when it was text (no need to write it again).
      const raw = call.rawResult
      const after =
        call.result === undefined && !call.error
          ? []
          : [
              call.result === undefined
                ? entry({ role: 'tool_result', text: call.error, error: call.error, ...base })
                : typeof raw === 'string'
                  ? entry({ role: 'tool_result', text: raw, result: call.result, ...(call.error ? { error: call.error } : {}), ...base })
                  : entry({ role: 'tool_result', text: asText(call.result), result: call.result, ...(call.error ? { error: call.error } : {}), ...base }),
            ]
      s = { before, after, tool: true, model: false }
    } else {
      const content = reader.of(span)
      const instructions = content.systemInstructions
      let system = instructions ? bySystemText.get(instructions) : undefined
      if (instructions && !system)
        bySystemText.set(instructions, (system = entry({ role: 'system', text: instructions, traceId: span.traceId, spanId: span.spanId })))
      const operation = operationOf(span)
      const model = LLM_OPERATIONS.has(operation) || (operation === '' && isLlmSpan(span))
      s = {
        before: system ? [system, ...entriesOf(content.input, span)] : entriesOf(content.input, span),
        after: entriesOf(content.output, span),
        tool: false,
        model,
      }
    }
    bySpan.set(span, s)
    return s
  }
}

const entry = (turn: Turn): Entry => ({ turn, key: turnKey(turn), seq: -1 })

/** The turns placed so far, and the rules for placing more. */
class TurnLog {
  private readonly entries: Entry[] = []
  private readonly placed = new Set<Entry>()
  /** Entries a span of the current trace said or did: model and agent outputs, tool spans' calls and results. */
  private readonly produced = new Set<Entry>()

  /** `unwritten`: tool turns whose text is yet to be written, and their values; a copy inherits it. */
  constructor(private readonly unwritten: Map<Turn, unknown>) {}

  private seq = 0
  /** The span whose turns are being placed. */
  private span!: Span
  /** Index of the current trace's first turn: nothing is put before it. */
  private regionStart = 0

  startTrace(): void {
    this.regionStart = this.entries.length
    this.produced.clear()
    this.givenFirst = undefined
  }

  /** What the current trace had placed when it first produced something (see markHistory). */
  private givenFirst: Set<Entry> | undefined

  private produce(e: Entry): void {
    this.givenFirst ??= new Set(this.entries.slice(this.regionStart).filter((x) => x !== e && !this.produced.has(x)))
    this.produced.add(e)
  }

  /**
   * Marks the current trace's history: what its model calls were given that was said before the
   * trace began. What the trace had been given when it first produced something (a model's or an
   * agent's output, a tool span) is the reference:
   * - ending on user messages, those are the trace's request, and what no span of the trace
   *   produced standing before the request is history (also what a later call placed there: a
   *   first call that saw only the newest message, the next one the whole session);
   * - ending on anything else (the trace continues an earlier turn's tool calls, with no new user
   *   message), all of it is history.
   * A message the trace produced is never history, nor is one a later call sent again after the
   * request (its output in another spelling).
   */
  markHistory(): void {
    const given = this.givenFirst ?? new Set(this.entries.slice(this.regionStart))
    const region = this.entries.slice(this.regionStart).filter((e) => e.turn.role !== 'system')
    const before = region.filter((e) => given.has(e))
    let request = before.length
    while (request > 0 && before[request - 1]!.turn.role === 'user') request--
    // Everything up to the request, or up to the last message given, is history.
    const last = request < before.length ? before[request]! : before[before.length - 1]
    const end = last === undefined ? -1 : region.indexOf(last) + (request < before.length ? 0 : 1)
    for (let i = 0; i < end; i++) if (!this.produced.has(region[i]!)) region[i]!.turn.history = true
  }

  turns(): Turn[] {
    return this.entries.map((e) => e.turn)
  }

  walk(root: SpanNode, says: (span: Span) => SpanSays): void {
    // Depth first without recursion: a span's `after` waits until its children are placed.
    const stack: { node: SpanNode; entered: number | undefined; said?: boolean }[] = [{ node: root, entered: undefined }]
    while (stack.length) {
      const top = stack[stack.length - 1]!
      const s = says(top.node.span)
      this.span = top.node.span
      if (top.entered === undefined) {
        top.entered = this.seq
        const leaf = top.node.children.length === 0
        if (s.tool) this.placeToolCall(s.before[0]!)
        else if (s.model || leaf) {
          // A model call (or an agent with nothing under it): its input, then its output, then what it caused.
          const last = this.alignHistory(s.before)
          this.placeOutput(s.after, last)
          if (leaf) {
            stack.pop()
            continue
          }
          top.said = true
        } else if (s.before.length === 1) this.placeRepeatable(s.before[0]!)
        else this.alignHistory(s.before)
        for (let i = top.node.children.length - 1; i >= 0; i--) stack.push({ node: top.node.children[i]!, entered: undefined })
        continue
      }
      stack.pop()
      if (s.tool) {
        if (s.after.length) this.placeToolResult(s.after[0]!, s.before[0]!)
      } else if (!top.said) {
        for (const e of s.after) this.placeSaidWithin(e, top.entered)
      }
    }
  }

  /**
   * A model call's input: the conversation as the agent sent it. Aligned from its newest message
   * back (the newest must be in this trace; older ones may be an earlier trace's of the session),
   * then the messages not placed yet are put where the input has them. Returns the entry of its
   * last message.
   */
  private alignHistory(said: readonly Entry[]): Entry | undefined {
    if (!said.length) return undefined
    const history = [...said]
    const matched: (Entry | undefined)[] = new Array(history.length)
    let bound = this.entries.length
    for (let i = history.length - 1; i >= 0; i--) {
      const floor = i === history.length - 1 ? this.regionStart : 0
      const at = this.findBack(history[i]!, bound - 1, floor)
      if (at >= 0) {
        matched[i] = this.entries[at]
        bound = at
      }
    }
    // A call or result this trace placed in another order (parallel tool spans end in any order)
    // moves to where the input puts it: the input is what the model saw.
    for (let i = 0; i < history.length; i++) {
      if (matched[i] || !history[i]!.key.id) continue
      const at = this.findBack(history[i]!, this.entries.length - 1, this.regionStart)
      if (at >= 0 && !matched.includes(this.entries[at])) {
        history[i] = this.entries.splice(at, 1)[0]!
        this.placed.delete(history[i]!)
      }
    }
    let previous: Entry | undefined
    let leading: Entry[] = []
    for (let i = 0; i < history.length; i++) {
      const m = matched[i]
      if (m) {
        if (leading.length) this.insertAt(this.entries.indexOf(m), leading)
        leading = []
        previous = m
      } else if (!previous) leading.push(history[i]!)
      else previous = this.insertAt(this.entries.indexOf(previous) + 1, [history[i]!])
    }
    if (leading.length) previous = this.insertAt(this.entries.length, leading)
    return previous
  }

  /** A model call's output follows its input; a tool call placed already (by its span) stays where it is. */
  private placeOutput(output: Entry[], last: Entry | undefined): void {
    let previous = last
    for (const e of output) {
      if (e.key.id) {
        const at = this.findBack(e, this.entries.length - 1, this.regionStart)
        if (at >= 0) {
          previous = this.entries[at]!
          this.produce(previous)
          continue
        }
      }
      previous = this.insertAt(previous ? this.entries.indexOf(previous) + 1 : this.entries.length, [e])!
      previous.output = true
      this.produce(previous)
    }
  }

  /** An agent's one input message: the same as the turn just placed (an enclosing agent's), or new. */
  private placeRepeatable(e: Entry): void {
    const last = this.entries[this.entries.length - 1]
    if (last && this.entries.length > this.regionStart && sameTurn(last.key, e.key)) return
    this.insertAt(this.entries.length, [e])
  }

  /**
   * An agent's output: the same as the last such turn its children said (not one they were given:
   * an agent may answer what it answered before), or said after them.
   */
  private placeSaidWithin(e: Entry, enteredSeq: number): void {
    for (let i = this.entries.length - 1; i >= this.regionStart; i--) {
      const placed = this.entries[i]!
      // A call or result with an id is the same wherever it was placed; a text only as the last one said.
      if (e.key.id && placed.key.id === e.key.id) return void this.produce(placed)
      if (!e.key.id && placed.seq >= enteredSeq && placed.output && placed.turn.role === e.turn.role) {
        if (sameTurn(placed.key, e.key)) return
        break
      }
    }
    const said = this.insertAt(this.entries.length, [e])!
    said.output = true
    this.produce(said)
  }

  /** A tool span's call or result: placed where given, or found placed already; either way the trace's own. */
  private placeProduced(e: Entry, index: () => number): void {
    const at = this.findBack(e, this.entries.length - 1, this.regionStart)
    this.produce(at >= 0 ? this.entries[at]! : this.insertAt(index(), [e])!)
  }

  private placeToolCall(call: Entry): void {
    this.placeProduced(call, () => this.entries.length)
  }

  /** After the call, and after the other calls and results made with it (parallel calls). */
  private placeToolResult(result: Entry, call: Entry): void {
    this.placeProduced(result, () => {
      let at = this.findBack(call, this.entries.length - 1, this.regionStart)
      if (at < 0) return this.entries.length
      while (at + 1 < this.entries.length && (this.entries[at + 1]!.turn.role === 'tool_call' || this.entries[at + 1]!.turn.role === 'tool_result')) at++
      return at + 1
    })
  }

  /** The last index in [floor, from] holding the same turn as `e` (the entry itself first). */
  private findBack(e: Entry, from: number, floor: number): number {
    if (this.placed.has(e)) {
      // Placed already: a message repeated in a later input is the same object.
      const at = from >= 0 && this.entries[from] === e ? from : this.entries.lastIndexOf(e, from)
      if (at >= floor) return at
    }
    for (let i = from; i >= floor; i--) if (sameTurn(this.entries[i]!.key, e.key)) return i
    return -1
  }

  /** Inserts at `index` (never before the current trace's turns); returns the last entry inserted. */
  private insertAt(index: number, list: Entry[]): Entry | undefined {
    const fresh = list.map((e) => {
      // A message placed already that no match claimed (said again) is placed as a copy.
      const placed = this.placed.has(e) ? { ...e, turn: { ...e.turn } } : e
      if (placed !== e && this.unwritten.has(e.turn)) this.unwritten.set(placed.turn, this.unwritten.get(e.turn))
      if (placed.seq < 0 || placed !== e) {
        placed.seq = this.seq++
        // The turn names the span it was first read from in the walk, not the first parsed.
        placed.turn.spanId = this.span.spanId
        placed.turn.traceId = this.span.traceId
      }
      this.placed.add(placed)
      return placed
    })
    this.entries.splice(Math.max(index, this.regionStart), 0, ...fresh)
    return fresh[fresh.length - 1]
  }
}
