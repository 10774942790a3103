import { get } from '../api.js'
import { lineChart } from '../charts.js'
import { badge, h, num, pct, plural } from '../dom.js'
import { defaultRange, rangeParams, rangePicker } from './range.js'
import { trafficParams, trafficPicker } from './traffic.js'

const sum = (xs) => xs.reduce((a, b) => a + b, 0)
const JUDGE_OFF = 'Judge off: no JUDGE_MODEL is configured, so no trace is judged (scorer/README.md, LLM judge).'

/** Totals of one series over the range, for the per-check table. */
function totals(series) {
  let scored = 0,
    passed = 0,
    value = 0,
    errors = 0
  series.scored.forEach((n, i) => {
    scored += n
    passed += (series.passRate[i] ?? 0) * n
    value += (series.meanValue[i] ?? 0) * n
    errors += series.errors[i]
  })
  return { scored, passRate: scored ? passed / scored : null, meanValue: scored ? value / scored : null, errors }
}

export async function overview({ params, navigate }) {
  const status = await get('/status')
  const range = params.range ?? defaultRange(status.oldestTrace)
  const judgeOff = !status.judge.on
  const environment = params.environment ?? ''
  const scope = { ...rangeParams(range), ...trafficParams(environment) }
  const [q, pipeline, card] = await Promise.all([get('/quality', { ...scope, groupBy: 'check' }), get('/pipeline'), get('/scorecard', scope)])
  const x = q.buckets
  const checks = q.series.filter((s) => s.kind === 'deterministic')
  const judge = q.series.filter((s) => s.kind === 'judge')
  const cards = q.series.filter((s) => s.kind === 'scorecard')
  const scored = q.series.filter((s) => s.kind !== 'scorecard')

  const tiles = h(
    'div',
    { class: 'tiles' },
    tile('Traces', num(sum(q.traces))),
    tile('Traces with errors', num(sum(q.errorTraces))),
    card.traces ? tile('Scorecard pass rate', pct(card.passRate)) : null,
    tile('Judge coverage', judgeOff ? 'judge off' : pct(sum(q.traces) ? sum(q.judgedTraces) / sum(q.traces) : null)),
    tile('Tokens in / out', `${num(sum(q.inputTokens))} / ${num(sum(q.outputTokens))}`),
    tile('Judge cost', judgeOff ? 'judge off' : `$${sum(q.judgeCostUsd).toFixed(4)}`),
  )

  const checkTable = h(
    'table',
    { class: 'checks' },
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        h('th', {}, 'Check'),
        h('th', {}, 'Kind'),
        h('th', {}, 'Scored'),
        h('th', {}, 'Pass rate'),
        h('th', {}, 'Mean score'),
        h(
          'th',
          {
            title:
              'Traces it could not measure: for a check, what it reads was absent (content not captured, no token counts, tool calls not visible) or it failed to run; for the judge, its call failed',
          },
          'Not measured',
        ),
        h('th', { title: 'Share of the traces it ran on that it measured' }, 'Coverage'),
      ),
    ),
    h(
      'tbody',
      {},
      scored.map((s) => {
        const t = totals(s)
        return h(
          'tr',
          {
            class: 'clickable',
            'data-check': s.check,
            onclick: () => navigate('/worst', { check: s.check, range, environment, sort: s.kind === 'judge' ? 'judge' : 'checks' }),
          },
          h(
            'td',
            {},
            h('a', { href: '#', onclick: (e) => e.preventDefault() }, s.check),
            s.trusted === false
              ? h(
                  'span',
                  {
                    class: 'badge warn',
                    title:
                      'This judge dimension (or one its score reads) disagrees with human labels: its calibration, recomputed as labels arrive, breaks a trust rule',
                  },
                  'untrusted',
                )
              : null,
          ),
          h('td', {}, s.kind),
          h('td', {}, num(t.scored)),
          h('td', {}, t.passRate === null ? '–' : badge(t.passRate >= 0.95, pct(t.passRate))),
          h('td', {}, t.meanValue === null ? '–' : t.meanValue.toFixed(3)),
          h('td', {}, num(t.errors)),
          h('td', {}, t.scored + t.errors ? pct(t.scored / (t.scored + t.errors)) : '–'),
        )
      }),
    ),
  )

  const pipelineBox = h(
    'section',
    { class: 'pipeline' },
    h('h2', {}, 'Pipeline'),
    pipeline.available
      ? h(
          'table',
          {},
          h(
            'tbody',
            {},
            pipeline.counters.map((c) =>
              h('tr', { class: c.problem && c.value > 0 ? 'problem' : '' }, h('td', { title: `${c.help} (${c.name})` }, c.label), h('td', {}, num(c.value))),
            ),
          ),
        )
      : h('p', { class: 'empty' }, 'Pipeline metrics are not available here.'),
  )

  return h(
    'div',
    { class: 'overview' },
    sum(q.traces) === 0 ? firstTrace() : null,
    h(
      'div',
      { class: 'toolbar' },
      h('h1', {}, 'Overview'),
      trafficPicker(environment, (e) => navigate('/', { range, environment: e })),
      rangePicker(range, (r) => navigate('/', { range: r, environment })),
    ),
    tiles,
    h(
      'div',
      { class: 'grid' },
      lineChart({
        title: 'Trace volume',
        x,
        series: [
          { label: 'traces', values: q.traces },
          { label: 'with errors', values: q.errorTraces },
        ],
      }),
      cards.length
        ? lineChart({ title: 'Scorecard pass rate', x, percent: true, series: cards.map((s) => ({ label: 'scorecard', values: s.passRate })) })
        : null,
      lineChart({ title: 'Pass rate per check', x, percent: true, series: checks.map((s) => ({ label: s.check, values: s.passRate })) }),
      lineChart({
        title: 'Judge score per dimension',
        x,
        empty: judgeOff && !judge.length ? JUDGE_OFF : undefined,
        series: judge.map((s) => ({ label: s.trusted === false ? `${s.check} (untrusted)` : s.check, values: s.meanValue })),
      }),
      lineChart({
        title: 'Tokens',
        x,
        series: [
          { label: 'input', values: q.inputTokens },
          { label: 'output', values: q.outputTokens },
        ],
      }),
      lineChart({ title: 'Judge coverage', x, percent: true, empty: JUDGE_OFF, series: judgeOff ? [] : [{ label: 'judged traces', values: q.judgeCoverage }] }),
      lineChart({ title: 'Judge cost (USD)', x, empty: JUDGE_OFF, series: judgeOff ? [] : [{ label: 'cost', values: q.judgeCostUsd }] }),
    ),
    scorecardSection(card, range, environment, navigate),
    h('section', {}, h('h2', {}, 'Checks and judge dimensions'), scored.length ? checkTable : h('p', { class: 'empty' }, 'No scores in this range yet.')),
    pipelineBox,
  )
}

/** No traces to show: how to send one, to this Sieve. */
function firstTrace() {
  const origin = window.location.origin
  const command = (text) => h('pre', { class: 'command' }, text)
  return h(
    'section',
    { class: 'first-trace note' },
    h('h2', {}, 'No traces here yet'),
    h('p', {}, 'Send one: the example support agent, from a clone of Sieve,'),
    command(`SIEVE_ENDPOINT=${origin} npm run example`),
    h('p', {}, 'or any OpenTelemetry SDK or instrumentation, pointed here:'),
    command(`OTEL_EXPORTER_OTLP_ENDPOINT=${origin}`),
  )
}

/** Which hard gates failed traces in the range; each row opens the traces that failed it. */
function scorecardSection(card, range, environment, navigate) {
  if (!card.traces)
    return h(
      'section',
      { class: 'scorecard' },
      h('h2', {}, 'Scorecard'),
      h('p', { class: 'empty' }, 'No scorecard verdicts in this range (a scorecard, configured in the scorecards section of the config file, gates traces).'),
    )
  const summary = `${num(card.passed)} of ${plural(card.traces, 'trace')} passed their agent's scorecard.`
  const gates = card.gates.length
    ? h(
        'table',
        { class: 'gates' },
        h('thead', {}, h('tr', {}, h('th', {}, 'Hard gate'), h('th', {}, 'Traces failed'))),
        h(
          'tbody',
          {},
          card.gates.map((g) =>
            h(
              'tr',
              {
                class: 'clickable',
                'data-gate': g.name,
                onclick: () => navigate('/worst', { check: g.name, range, environment, sort: g.kind === 'judge' ? 'judge' : 'checks' }),
              },
              h(
                'td',
                {},
                g.name,
                g.untrusted
                  ? [
                      ' ',
                      h(
                        'span',
                        { class: 'badge warn', title: 'The judge dimension this gate reads disagrees with human labels: its calibration breaks a trust rule' },
                        'untrusted',
                      ),
                    ]
                  : null,
              ),
              h('td', {}, num(g.failed)),
            ),
          ),
        ),
      )
    : h('p', { class: 'empty' }, 'No hard gate failed.')
  return h('section', { class: 'scorecard' }, h('h2', {}, 'Scorecard'), h('p', {}, summary), gates)
}

function tile(label, value) {
  return h('div', { class: 'tile' }, h('div', { class: 'tile-value' }, value), h('div', { class: 'tile-label' }, label))
}
