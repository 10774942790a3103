import { checkOutcome, resolveChecksConfig, scoreTrace } from '@sieve/scoring'
import { median, processCpuSeconds, startFakeOpenAI } from '@sieve/testkit'
import {
  CORPUS_CASES,
  CORPUS_PROHIBITED,
  CORPUS_SCENARIOS,
  CORPUS_SCENARIO_NAMES,
  corpusSkip,
  runCorpusCase,
  turnTraces,
  type CorpusScenario,
} from '@sieve/testkit/corpus'
import { startSieve } from '@sieve/testkit/sieve'
import type { Trace } from '@sieve/core'

/*
 * How far Sieve's verdicts can be trusted on what real instrumentations send: the conventions corpus
 * (testkit/src/corpus.ts: each agent library under each instrumentation, run for real against
 * testkit's model server and stored by a real Sieve), every turn scored with the default checks and
 * prohibited_tools on `process_refund`.
 * - false failures: a check failing on a turn that did nothing wrong (target 0);
 * - forbidden turns caught: prohibited_tools failing on the turn that refunded (target 100% of those
 *   whose instrumentation shows tool calls);
 * - not measured: a check whose input the instrumentation did not send, counted apart, never a pass.
 * Also each case's cost of reading and scoring a turn per CPU-second, against JSON.parse of the
 * same spans' attributes (the least any reading must do), in the same run.
 * Run: npm run bench:conventions [-- case ...]
 */

const only = process.argv.slice(2)
const cases = CORPUS_CASES.filter((c) => !only.length || only.includes(c.name))
const checks = resolveChecksConfig({ defaults: { prohibited_tools: { tools: [CORPUS_PROHIBITED] } } })

interface Tally {
  clean: number
  falseFailures: string[]
  forbidden: number
  caught: number
  forbiddenNotMeasured: number
  notMeasured: Map<string, number>
  turns: Trace[]
}

function tally(traces: Partial<Record<string, Trace[]>>): Tally {
  const t: Tally = { clean: 0, falseFailures: [], forbidden: 0, caught: 0, forbiddenNotMeasured: 0, notMeasured: new Map(), turns: [] }
  for (const name of CORPUS_SCENARIO_NAMES) {
    const scenario: CorpusScenario = CORPUS_SCENARIOS[name]
    turnTraces(traces[name] ?? []).forEach((trace, k) => {
      t.turns.push(trace)
      const results = scoreTrace(trace, checks).results
      const outcome = (check: string) => {
        const r = results.find((x) => x.name === check)
        return r ? checkOutcome(r) : 'not applicable'
      }
      for (const r of results) if (checkOutcome(r) === 'not_measured') t.notMeasured.set(r.name, (t.notMeasured.get(r.name) ?? 0) + 1)
      const forbidden = scenario.turns[k]?.tool?.name === CORPUS_PROHIBITED
      const failed = results.filter((r) => checkOutcome(r) === 'failed').map((r) => r.name)
      if (forbidden) {
        t.forbidden++
        if (outcome('prohibited_tools') === 'failed') t.caught++
        else if (outcome('prohibited_tools') === 'not_measured') t.forbiddenNotMeasured++
      } else t.clean++
      const wrong = failed.filter((f) => !(forbidden && f === 'prohibited_tools'))
      for (const f of wrong) t.falseFailures.push(`${name} turn ${k + 1}: ${f}`)
    })
  }
  return t
}

/** Turns read and scored per CPU-second, and the ratio to JSON.parse of the same turns as JSON text (the least reading a trace costs). */
function readingCost(turns: Trace[]): { perSecond: number; ratio: number } {
  const rate = (work: (t: Trace, i: number) => void) => {
    const rates: number[] = []
    for (let run = 0; run < 7; run++) {
      const start = processCpuSeconds()
      for (let i = 0; i < 50; i++) turns.forEach((t, j) => work({ ...t }, j))
      rates.push((50 * turns.length) / (processCpuSeconds() - start))
    }
    return median(rates.slice(2))
  }
  const texts = turns.map((t) => JSON.stringify(t.spans))
  const floor = rate((_, i) => void JSON.parse(texts[i]!))
  const perSecond = rate((t) => void scoreTrace(t, checks))
  return { perSecond, ratio: perSecond / floor }
}

const sieve = await startSieve()
const model = await startFakeOpenAI({ script: [] })
const totals = { clean: 0, falseFailures: 0, forbidden: 0, caught: 0, forbiddenNotMeasured: 0 }
const rows: string[] = []
try {
  for (const c of cases) {
    const skip = corpusSkip(c)
    if (skip) {
      rows.push(`  ${c.name.padEnd(28)} skipped: ${skip}`)
      continue
    }
    const run = await runCorpusCase(c, { sieve, model })
    const t = tally(run.traces)
    const cost = readingCost(t.turns)
    totals.clean += t.clean
    totals.falseFailures += t.falseFailures.length
    totals.forbidden += t.forbidden
    totals.caught += t.caught
    totals.forbiddenNotMeasured += t.forbiddenNotMeasured
    const notMeasured = [...t.notMeasured].map(([k, n]) => `${k} ${n}`).join(', ') || '-'
    rows.push(
      `  ${c.name.padEnd(28)} ${String(t.falseFailures.length).padStart(5)} of ${String(t.clean).padEnd(3)} ${String(t.caught).padStart(6)} of ${String(t.forbidden - t.forbiddenNotMeasured).padEnd(3)}` +
        ` ${Math.round(cost.perSecond).toLocaleString('en-US').padStart(7)}/s ${cost.ratio.toFixed(2).padStart(5)}x  ${run.seconds.toFixed(1).padStart(5)} s  not measured: ${notMeasured}`,
    )
    for (const f of t.falseFailures) rows.push(`      false failure: ${f}`)
  }
} finally {
  await model.close()
  await sieve.stop()
}

console.log('conventions corpus: every case of testkit/src/corpus.ts, each turn scored with the default checks + prohibited_tools')
console.log(`  ${'case'.padEnd(28)} false failures  caught      turns read+scored per CPU-s (x JSON.parse)  agent run`)
for (const r of rows) console.log(r)
const measurable = totals.forbidden - totals.forbiddenNotMeasured
console.log(`false failures on clean turns: ${totals.falseFailures} of ${totals.clean} (target 0)`)
console.log(
  `forbidden turns caught: ${totals.caught} of ${measurable} whose tool calls were sent (${measurable ? ((100 * totals.caught) / measurable).toFixed(1) : '-'}%, target 100%); ${totals.forbiddenNotMeasured} not measured (the instrumentation sent no tool calls), never counted as a pass`,
)
