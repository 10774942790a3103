import { h, plural } from '../dom.js'

/** What an export did: where the examples went, and why each skipped trace was left out. */
export function exportOutcome(r) {
  const done = `Exported ${plural(r.exported, 'example')} to ${r.destination}.`
  if (!r.skipped.length) return done
  return h(
    'span',
    {},
    `${done} Skipped ${plural(r.skipped.length, 'trace')}:`,
    h(
      'ul',
      { class: 'skipped' },
      r.skipped.map((s) => h('li', {}, h('span', { class: 'mono' }, `${s.traceId.slice(0, 12)}…`), `: ${s.reason}`)),
    ),
  )
}
