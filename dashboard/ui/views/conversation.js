import { badge, h, pretty } from '../dom.js'

/**
 * A conversation (`conversation` of GET /api/traces/:id or /api/sessions/:id) as a chat: system
 * instructions collapsed, user and assistant bubbles, each tool call folded with its arguments and
 * its result (an error marked). The trace page and the session page both render it with this.
 * Every turn names the span it was read from (`data-span`); clicking it calls `onSelect(turn)`.
 * Turns a trace was given as history (said before it began, sent to its model again) are folded
 * apart, above what the trace did: context, never the trace's own.
 */
export function conversationPanel(conversation, { onSelect } = {}) {
  const select = (turn) => (e) => {
    // A click inside a tool's fold selects the innermost turn only.
    e.stopPropagation()
    onSelect?.(turn)
  }
  const onKey = (turn) => (e) => {
    if (e.key === 'Enter' && e.target === e.currentTarget) onSelect?.(turn)
  }
  const at = (turn) => ({ 'data-span': turn.spanId, 'data-trace': turn.traceId, 'data-role': turn.role, title: `span ${turn.spanId}` })

  const notes = []
  if (conversation.contentMissing) {
    notes.push(
      h(
        'p',
        { class: 'note' },
        `No messages to show: only tool calls, timings and attributes were recorded; ${conversation.contentHint || 'message content is opt-in in the GenAI conventions'}.`,
      ),
    )
  }
  if (conversation.truncated) {
    notes.push(
      h(
        'div',
        { class: 'note warn' },
        'Part of this conversation is missing or cut:',
        h(
          'ul',
          {},
          conversation.truncation.map((reason) => h('li', {}, reason)),
        ),
      ),
    )
  }

  const items = []
  let history = null
  const paired = new Set()
  const turns = conversation.turns
  turns.forEach((turn, i) => {
    if (paired.has(turn)) return
    const into = turn.history ? (history ??= []) : items
    if (!turn.history && history) {
      items.push(historyFold(history))
      history = null
    }
    if (turn.role === 'system') {
      into.push(
        h('details', { class: 'turn turn-system', ...at(turn) }, h('summary', { onclick: select(turn) }, 'System instructions'), h('pre', {}, turn.text)),
      )
    } else if (turn.role === 'user' || turn.role === 'assistant') {
      into.push(
        h(
          'div',
          { class: `turn turn-${turn.role}`, ...at(turn), tabindex: 0, role: 'button', onclick: select(turn), onkeydown: onKey(turn) },
          h('div', { class: 'turn-label' }, turn.role === 'user' ? 'User' : 'Assistant'),
          h('div', { class: 'bubble' }, turn.text),
        ),
      )
    } else {
      const call = turn.role === 'tool_call' ? turn : undefined
      const result = call ? resultOf(turns, i, paired) : turn
      if (result) paired.add(result)
      into.push(toolFold(call, result, { select, at }))
    }
  })
  if (history) items.push(historyFold(history))

  return h(
    'section',
    { class: 'conversation', 'aria-label': 'Conversation' },
    h('h2', {}, 'Conversation'),
    notes,
    items.length ? h('div', { class: 'turns' }, items) : conversation.contentMissing ? null : h('p', { class: 'empty' }, 'No turns.'),
  )
}

/** Turns said before the trace began, folded: what its model calls were sent again as history. */
function historyFold(turns) {
  const count = `${turns.length} ${turns.length === 1 ? 'entry' : 'entries'}`
  return h(
    'details',
    { class: 'turn turn-history', 'data-role': 'history' },
    h('summary', {}, `History: ${count} said before this trace, sent to the model again (context, not this trace's actions)`),
    h('div', { class: 'turns' }, turns),
  )
}

/** The result of the tool call at `i`: same trace and call id, or without ids the next result of the same tool. */
function resultOf(turns, i, paired) {
  const call = turns[i]
  for (let j = i + 1; j < turns.length; j++) {
    const t = turns[j]
    if (t.role !== 'tool_result' || paired.has(t) || t.traceId !== call.traceId) continue
    if (call.callId ? t.callId === call.callId : !t.callId && (!t.name || t.name === call.name)) return t
  }
  return undefined
}

function toolFold(call, result, { select, at }) {
  const name = call?.name || result?.name || 'tool'
  const failed = Boolean(result?.error)
  const value = (v, text) => (v !== undefined ? pretty(v) : text)
  const head = call ?? result
  return h(
    'details',
    { class: `turn turn-tool${failed ? ' failed' : ''}`, ...at(head), 'data-call': head.callId },
    h(
      'summary',
      { onclick: select(head) },
      call ? 'Tool call ' : 'Tool result ',
      h('strong', { class: 'mono' }, name),
      failed ? [' ', badge(false, 'error')] : null,
      call && !result ? h('span', { class: 'meta' }, ' · no result recorded') : null,
    ),
    call
      ? h(
          'div',
          { class: 'tool-part', ...at(call), onclick: select(call) },
          h('h4', {}, 'Arguments'),
          h('pre', {}, value(call.arguments, call.text) || '(none)'),
        )
      : null,
    result
      ? h(
          'div',
          { class: 'tool-part', ...at(result), onclick: select(result) },
          h('h4', {}, failed ? 'Error' : 'Result'),
          failed ? h('p', { class: 'error' }, result.error) : null,
          result.result !== undefined || !failed ? h('pre', {}, value(result.result, result.text)) : null,
        )
      : null,
  )
}
