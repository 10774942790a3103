import { get, post, reviewerName } from '../api.js'
import { badge, errorBox, h, ms, num, plural, pretty, when } from '../dom.js'
import { conversationPanel } from './conversation.js'
import { exportOutcome } from './export-outcome.js'

/** Attributes that hold LLM and tool content, shown as blocks rather than table rows. */
const CONTENT = [
  ['gen_ai.system_instructions', 'System instructions'],
  ['gen_ai.input.messages', 'Input messages'],
  ['gen_ai.output.messages', 'Output messages'],
  ['gen_ai.prompt', 'Prompt'],
  ['gen_ai.completion', 'Completion'],
  ['gen_ai.tool.call.arguments', 'Tool arguments'],
  ['gen_ai.tool.call.result', 'Tool result'],
]

const nanos = (s) => BigInt(s)

/**
 * Verdicts stored but kept out of every mean, by their label: the judge's (judge/README.md, "One judge
 * call"), and checks whose input the trace lacks (scorer/README.md, "Not measured").
 */
const KEPT_OUT = { unverified_evidence: 'unverified evidence', truncated: 'truncated transcript', not_measured: 'not measured' }

function flatten(nodes, depth = 0, out = []) {
  for (const n of nodes) {
    out.push({ span: n, depth })
    flatten(n.children, depth + 1, out)
  }
  return out
}

/** Span ids a score points at: its own span, spans named in its detail, and judge evidence. */
function citedSpans(score) {
  const ids = new Set()
  if (score.spanId) ids.add(score.spanId)
  const visit = (v) => {
    if (typeof v === 'string' && /^[0-9a-f]{16}$/.test(v)) ids.add(v)
    else if (Array.isArray(v)) v.forEach(visit)
    else if (v && typeof v === 'object') Object.values(v).forEach(visit)
  }
  visit(score.detail)
  visit(score.evidence)
  return ids
}

/** The page of one trace; `?span=<id>` selects that span (the session page links turns so). */
export async function traceView({ match, params }) {
  const traceId = match[1].toLowerCase()
  const data = await get(`/traces/${traceId}`)
  const rows = flatten(data.trace.roots)
  // biome-ignore lint/complexity/useMathMinMax: the times are BigInts, which Math.min does not take
  const t0 = rows.reduce((m, r) => (nanos(r.span.startTimeUnixNano) < m ? nanos(r.span.startTimeUnixNano) : m), nanos(rows[0].span.startTimeUnixNano))
  // biome-ignore lint/complexity/useMathMinMax: the times are BigInts, which Math.min does not take
  const t1 = rows.reduce((m, r) => (nanos(r.span.endTimeUnixNano) > m ? nanos(r.span.endTimeUnixNano) : m), 0n)
  const total = Number(t1 - t0) || 1

  const detail = h('section', { class: 'span-detail' }, h('p', { class: 'empty' }, 'Select a span to see its inputs, outputs and attributes.'))
  const spanRows = new Map()
  const select = (span) => {
    for (const [id, row] of spanRows) row.classList.toggle('selected', id === span.spanId)
    // The turns read from the selected span are marked in the conversation.
    for (const turn of conversation.querySelectorAll('[data-span]')) turn.classList.toggle('current', turn.dataset.span === span.spanId)
    detail.replaceChildren(...spanDetail(span).flat(Infinity))
  }
  const selectById = (spanId) => {
    const row = rows.find((r) => r.span.spanId === spanId)
    if (!row) return
    select(row.span)
    spanRows.get(spanId).scrollIntoView({ block: 'nearest' })
  }
  const conversation = conversationPanel(data.conversation, { onSelect: (turn) => selectById(turn.spanId) })
  const tree = h(
    'div',
    { class: 'waterfall', role: 'tree' },
    rows.map(({ span, depth }) => {
      const start = Number(nanos(span.startTimeUnixNano) - t0) / total
      const width = Math.max(Number(nanos(span.endTimeUnixNano) - nanos(span.startTimeUnixNano)) / total, 0.002)
      const duration = Number(nanos(span.endTimeUnixNano) - nanos(span.startTimeUnixNano)) / 1e6
      const row = h(
        'div',
        { class: `span-row ${span.status.code === 'ERROR' ? 'error' : ''}`, role: 'treeitem', 'data-span': span.spanId, onclick: () => select(span) },
        h('div', { class: 'span-name', style: `padding-left:${depth * 16}px` }, span.name),
        h('div', { class: 'span-bar-track' }, h('div', { class: 'span-bar', style: `left:${start * 100}%;width:${width * 100}%` })),
        h('div', { class: 'span-time' }, ms(duration)),
      )
      spanRows.set(span.spanId, row)
      return row
    }),
  )

  // The conversation's turn a failed check points at: marked, its tool fold open, and kept in view
  // while other folds open and close around it.
  let citedTurn = null
  const keepCitedInView = () => citedTurn?.scrollIntoView({ block: 'nearest' })
  conversation.addEventListener('toggle', () => queueMicrotask(keepCitedInView), true)
  const highlight = (ids) => {
    for (const [id, row] of spanRows) row.classList.toggle('cited', ids.has(id))
    const first = [...ids].find((id) => spanRows.has(id))
    if (first) select(rows.find((r) => r.span.spanId === first).span)
    const turns = [...conversation.querySelectorAll('[data-span]')].filter((t) => ids.has(t.dataset.span))
    for (const turn of conversation.querySelectorAll('.cited')) turn.classList.remove('cited')
    for (const turn of turns) turn.classList.add('cited')
    citedTurn = turns[0]?.closest('.turn') ?? null
    citedTurn?.classList.add('cited')
    if (citedTurn?.tagName === 'DETAILS' && !citedTurn.classList.contains('turn-history')) citedTurn.open = true
    keepCitedInView()
  }
  // The scorecard is the verdict over the scores below: shown above them, not as one of them.
  const card = data.scores.find((s) => s.kind === 'scorecard')
  const scored = data.scores.filter((s) => s.kind !== 'scorecard')
  const scores = h(
    'section',
    { class: 'scores' },
    h('h2', {}, 'Checks and judge'),
    card
      ? h(
          'p',
          { class: 'scorecard-verdict', 'data-passed': String(card.passed) },
          badge(card.passed),
          ' ',
          h('strong', {}, `Scorecard ${card.detail?.card ?? ''}`),
          ` · ${card.explanation}`,
        )
      : null,
    scored.length === 0 ? h('p', { class: 'empty' }, 'Not scored yet.') : null,
    scored.map((s) =>
      h(
        'details',
        {
          class: `score ${s.error ? 'judge-error' : s.passed ? 'passed' : 'failed'}`,
          'data-check': s.name,
          open: !s.passed && !s.error,
          ontoggle: (e) => e.target.open && highlight(citedSpans(s)),
        },
        h(
          'summary',
          {},
          s.error ? badge(false, KEPT_OUT[s.label] ?? (s.kind === 'judge' ? 'judge error' : 'error')) : badge(s.passed),
          ' ',
          h('strong', {}, s.name),
          ` ${s.kind} v${s.version} · value ${num(s.value)}`,
          s.label ? ` · ${s.label}` : '',
          s.trusted === false
            ? [
                ' ',
                h(
                  'span',
                  {
                    class: 'badge warn',
                    title: 'This judge dimension (or one its score reads) disagrees with human labels: its calibration breaks a trust rule',
                  },
                  'untrusted',
                ),
              ]
            : null,
        ),
        s.error ? h('p', { class: 'error' }, s.error) : null,
        s.explanation ? h('p', { class: 'explanation' }, s.explanation) : null,
        s.detail !== null ? h('div', {}, h('h4', {}, 'Detail'), h('pre', { class: 'detail' }, pretty(s.detail))) : null,
        s.evidence !== null && !(Array.isArray(s.evidence) && s.evidence.length === 0)
          ? h('div', {}, h('h4', {}, 'Evidence'), h('pre', {}, pretty(s.evidence)))
          : null,
        s.kind === 'judge'
          ? h('p', { class: 'meta' }, [s.judgeModel, s.rubric, s.sampleReason && `sampled: ${s.sampleReason}`].filter(Boolean).join(' · '))
          : null,
      ),
    ),
  )
  const feedback = h(
    'section',
    { class: 'feedback' },
    h('h2', {}, 'User feedback'),
    data.feedback.length
      ? h(
          'ul',
          {},
          data.feedback.map((f) =>
            h(
              'li',
              {},
              badge(f.score > 0, `score ${f.score}`),
              ` ${f.comment || '(no comment)'} — ${f.source}${f.userId ? ` ${f.userId}` : ''}, ${when(f.createdAt)}`,
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'No feedback.'),
  )
  const status = h('span', { class: 'status', role: 'status' })
  const exportButton = h('button', {}, 'Export to dataset')
  exportButton.addEventListener('click', async () => {
    try {
      const r = await post('/export', { traceIds: [traceId] })
      status.replaceChildren(exportOutcome(r))
    } catch (err) {
      status.replaceChildren(errorBox(err))
    }
  })

  const review = reviewControl(traceId, data.scores)

  const failed = data.scores.find((s) => !s.passed && !s.error)
  if (failed) queueMicrotask(() => highlight(citedSpans(failed)))
  // A span asked for in the address wins over the failed check's first cited span.
  if (params.span) queueMicrotask(() => queueMicrotask(() => selectById(params.span)))
  const session = data.sessionId
    ? [' · session ', h('a', { href: `#/sessions/${encodeURIComponent(data.sessionId)}`, class: 'mono session-link' }, data.sessionId)]
    : null
  return h(
    'div',
    { class: 'trace' },
    h('div', { class: 'toolbar' }, h('h1', {}, 'Trace ', h('span', { class: 'mono' }, traceId)), exportButton, status, review),
    h('p', { class: 'meta' }, `${plural(data.trace.spanCount, 'span')} · ${ms(total / 1e6)}${data.trace.complete ? '' : ' · incomplete'}`, session),
    h('div', { class: 'trace-layout' }, h('div', {}, tree, detail), h('div', {}, conversation, scores, feedback)),
  )
}

/**
 * "Add to review queue": the trace into a rubric's queue (POST /api/review/queue), by default the
 * rubric the judge scored it on. The rubrics come with the page's first click, not before.
 */
function reviewControl(traceId, scores) {
  const judged = scores.find((s) => s.kind === 'judge' && s.rubric)?.rubric.split('@')[0]
  const status = h('span', { class: 'status review-status', role: 'status' })
  const picker = h('select', { name: 'review-rubric', hidden: true })
  const button = h('button', {}, 'Add to review queue')
  button.addEventListener('click', async () => {
    const reviewer = reviewerName.get()
    if (!reviewer) return status.replaceChildren(errorBox(new Error('Enter your reviewer name on the Review page first: it is recorded with what you add.')))
    try {
      if (picker.hidden) {
        const { queues } = await get('/review/queues')
        picker.replaceChildren(...queues.map((q) => h('option', { value: q.rubric, selected: q.rubric === (judged ?? queues[0]?.rubric) }, q.title)))
        picker.hidden = false
        if (!judged) return status.replaceChildren('Choose the rubric, then add.')
      }
      const r = await post('/review/queue', { rubric: picker.value, traceId, reviewer })
      status.replaceChildren(r.added ? `Added to the ${r.rubric} review queue.` : `Not added: ${r.why}.`)
    } catch (err) {
      status.replaceChildren(errorBox(err))
    }
  })
  return h('span', { class: 'review-add' }, picker, button, status)
}

function spanDetail(span) {
  const attrs = span.attributes ?? {}
  const content = CONTENT.filter(([k]) => attrs[k] !== undefined).map(([k, label]) =>
    h('div', { class: 'content' }, h('h4', {}, label), h('pre', {}, pretty(attrs[k]))),
  )
  const events = (span.events ?? []).map((e) => h('div', { class: 'content' }, h('h4', {}, `Event ${e.name}`), h('pre', {}, pretty(e.attributes))))
  const other = Object.entries(attrs).filter(([k]) => !CONTENT.some(([c]) => c === k))
  return [
    h('h3', {}, span.name, ' ', span.status.code === 'ERROR' ? badge(false, `error${span.status.message ? `: ${span.status.message}` : ''}`) : null),
    h('p', { class: 'meta mono' }, `span ${span.spanId} · ${span.kind} · ${span.serviceName}`),
    content,
    events,
    h(
      'table',
      { class: 'attrs' },
      h(
        'tbody',
        {},
        other.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, typeof v === 'string' ? v : JSON.stringify(v)))),
      ),
    ),
  ]
}
