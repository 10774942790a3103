import { lineChart } from '../charts.js'
import { badge, h, num, pct } from '../dom.js'

const ci = (a) => (a?.withinOneCi ? `${pct(a.withinOneCi.low)}–${pct(a.withinOneCi.high)}` : '–')
const kappa = (a) => (a ? a.weightedKappa.toFixed(3) : '–')

/**
 * A rubric's calibration (GET /api/review/calibration, or what a label's answer carries): per
 * dimension the judge's agreement with the first labeller and people's with each other, whether it
 * is trusted and which rule failed; and the within-one agreement of both over time. Recomputed as
 * labels arrive, so the figures move with each label.
 */
export function calibrationPanel(view) {
  const { rules } = view
  const row = (d) => {
    const c = d.current
    const status = !c
      ? h('span', { class: 'meta' }, 'not calibrated yet')
      : c.trusted
        ? badge(true, 'trusted')
        : [badge(false, 'untrusted'), ' ', h('span', { class: 'failed-rules' }, c.failed.map((f) => f.message).join('; '))]
    return h(
      'tr',
      { 'data-dimension': d.dimension, 'data-trusted': c ? String(c.trusted) : '' },
      h('td', {}, d.name),
      h('td', { class: 'labels' }, c ? num(c.judge?.n ?? 0) : '0'),
      h('td', { class: 'within-one' }, c?.judge?.n ? `${pct(c.judge.withinOne)} (${ci(c.judge)})` : '–'),
      h('td', { class: 'kappa' }, c?.judge?.n ? kappa(c.judge) : '–'),
      h('td', { class: 'human-pairs' }, num(c?.humans?.n ?? 0)),
      h('td', { class: 'human-within-one' }, c?.humans ? pct(c.humans.withinOne) : '–'),
      h('td', { class: 'human-kappa' }, kappa(c?.humans)),
      h('td', { class: 'status' }, status),
    )
  }
  const table = h(
    'table',
    { class: 'calibration-table' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'Dimension'),
        h('th', { title: 'Labelled traces the judge scored' }, 'Labels'),
        h('th', { title: 'Judge within one level of the first labeller, with its 95% interval' }, 'Judge within one'),
        h('th', { title: 'Quadratic-weighted kappa, judge against the first labeller' }, 'Judge qw kappa'),
        h('th', { title: 'Traces two people labelled' }, 'People: pairs'),
        h('th', { title: 'The two labellers within one level of each other: the ceiling to expect of a judge' }, 'People within one'),
        h('th', {}, 'People qw kappa'),
        h('th', {}, 'Status'),
      ),
    ),
    h('tbody', {}, view.dimensions.map(row)),
  )
  return h(
    'section',
    { class: 'calibration', 'aria-label': 'Calibration' },
    h('h2', {}, `Calibration of ${view.rubric}: the judge against people`),
    h(
      'p',
      { class: 'meta' },
      `Trusted at ${pct(rules.threshold)} within-one agreement or more, quadratic-weighted kappa ${rules.minKappa} or more and ${rules.minLabels} labels or more; recomputed as labels arrive.`,
    ),
    table,
    agreementChart(view.dimensions),
  )
}

/** Within-one agreement over time, judge and people, one line each per dimension. */
function agreementChart(dimensions) {
  const times = [...new Set(dimensions.flatMap((d) => d.history.map((p) => p.at)))].sort((a, b) => a - b)
  const at = (d, pick) => {
    const byTime = new Map(d.history.map((p) => [p.at, pick(p)]))
    return times.map((t) => byTime.get(t) ?? null)
  }
  const series = dimensions
    .filter((d) => d.history.length)
    .flatMap((d) => [
      { label: `${d.name} (judge)`, values: at(d, (p) => p.withinOne) },
      ...(d.history.some((p) => p.humanWithinOne !== null) ? [{ label: `${d.name} (people)`, values: at(d, (p) => p.humanWithinOne) }] : []),
    ])
  return lineChart({
    title: 'Within-one agreement over time',
    x: times.map((t) => t / 1000),
    percent: true,
    series,
    empty: 'No labels yet: label traces above and the agreement is drawn here.',
  })
}
