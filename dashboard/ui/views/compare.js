import { get } from '../api.js'
import { badge, h, num, pct, plural } from '../dom.js'

const DIMENSIONS = { agent_version: 'Agent version', prompt_version: 'Prompt version', model: 'Model', service: 'Service' }

/** Two versions side by side: per-check pass rates, deltas and whether the change is significant. */
export async function compareView({ params, navigate }) {
  const month = { from: new Date(Date.now() - 30 * 86400e3).toISOString(), to: new Date().toISOString() }
  const versionsBy = async (dimension) => {
    const groups = await get('/quality', { ...month, interval: '1d', groupBy: dimension })
    return [...new Set(groups.series.map((s) => s.group))].filter(Boolean).sort()
  }
  // Unless asked, compare along the first dimension that has two versions (often only the prompt changed).
  let by = params.by
  let versions = by ? await versionsBy(by) : []
  if (!by) {
    for (const dimension of Object.keys(DIMENSIONS)) {
      versions = await versionsBy(dimension)
      by = dimension
      if (versions.length >= 2) break
    }
    if (versions.length < 2) by = 'agent_version'
  }
  const a = params.a ?? versions.at(-2) ?? ''
  const b = params.b ?? versions.at(-1) ?? ''

  const select = (name, value) =>
    h(
      'select',
      { name, onchange: (e) => navigate('/compare', { by, a, b, [name]: e.target.value }) },
      versions.map((v) => h('option', { value: v, selected: v === value }, v)),
    )
  const controls = h(
    'div',
    { class: 'toolbar' },
    h('h1', {}, 'Compare versions'),
    h(
      'label',
      {},
      'By ',
      h(
        'select',
        { name: 'by', onchange: (e) => navigate('/compare', { by: e.target.value }) },
        Object.entries(DIMENSIONS).map(([k, label]) => h('option', { value: k, selected: k === by }, label)),
      ),
    ),
    h('label', {}, 'A ', select('a', a)),
    h('label', {}, 'B ', select('b', b)),
  )
  if (!a || !b)
    return h(
      'div',
      {},
      controls,
      h(
        'p',
        { class: 'empty' },
        `Fewer than two ${params.by ? `${DIMENSIONS[by].toLowerCase()}s` : 'versions of any kind (agent, prompt, model, service)'} have scores in the last 30 days.`,
      ),
    )

  const c = await get('/compare', { a, b, by, ...month })
  const side = (s) => `${pct(s.passRate)} (${num(s.passed)}/${num(s.scored)})`
  return h(
    'div',
    { class: 'compare' },
    controls,
    h('p', {}, `${plural(c.traces.a, 'trace')} of ${a}, ${plural(c.traces.b, 'trace')} of ${b}, last 30 days.`),
    h(
      'table',
      {},
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['Check', 'Kind', `A: ${a}`, `B: ${b}`, 'Δ pass rate', 'Δ mean score', 'z', ''].map((t) => h('th', {}, t)),
        ),
      ),
      h(
        'tbody',
        {},
        c.checks.map((d) =>
          h(
            'tr',
            { class: d.regression ? 'regression' : '' },
            h('td', {}, h('a', { href: `#/worst?check=${encodeURIComponent(d.check)}&${by}=${encodeURIComponent(b)}&range=30d` }, d.check)),
            h('td', {}, d.kind),
            h('td', {}, side(d.a)),
            h('td', {}, side(d.b)),
            h('td', {}, d.passRateDelta === null ? '–' : `${d.passRateDelta > 0 ? '+' : ''}${(d.passRateDelta * 100).toFixed(1)} pt`),
            h('td', {}, d.meanValueDelta === null ? '–' : d.meanValueDelta.toFixed(3)),
            h('td', {}, d.z === null ? '–' : d.z.toFixed(2)),
            h('td', {}, d.regression ? badge(false, 'regression') : ''),
          ),
        ),
      ),
    ),
  )
}
