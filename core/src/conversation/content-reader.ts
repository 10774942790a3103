import { parseJsonValue, spanContent, toolInvocation, type ChatMessage, type ContentParser, type SpanContent, type ToolInvocation } from '../content.js'
import type { Span } from '../span.js'

/**
 * Reads the content of the spans of one trace (or one session) once each. Two costs are avoided:
 * - texts every trace of an agent repeats (its system prompt, its tool definitions) are parsed once
 *   per process;
 * - a model call's input usually repeats an earlier call's input with messages appended; then only
 *   the appended part is parsed, and the earlier messages are the same objects, so reading a
 *   conversation costs its length rather than its length squared, and the conversation model
 *   recognises a message it has placed already by identity.
 * It also notes content it could not read whole (JSON text that does not parse: usually cut short).
 */
const SHARED_ATTRIBUTES = new Set(['gen_ai.system_instructions', 'gen_ai.tool.definitions'])
const shared = new Map<string, unknown>()
const MAX_SHARED = 500
/** Earlier inputs an input is compared with: the calls of one agent loop come in order, so the last few suffice. */
const RECENT_INPUTS = 4

export class ContentReader {
  /** Some content attribute held JSON text that did not parse (cut short by a size limit, most often). */
  unreadable = false
  private readonly contents = new Map<Span, SpanContent>()
  private readonly messages = new Map<object, ChatMessage>()
  private readonly recentInputs: { text: string; items: unknown[] }[] = []

  private readonly tools = new Map<Span, ToolInvocation>()

  /** A tool span as a tool invocation; the same object on every call for one span. */
  tool(span: Span): ToolInvocation {
    let call = this.tools.get(span)
    if (!call) this.tools.set(span, (call = toolInvocation(span)))
    return call
  }

  /** The span's content; the same object on every call for one span. */
  of(span: Span): SpanContent {
    let content = this.contents.get(span)
    if (!content) {
      content = spanContent(span, this.parse, this.messages)
      this.contents.set(span, content)
    }
    return content
  }

  readonly parse: ContentParser = (value, attribute) => {
    if (typeof value !== 'string') return value
    if (attribute === 'gen_ai.input.messages') return this.input(value)
    if (!SHARED_ATTRIBUTES.has(attribute)) return this.json(value)
    const known = shared.get(value) // never undefined once stored: parsing text yields text or a value
    if (known !== undefined) return known
    const parsed = this.json(value)
    if (shared.size >= MAX_SHARED) shared.delete(shared.keys().next().value!)
    shared.set(value, parsed)
    return parsed
  }

  private input(text: string): unknown {
    // Newest first: the call just before is the one this input most likely extends.
    let best: { text: string; items: unknown[] } | undefined
    for (let i = this.recentInputs.length - 1; i >= 0 && !best; i--) {
      const earlier = this.recentInputs[i]!
      if (earlier.text === text) return earlier.items
      if (extendsList(text, earlier.text)) best = earlier
    }
    let items: unknown
    if (best) {
      const appended = this.json(`[${text.slice(best.text.length)}`)
      items = Array.isArray(appended) ? [...best.items, ...appended] : this.json(text)
    } else items = this.json(text)
    if (Array.isArray(items)) {
      this.recentInputs.push({ text, items })
      if (this.recentInputs.length > RECENT_INPUTS) this.recentInputs.shift()
    }
    return items
  }

  private json(text: string): unknown {
    const parsed = parseJsonValue(text)
    if (parsed === text && looksLikeJson(text)) this.unreadable = true
    return parsed
  }
}

/** `text` is the JSON array `earlier` with elements appended: `[a,b]` → `[a,b,c]`. */
function extendsList(text: string, earlier: string): boolean {
  return (
    text.length > earlier.length &&
    earlier.endsWith(']') &&
    text.charCodeAt(earlier.length - 1) === 44 /* , */ &&
    // Equality of two slices compares memory; startsWith walks the text a character at a time.
    text.slice(0, earlier.length - 1) === earlier.slice(0, -1)
  )
}

function looksLikeJson(text: string): boolean {
  const t = text.trimStart()
  return t.startsWith('[{') || t.startsWith('{"') || t.startsWith('[]')
}
