import { get, post } from '../api.js'
import { errorBox, h, ms, num, when } from '../dom.js'
import { exportOutcome } from './export-outcome.js'
import { defaultRange, rangeParams, rangePicker } from './range.js'
import { trafficPicker } from './traffic.js'

const FILTERS = ['check', 'agent_version', 'prompt_version', 'model', 'service', 'environment']

/** The lowest-scoring traces with filters, and "export to dataset" for the selected ones. */
export async function worstView({ params, navigate }) {
  const status = await get('/status')
  const judgeOn = status.judge.on
  const range = params.range ?? defaultRange(status.oldestTrace)
  // Without a judge there are no judge scores to sort by: failed checks decide the order.
  const sort = judgeOn ? (params.sort ?? 'checks') : 'checks'
  const filters = Object.fromEntries(FILTERS.map((f) => [f, params[f]]))
  const { traces } = await get('/worst', { ...rangeParams(range), sort, limit: 100, ...filters })
  const go = (change) => navigate('/worst', { range, sort, ...filters, ...change })

  const selected = new Set()
  const outcome = h('span', { class: 'status', role: 'status' })
  const exportButton = h('button', { class: 'primary', disabled: true }, 'Export to dataset')
  exportButton.addEventListener('click', async () => {
    exportButton.disabled = true
    outcome.replaceChildren('Exporting…')
    try {
      const r = await post('/export', { traceIds: [...selected] })
      outcome.replaceChildren(exportOutcome(r))
    } catch (err) {
      outcome.replaceChildren(errorBox(err))
    } finally {
      exportButton.disabled = selected.size === 0
    }
  })
  const toggle = (id, on) => {
    on ? selected.add(id) : selected.delete(id)
    exportButton.disabled = selected.size === 0
    exportButton.textContent = `Export to dataset${selected.size ? ` (${selected.size})` : ''}`
  }

  const filterForm = h(
    'form',
    {
      class: 'filters',
      onsubmit: (e) => {
        e.preventDefault()
        go(Object.fromEntries(new FormData(e.target)))
      },
    },
    FILTERS.map((f) => h('label', {}, f.replace('_', ' '), h('input', { name: f, value: filters[f] ?? '', size: 14 }))),
    judgeOn &&
      h(
        'label',
        {},
        'sort',
        h(
          'select',
          { name: 'sort' },
          h('option', { value: 'checks', selected: sort === 'checks' }, 'failed checks'),
          h('option', { value: 'judge', selected: sort === 'judge' }, 'judge score'),
        ),
      ),
    h('button', { type: 'submit' }, 'Apply'),
  )

  const rows = traces.map((t) =>
    h(
      'tr',
      { 'data-trace': t.traceId },
      h('td', {}, h('input', { type: 'checkbox', 'aria-label': `select ${t.traceId}`, onchange: (e) => toggle(t.traceId, e.target.checked) })),
      h('td', {}, h('a', { href: `#/trace/${t.traceId}`, class: 'mono' }, `${t.traceId.slice(0, 12)}…`)),
      h('td', {}, when(t.startTime)),
      h('td', {}, t.rootName),
      h('td', {}, t.agentVersion),
      h('td', {}, t.promptVersion),
      h(
        'td',
        {},
        t.failedChecks.map((c) => h('span', { class: 'badge fail' }, c)),
        t.judgeFailed.map((c) => h('span', { class: 'badge warn' }, c)),
      ),
      h('td', {}, `${num(t.checksFailed)}/${num(t.checks)}`),
      // judgeMean: the rubrics' weighted scores only; the dimensions' mean is a separate figure.
      judgeOn &&
        h(
          'td',
          { title: t.judgeDimensionMean === null ? undefined : `dimensions' mean ${t.judgeDimensionMean.toFixed(2)}` },
          t.judgeMean === null ? '–' : t.judgeMean.toFixed(2),
          t.judgeUntrusted
            ? [
                ' ',
                h(
                  'span',
                  { class: 'badge warn', title: 'A judge dimension of this trace disagrees with human labels: its calibration breaks a trust rule' },
                  'untrusted',
                ),
              ]
            : null,
        ),
      h('td', {}, ms(t.durationMs)),
    ),
  )
  return h(
    'div',
    { class: 'worst' },
    h(
      'div',
      { class: 'toolbar' },
      h('h1', {}, 'Worst traces'),
      trafficPicker(filters.environment, (e) => go({ environment: e })),
      rangePicker(range, (r) => go({ range: r })),
    ),
    filterForm,
    judgeOn
      ? false
      : h('p', { class: 'note judge-off' }, 'Judge off: no JUDGE_MODEL is configured, so traces are ranked by their failed checks and have no judge score.'),
    h('div', { class: 'actions' }, exportButton, outcome),
    traces.length
      ? h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              [
                '',
                'Trace',
                'Start (UTC)',
                'Root',
                'Agent version',
                'Prompt version',
                'Failed',
                'Checks failed',
                ...(judgeOn ? ['Judge mean'] : []),
                'Duration',
              ].map((t) => h('th', {}, t)),
            ),
          ),
          h('tbody', {}, rows),
        )
      : h('p', { class: 'empty' }, 'No failing or judged traces match.'),
  )
}
