import { get, post } from '../api.js'
import { badge, errorBox, h, plural } from '../dom.js'

/** Why a trace is in the queue, as people read it. */
const REASONS = {
  panel_disagreement: 'the judges of a panel disagreed',
  unverified_evidence: 'its evidence was not found in the trace',
  untrusted: 'a dimension judged is untrusted',
  few_labels: 'a dimension judged has too few labels',
  random: 'a random share of judged traces',
  manual: 'added by a person',
}

/**
 * The review page's session: loads one trace of the queue after another into `stage` and answers
 * the keys. What this page labelled and skipped is remembered, newest last: `u` takes back the
 * newest (the label shown, or the trace before the one shown) and brings its trace back.
 */
export function reviewSession({ root, rubric, reviewer, stage, remaining, counted, showCalibration, conversationPanel }) {
  const done = []
  let state = null

  async function load(traceId) {
    state = null
    stage.replaceChildren(h('p', { class: 'loading' }, 'Loading…'))
    try {
      const data = await get('/review/next', { rubric, reviewer, traceId })
      remaining.textContent = `${plural(data.remaining, 'trace')} waiting for you`
      counted(data.remaining)
      if (!data.item) {
        stage.replaceChildren(h('p', { class: 'empty review-done' }, 'Nothing waits for you in this queue.'))
        return
      }
      state = itemView(data)
      stage.replaceChildren(state.element)
    } catch (err) {
      stage.replaceChildren(errorBox(err))
    }
  }

  function itemView({ item, rubric: r }) {
    const view = { item, levels: {}, at: 0, phase: 'labelling' }
    const dimensions = r.dimensions.map((d, i) => {
      // A click gives the level and moves on, as its key does: not also a click on the dimension around it.
      const pick = (score) => (e) => {
        e.stopPropagation()
        if (view === state) choose(i, score)
      }
      const buttons = d.levels.map((l) =>
        h('button', { class: 'level', type: 'button', 'data-level': l.score, onclick: pick(l.score) }, h('kbd', {}, String(l.score)), ' ', l.anchor),
      )
      const slot = h('div', { class: 'verdict-slot' })
      const element = h(
        'div',
        { class: 'dimension', 'data-dimension': d.id, onclick: () => view === state && view.phase === 'labelling' && focus(i) },
        h('h3', {}, d.name, h('span', { class: 'meta' }, ` · passes at ${d.passAt}`)),
        h('p', { class: 'definition' }, d.definition),
        h(
          'ol',
          { class: 'levels' },
          buttons.map((b) => h('li', {}, b)),
        ),
        slot,
      )
      return { d, element, buttons, slot }
    })
    const note = h('textarea', { name: 'note', maxlength: 2000, rows: 2, placeholder: 'Optional note (c to write, Esc to leave)' })
    const status = h('p', { class: 'status', role: 'status' })
    const why = [
      `in the queue: ${REASONS[item.reason] ?? item.reason}`,
      item.dimensions.length ? ` (${item.dimensions.join(', ')})` : '',
      item.labellers ? ` · labelled by ${plural(item.labellers, 'person', 'people')} before you` : '',
    ]
    const conversation = item.conversation
      ? conversationPanel(item.conversation)
      : h('p', { class: 'note warn' }, 'This trace is no longer stored (past retention): skip it with n.')
    const form = h(
      'section',
      { class: 'rubric-form', 'data-trace': item.traceId },
      h('h2', {}, item.rootName ?? 'Trace', ' ', h('span', { class: 'mono meta' }, item.traceId)),
      h('p', { class: 'meta' }, why.join('')),
      dimensions.map((x) => x.element),
      h('label', { class: 'note-field' }, 'Note ', note),
      status,
    )
    Object.assign(view, { element: h('div', { class: 'review-layout' }, conversation, form), dimensions, note, status, form, choose, focus })
    queueMicrotask(() => focus(0))
    return view

    function focus(i) {
      view.at = i
      dimensions.forEach((x, j) => x.element.classList.toggle('current', j === i))
      dimensions[i]?.element.scrollIntoView({ block: 'nearest' })
    }

    function choose(i, level) {
      if (view.phase !== 'labelling') return
      const { d, buttons } = dimensions[i]
      view.levels[d.id] = level
      buttons.forEach((b) => b.classList.toggle('chosen', Number(b.dataset.level) === level))
      const open = dimensions.findIndex((x, j) => j > i && view.levels[x.d.id] === undefined)
      const next = open >= 0 ? open : dimensions.findIndex((x) => view.levels[x.d.id] === undefined)
      if (next >= 0) return focus(next)
      focus(-1)
      void submit(view)
    }
  }

  async function submit(view) {
    view.phase = 'busy'
    view.status.replaceChildren('Storing your label…')
    try {
      const noteText = view.note.value.trim()
      const r = await post('/review/labels', { rubric, traceId: view.item.traceId, reviewer, labels: view.levels, ...(noteText ? { note: noteText } : {}) })
      done.push({ traceId: view.item.traceId, kind: 'label' })
      // Now, and not before: the judge's verdict beside the reviewer's own label.
      for (const { d, slot } of view.dimensions)
        slot.replaceChildren(
          verdictLine(
            d,
            view.levels[d.id],
            r.verdict.dimensions.find((v) => v.dimension === d.id),
            r.others,
          ),
        )
      view.form.classList.add('revealed')
      view.status.replaceChildren(
        r.verdict.judged ? "Stored. The judge's verdict is beside yours. " : 'Stored. The judge has not judged this trace. ',
        'Enter or n: next trace · u: undo this label · ',
        h('a', { href: `#/trace/${view.item.traceId}` }, 'open the trace'),
      )
      showCalibration(r.calibration)
      document.activeElement?.blur?.()
      view.phase = 'revealed'
    } catch (err) {
      view.status.replaceChildren(errorBox(err))
      view.phase = 'labelling'
    }
  }

  async function skip(view) {
    view.phase = 'busy'
    try {
      await post('/review/skip', { rubric, traceId: view.item.traceId, reviewer })
      done.push({ traceId: view.item.traceId, kind: 'skip' })
      await load()
    } catch (err) {
      view.status.replaceChildren(errorBox(err))
      view.phase = 'labelling'
    }
  }

  async function undo(view) {
    const last = done.pop()
    if (!last) return view?.status.replaceChildren('Nothing to undo on this page.')
    if (view) view.phase = 'busy'
    try {
      const r = await post('/review/undo', { rubric, traceId: last.traceId, reviewer })
      showCalibration(r.calibration)
      await load(last.traceId)
      state?.status.replaceChildren(last.kind === 'label' ? 'Your label was withdrawn: label this trace again.' : 'Skip undone.')
    } catch (err) {
      done.push(last)
      ;(state ?? view)?.status.replaceChildren(errorBox(err))
      if (view) view.phase = 'labelling'
    }
  }

  function onKey(e) {
    if (!root.isConnected) return document.removeEventListener('keydown', onKey)
    if (e.ctrlKey || e.metaKey || e.altKey) return
    if (e.target.closest?.('input, textarea, select')) {
      if (e.key === 'Escape') e.target.blur()
      return
    }
    const view = state
    if (e.key === 'u') return void undo(view?.phase === 'busy' ? undefined : view)
    if (!view || view.phase === 'busy') return
    if (/^\d$/.test(e.key) && view.phase === 'labelling') {
      e.preventDefault()
      const x = view.dimensions[view.at]
      if (!x) return
      if (!x.d.levels.some((l) => l.score === Number(e.key))) {
        view.status.replaceChildren(`${x.d.name} has no level ${e.key}: its scale is ${x.d.levels[0].score} to ${x.d.levels.at(-1).score}.`)
        return
      }
      view.choose(view.at, Number(e.key))
    } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (view.phase !== 'labelling') return
      e.preventDefault()
      const n = view.dimensions.length
      view.focus((view.at + (e.key === 'ArrowDown' ? 1 : n - 1)) % n)
    } else if (e.key === 'c') {
      e.preventDefault()
      view.note.focus()
    } else if (e.key === 'n') {
      void (view.phase === 'revealed' ? load() : skip(view))
    } else if (e.key === 'Enter' && view.phase === 'revealed') {
      e.preventDefault()
      void load()
    }
  }
  document.addEventListener('keydown', onKey)
  void load()
}

/** The reviewer's level and the judge's side by side, with how far apart they are. */
function verdictLine(d, mine, verdict, others) {
  const level = verdict?.level ?? null
  const apart = level === null ? null : Math.abs(level - mine)
  const judge = !verdict ? 'Judge: did not judge this dimension' : level === null ? `Judge: no level (${verdict.error})` : `Judge: ${level}`
  return h(
    'div',
    { class: `judge-verdict ${apart === null ? '' : apart === 0 ? 'exact' : apart === 1 ? 'within-one' : 'apart'}`, 'data-judge-level': level ?? '' },
    h('strong', { class: 'you' }, `You: ${mine}`),
    ' · ',
    h('span', { class: 'judge' }, judge),
    verdict?.trusted === false ? [' ', badge(false, 'untrusted')] : null,
    others.length ? h('span', { class: 'others' }, ` · ${others.map((o) => `${o.reviewer}: ${o.labels[d.id] ?? '–'}`).join(', ')}`) : null,
    verdict?.explanation ? h('p', { class: 'explanation' }, verdict.explanation) : null,
  )
}
