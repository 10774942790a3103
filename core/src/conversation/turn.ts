import { asText, type ChatMessage } from '../content.js'

/**
 * One entry of a conversation. A model's message becomes one turn per thing it says: its text
 * (system, user, assistant), then each tool call it requests; a tool's answer is a tool result.
 */
export type TurnRole = 'system' | 'user' | 'assistant' | 'tool_call' | 'tool_result'

export interface Turn {
  role: TurnRole
  /** The message text; a tool call's arguments and a tool result's value as text. */
  text: string
  /** Where the turn was first read: a model call's input or output, an agent's, or a tool span. */
  traceId: string
  spanId: string
  /** Tool calls and results: the call id linking a model's request, the tool span and the result. */
  callId?: string
  /** Tool calls and results: the tool's name, when known. */
  name?: string
  /** Tool calls: the arguments, parsed when they were JSON. */
  arguments?: unknown
  /** Tool results: the value, parsed when it was JSON. */
  result?: unknown
  /** Tool results: the tool failed (its span's error status or `error.type`). */
  error?: string
  /**
   * Said before this turn's trace began: a message the agent sent its model again (the history a
   * chat resends every turn), not something the trace did. Context for people and the judge; no
   * check, slice or export counts it as the trace's action.
   */
  history?: true
}

/** Roles other instrumentations write, as the conversation's. */
const ROLE_ALIASES: Record<string, 'system' | 'user' | 'assistant' | 'tool'> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  human: 'user',
  assistant: 'assistant',
  ai: 'assistant',
  model: 'assistant',
  tool: 'tool',
  function: 'tool',
  ipython: 'tool',
}

/**
 * The turns one message holds, in the order it says them; text parts next to each other are one turn.
 * A tool call's or result's text is its value as JSON; with `unwritten`, that text is left empty and
 * the value noted there, for the caller to write only for the turns it keeps (a call or result a
 * model's input repeats is matched by id and never shown).
 */
export function turnsOfMessage(message: ChatMessage, traceId: string, spanId: string, unwritten?: Map<Turn, unknown>): Turn[] {
  const role = ROLE_ALIASES[message.role.toLowerCase()]
  if (!role) return []
  const turns: Turn[] = []
  let text = ''
  for (let i = 0; i <= message.parts.length; i++) {
    const part = message.parts[i]
    if (part?.type === 'text') {
      if (part.content) text = text ? `${text}\n${part.content}` : part.content
      continue
    }
    if (text) {
      // A tool message's plain text is its result (older shapes carry no tool_call_response part).
      turns.push(role === 'tool' ? { role: 'tool_result', text, traceId, spanId, result: text } : { role, text, traceId, spanId })
      text = ''
    }
    let tool: Turn | undefined
    let value: unknown
    if (part?.type === 'tool_call') {
      value = part.arguments
      tool = { role: 'tool_call', text: '', traceId, spanId, callId: part.id, name: part.name, arguments: value }
    } else if (part?.type === 'tool_call_response') {
      value = part.response
      tool = { role: 'tool_result', text: '', traceId, spanId, callId: part.id, result: value }
    }
    if (!tool) continue
    if (unwritten) unwritten.set(tool, value)
    else tool.text = asText(value)
    turns.push(tool)
  }
  return turns
}

/**
 * What makes two turns the same message seen twice: the call id when both have one, else the
 * role and the text (ends trimmed; JSON compared in one spelling). The text form is made only when
 * a comparison needs it: most calls and results are matched by id.
 */
export class TurnKey {
  readonly role: TurnRole
  /** `call#<id>` / `result#<id>`, or '' without an id. */
  readonly id: string
  private text: string | undefined

  constructor(private readonly turn: Turn) {
    this.role = turn.role
    this.id = !turn.callId ? '' : turn.role === 'tool_call' ? `call#${turn.callId}` : turn.role === 'tool_result' ? `result#${turn.callId}` : ''
  }

  /** The text form; a tool call's and result's marked, so they never equal a message's text. */
  get content(): string {
    if (this.text === undefined) {
      const t = this.turn
      this.text =
        t.role === 'tool_call'
          ? `call:${t.name ?? ''}\u0000${canonicalJson(t.arguments)}`
          : t.role === 'tool_result'
            ? `result:${canonicalJson(t.result ?? t.text)}`
            : t.text.trim()
    }
    return this.text
  }
}

export const turnKey = (turn: Turn): TurnKey => new TurnKey(turn)

export function sameTurn(a: TurnKey, b: TurnKey): boolean {
  if (a.role !== b.role) return false
  return a.id && b.id ? a.id === b.id : a.content === b.content
}

/** The key order-defining lookups use: the id when there is one. */
export const primaryKey = (k: TurnKey): string => k.id || k.content

export function foldSpace(text: string): string {
  return /\s\s|[\t\n\r\f\v]|^\s|\s$/.test(text) ? text.replace(/\s+/g, ' ').trim() : text
}

function canonicalJson(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? '' : JSON.stringify(value)
  const t = value.trim()
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      return JSON.stringify(JSON.parse(t))
    } catch {
      return t
    }
  }
  return t
}
