import { get } from '../api.js'
import { h, ms, num, when } from '../dom.js'
import { conversationPanel } from './conversation.js'

/**
 * A session: the traces sharing one `gen_ai.conversation.id` / `session.id`, and the whole
 * conversation across them. A turn opens its trace with its span selected.
 */
export async function sessionView({ match, navigate }) {
  const sessionId = decodeURIComponent(match[1])
  const data = await get(`/sessions/${encodeURIComponent(sessionId)}`)
  const rows = data.traces.map((t, i) =>
    h(
      'tr',
      { 'data-trace': t.traceId },
      h('td', {}, `${i + 1}`),
      h('td', {}, h('a', { href: `#/trace/${t.traceId}`, class: 'mono' }, `${t.traceId.slice(0, 12)}…`)),
      h('td', {}, when(t.startTime)),
      h('td', {}, t.rootName, t.complete ? '' : h('span', { class: 'meta' }, ' (incomplete)')),
      h('td', {}, ms(t.durationMs)),
      h('td', {}, num(t.spanCount)),
      h('td', { class: t.errorCount ? 'error-count' : '' }, num(t.errorCount)),
    ),
  )
  return h(
    'div',
    { class: 'session' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Session ', h('span', { class: 'mono' }, sessionId))),
    h(
      'p',
      { class: 'meta' },
      `${data.traces.length} trace${data.traces.length === 1 ? '' : 's'}${data.earlierTracesOmitted ? ' (the newest; older ones left out)' : ''} · ${data.conversation.turns.length} turns`,
    ),
    h(
      'div',
      { class: 'session-layout' },
      h(
        'section',
        { class: 'session-traces' },
        h('h2', {}, 'Traces'),
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['#', 'Trace', 'Start (UTC)', 'Root', 'Duration', 'Spans', 'Errors'].map((t) => h('th', {}, t)),
            ),
          ),
          h('tbody', {}, rows),
        ),
      ),
      conversationPanel(data.conversation, { onSelect: (turn) => navigate(`/trace/${turn.traceId}`, { span: turn.spanId }) }),
    ),
  )
}
