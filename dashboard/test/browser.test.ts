import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { BrowserContext, Page } from 'playwright-core'
import { sendAgentTurn } from './support/agent-turn.js'
import { artifacts, openBrowser } from './support/browser.js'
import { assertSecurityHeaders } from './support/security-headers.js'
import { startSieve } from './support/sieve.js'
import { runSupportAgent } from './support/support-agent.js'

let sieve: Awaited<ReturnType<typeof startSieve>>
let browser: BrowserContext
let page: Page
let broken: string
let violations: string[]
let consoleErrors: string[]

before(async () => {
  // The support agent must never refund: its broken prompt does, and the scorer says so.
  const dir = mkdtempSync(join(tmpdir(), 'sieve-dashboard-e2e-'))
  // The config the README's first-trace steps use.
  const config = join(dirname(fileURLToPath(import.meta.url)), '../../sdk/examples/support-agent/sieve.yaml')
  sieve = await startSieve('up', join(dir, 'data'), { SIEVE_CONFIG_FILE: config })
  await runSupportAgent(sieve.url, false)
  await runSupportAgent(sieve.url, false)
  broken = await runSupportAgent(sieve.url, true)
  const feedback = await fetch(`${sieve.url}/v1/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ traceId: broken, score: -1, comment: 'refunded an order outside the window', userId: 'C-17' }),
  })
  assert.equal(feedback.status, 201, await feedback.text())
  // The scorer scores a trace once it has been quiet for its quiet period (3 s by default).
  for (let i = 0; i < 120; i++) {
    const body = (await (await fetch(`${sieve.url}/api/worst?check=prohibited_tools`)).json()) as { traces?: { traceId: string }[] }
    if (body.traces?.some((t) => t.traceId === broken)) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  // Everything the Content-Security-Policy refuses while the tests walk the UI, as the page reports it.
  ;({ browser, page, violations, consoleErrors } = await openBrowser())
})

after(async () => {
  await browser?.close()
  await sieve?.stop()
})

test("from the overview to a failing trace and the failed check's detail", async () => {
  await page.goto(`${sieve.dashboard}#/?range=1h`)
  const checkRow = page.locator('table.checks tr[data-check="prohibited_tools"]')
  await checkRow.waitFor()
  assert.match(await checkRow.innerText(), /66\.7%/, 'two of three traces pass prohibited_tools')
  await page.locator('figure.chart canvas').first().waitFor()
  // The example config's scorecard gates on prohibited_tools: the broken run fails it.
  const scorecard = page.locator('section.scorecard')
  assert.match(await scorecard.innerText(), /2 of 3 traces passed their agent's scorecard/)
  assert.match(await scorecard.locator('tr[data-gate="prohibited_tools"]').innerText(), /prohibited_tools\s+1/)
  // The pipeline's counters as people read them, the Prometheus name in the tooltip.
  const counter = page.locator('section.pipeline td', { hasText: /^Spans received$/ })
  assert.match((await counter.getAttribute('title')) ?? '', /sieve_spans_received_total/)
  assert.deepEqual(
    (await page.locator('section.pipeline tr td:first-child').allInnerTexts()).filter((t) => /sieve_|_total|_/.test(t)),
    [],
  )
  assert.equal(await page.locator('section.first-trace').count(), 0, 'with traces, no first-trace hint')
  await page.screenshot({ path: join(artifacts, '1-overview.png'), fullPage: true })

  await checkRow.click()
  const row = page.locator(`tr[data-trace="${broken}"]`)
  await row.waitFor()
  assert.match(await row.innerText(), /prohibited_tools/)
  assert.match(await row.innerText(), /invoke_agent support-agent/)
  await row.locator('input[type=checkbox]').check()
  await page.locator('button.primary', { hasText: 'Export to dataset (1)' }).click()
  const status = page.locator('.actions .status', { hasText: 'Exported' })
  await status.waitFor()
  // The project's own dataset: without API keys everything is project `default`.
  const dataset = join(sieve.dataDir, 'datasets', 'default', 'golden.jsonl')
  assert.equal(await status.innerText(), `Exported 1 example to ${dataset}.`)
  const examples = readFileSync(dataset, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  assert.equal(examples.length, 1)
  assert.match(JSON.stringify(examples[0]), new RegExp(broken), 'the example records the trace it came from')
  await page.screenshot({ path: join(artifacts, '2-worst.png'), fullPage: true })

  await row.locator('a').click()
  const check = page.locator('details.score.failed[data-check="prohibited_tools"]')
  await check.waitFor()
  assert.match(await page.locator('.scorecard-verdict').innerText(), /Scorecard support-agent · weighted 0\.750 < 0\.8; gate failed: prohibited_tools/)
  assert.match(await check.innerText(), /prohibited tool process_refund called in span [0-9a-f]{16} with args \{"amount":89\.9,"order_id":"A-1001"\}/)
  const cited = page.locator('.span-row.cited')
  assert.equal(await cited.count(), 1, 'the refund span is marked')
  assert.match(await cited.innerText(), /process_refund/)
  assert.match(await page.locator('.span-detail').innerText(), /Tool arguments[\s\S]*"order_id": "A-1001"/i, 'the tool call of the cited span is shown')
  // The conversation marks the cited call too, open, and keeps it in view while other calls open.
  const refund = page.locator('.conversation .turn-tool.cited')
  assert.equal(await refund.count(), 1)
  assert.match(await refund.locator('summary').innerText(), /process_refund/)
  assert.equal(await refund.getAttribute('open'), '', 'the cited call is open')
  // A short window (a laptop's), where each call opening above pushes the cited one down.
  await page.setViewportSize({ width: 1400, height: 420 })
  await refund.scrollIntoViewIfNeeded()
  for (const name of ['check_order_status', 'lookup_customer_history']) await page.locator('.conversation .turn-tool summary', { hasText: name }).click()
  // The browser fires `toggle` in a task after the click: give the page a moment to bring the call back.
  let top = (await refund.boundingBox())!.y
  for (let waited = 0; !(top >= 0 && top < 420) && waited < 2000; waited += 50) {
    await page.waitForTimeout(50)
    top = (await refund.boundingBox())!.y
  }
  assert.ok(top >= 0 && top < 420, `the cited call is still in view (top at ${top} of 420)`)
  await page.setViewportSize({ width: 1400, height: 1000 })
  assert.match(await page.locator('.feedback').innerText(), /refunded an order outside the window/)
  await page.screenshot({ path: join(artifacts, '3-trace.png'), fullPage: true })
})

test('opened without a range, the overview and worst traces fit the data; judge figures say the judge is off', async () => {
  // Every trace is minutes old: the smallest range that holds them is the hour, not a day with one spike at its edge.
  await page.goto(`${sieve.dashboard}#/`)
  await page.locator('table.checks').waitFor()
  assert.equal(await page.locator('[aria-label="time range"] button.on').innerText(), '1h')
  assert.equal(await page.locator('[aria-label="traffic"] button.on').innerText(), 'without simulations')
  assert.match(await page.locator('.tile', { hasText: 'Judge coverage' }).innerText(), /judge off/)
  assert.match(await page.locator('figure.chart', { hasText: 'Judge cost' }).innerText(), /Judge off: no JUDGE_MODEL is configured/)
  await page.goto(`${sieve.dashboard}#/worst?check=prohibited_tools&sort=judge`)
  const brokenRow = page.locator(`tr[data-trace="${broken}"]`)
  await brokenRow.waitFor()
  assert.equal(await page.locator('[aria-label="time range"] button.on').innerText(), '1h')
  // The worst list says the judge is off, offers no judge sort and no judge column.
  assert.match(await page.locator('.worst p.judge-off').innerText(), /^Judge off: no JUDGE_MODEL is configured, so traces are ranked by their failed checks/)
  assert.equal(await page.locator('.worst select[name=sort]').count(), 0, 'no sort by judge score')
  const headers = await page.locator('.worst thead th').allInnerTexts()
  assert.ok(!headers.includes('Judge mean'), headers.join(' | '))
  // The prompt version is what separates the example's broken trace from the others.
  const promptColumn = headers.indexOf('Prompt version')
  assert.ok(promptColumn > 0, headers.join(' | '))
  assert.equal(await brokenRow.locator('td').nth(promptColumn).innerText(), 'refund-v4-broken')
  // The agent's traces are not simulations: shown alone, simulations hold none of them.
  await page.locator('[aria-label="traffic"] button[data-traffic="simulation"]').click()
  await page.locator('.worst p.empty').waitFor()
  assert.match(page.url(), /environment=simulation/)
  assert.match(page.url(), /check=prohibited_tools/, 'the other filters stay')
  // An overview with no traces says how to send one, to this Sieve.
  await page.goto(`${sieve.dashboard}#/?environment=simulation`)
  const hint = page.locator('section.first-trace')
  await hint.waitFor()
  const origin = new URL(sieve.dashboard).origin
  assert.deepEqual(await hint.locator('pre').allInnerTexts(), [`SIEVE_ENDPOINT=${origin} npm run example`, `OTEL_EXPORTER_OTLP_ENDPOINT=${origin}`])
})

test('exporting a trace again says why it was skipped', async () => {
  await page.goto(`${sieve.dashboard}#/worst?check=prohibited_tools&range=1h`)
  const row = page.locator(`tr[data-trace="${broken}"]`)
  await row.locator('input[type=checkbox]').check()
  await page.locator('button.primary', { hasText: 'Export to dataset (1)' }).click()
  const status = page.locator('.actions .status', { hasText: 'Skipped' })
  await status.waitFor()
  assert.match(await status.innerText(), /Exported 0 examples to .*\. Skipped 1 trace:\s+[0-9a-f]{12}…: .*already/)
})

test('compare opens on the dimension that varies: only the prompt version changed', async () => {
  await page.goto(`${sieve.dashboard}#/compare`)
  const row = page.locator('.compare tbody tr', { hasText: 'prohibited_tools' })
  await row.waitFor()
  assert.equal(await page.locator('select[name=by]').inputValue(), 'prompt_version')
  assert.match(await page.locator('.compare > p').first().innerText(), /^\d+ traces? of refund-v3, 1 trace of refund-v4-broken/)
})

test('the prompt version comparison flags the broken prompt', async () => {
  await page.goto(`${sieve.dashboard}#/compare?by=prompt_version&a=refund-v3&b=refund-v4-broken`)
  const row = page.locator('.compare tbody tr', { hasText: 'prohibited_tools' })
  await row.waitFor()
  assert.match(await row.innerText(), /100\.0% \(2\/2\)\s+0\.0% \(0\/1\)\s+-100\.0 pt/)
  await page.screenshot({ path: join(artifacts, '4-compare.png'), fullPage: true })
})

/**
 * One more trace of a session, as any OpenTelemetry SDK sends it (OTLP/JSON): the customer's next
 * message, sent to the model with the conversation so far (`earlier`), as chat agents send it.
 */
const sendFollowUp = (url: string, sessionId: string, earlier: { role: string; content: string }[]): Promise<string> =>
  sendAgentTurn(url, {
    sessionId,
    scope: 'browser-test',
    input: [...earlier, { role: 'user', content: 'Thanks! When will I see the money?' }],
    output: [{ role: 'assistant', content: 'Within three to five business days.' }],
  })

/** Each top-level turn of a conversation panel: its role, and the tool's name for a tool call. */
const turnsOf = (panel: ReturnType<Page['locator']>) =>
  panel
    .locator(':scope > .turns > .turn')
    .evaluateAll((els) =>
      els.map((e) => `${e.getAttribute('data-role')}${e.querySelector('summary strong') ? ` ${e.querySelector('summary strong')!.textContent}` : ''}`),
    )

const TRACE_TURNS = ['system', 'user', 'tool_call check_order_status', 'tool_call lookup_customer_history', 'tool_call process_refund', 'assistant']

test('the trace page shows the conversation beside the waterfall, in order, each turn selecting its span', async () => {
  await page.goto(`${sieve.dashboard}#/trace/${broken}`)
  const panel = page.locator('.trace-layout .conversation')
  await panel.locator('.turn-assistant').waitFor()
  assert.deepEqual(await turnsOf(panel), TRACE_TURNS)
  assert.equal(await panel.locator('.turn-system').getAttribute('open'), null, 'the system instructions are collapsed')
  assert.match(await panel.locator('.turn-user .bubble').innerText(), /I want a refund for order A-1001/)
  assert.match(await panel.locator('.turn-assistant .bubble').innerText(), /I have refunded order A-1001/)
  // The waterfall in the order things happened: each tool after the model call that asked for it
  // (they start in the same millisecond; the span ids are random).
  assert.deepEqual(await page.locator('.waterfall .span-name').allInnerTexts(), [
    'invoke_agent support-agent',
    'chat gpt-4o-mini',
    'execute_tool check_order_status',
    'chat gpt-4o-mini',
    'execute_tool lookup_customer_history',
    'chat gpt-4o-mini',
    'execute_tool process_refund',
    'chat gpt-4o-mini',
  ])

  // The failed check cites the refund: its fold is open already.
  const refund = panel.locator('.turn-tool', { hasText: 'process_refund' })
  assert.equal(await refund.getAttribute('open'), '')
  assert.match(await refund.locator('.tool-part[data-role=tool_call] pre').innerText(), /"order_id": "A-1001"/)
  const result = refund.locator('.tool-part[data-role=tool_result]')
  assert.match(await result.innerText(), /RF-A-1001/)
  await result.click()
  const selected = page.locator('.span-row.selected')
  assert.equal(await selected.getAttribute('data-span'), await result.getAttribute('data-span'))
  assert.match(await selected.innerText(), /execute_tool process_refund/)
  const user = panel.locator('.turn-user')
  await user.click()
  assert.equal(await page.locator('.span-row.selected').getAttribute('data-span'), await user.getAttribute('data-span'))
  assert.match(await page.locator('.span-row.selected').innerText(), /invoke_agent support-agent/)
  await page.screenshot({ path: join(artifacts, '5-conversation.png'), fullPage: true })
})

let followUp = ''

test("the session page lists the session's traces and their whole conversation", async () => {
  const link = page.locator('a.session-link')
  const sessionId = await link.innerText()
  assert.match(sessionId, /^session-/, 'the example agent names a session per turn')
  const first = (await (await fetch(`${sieve.url}/api/traces/${broken}`)).json()) as { conversation: { turns: { role: string; text: string }[] } }
  const earlier = first.conversation.turns.filter((t) => t.role === 'user' || t.role === 'assistant').map((t) => ({ role: t.role, content: t.text }))
  followUp = await sendFollowUp(sieve.url, sessionId, earlier)
  await link.click()
  const rows = page.locator('.session-traces tr[data-trace]')
  await rows.nth(1).waitFor()
  assert.deepEqual(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-trace'))), [broken, followUp])
  const panel = page.locator('.session .conversation')
  assert.deepEqual(await turnsOf(panel), [...TRACE_TURNS, 'user', 'assistant'])
  assert.match(await panel.locator('.turn-user').last().innerText(), /When will I see the money\?/)
  await page.screenshot({ path: join(artifacts, '6-session.png'), fullPage: true })
  // A turn opens its trace with its span selected.
  const answer = panel.locator('.turn-assistant').last()
  const spanId = await answer.getAttribute('data-span')
  await answer.click()
  await page.locator(`.span-row.selected[data-span="${spanId}"]`).waitFor()
  assert.match(page.url(), new RegExp(`#/trace/${followUp}\\?span=${spanId}$`))
  // And a trace's own link goes back to the session page.
  await rows.first().waitFor({ state: 'detached' })
  await page.locator('a.session-link').click()
  await page.locator(`.session-traces tr[data-trace="${broken}"] a`).click()
  await page.locator('.trace-layout .conversation .turn-assistant').waitFor()
  assert.match(page.url(), new RegExp(`#/trace/${broken}$`))
})

test('a later trace of the session shows what it was sent again as history, folded apart from what it did', async () => {
  await page.goto(`${sieve.dashboard}#/trace/${followUp}`)
  const panel = page.locator('.trace-layout .conversation')
  await panel.locator('.turn-history').waitFor()
  assert.deepEqual(await turnsOf(panel), ['history', 'user', 'assistant'], "the history fold, then the turn's request and answer")
  const history = panel.locator('.turn-history')
  assert.equal(await history.getAttribute('open'), null, 'history is collapsed')
  assert.match(await history.locator('summary').innerText(), /History: 2 entries said before this trace/)
  await history.locator('summary').click()
  assert.deepEqual(await history.locator('.turns > .turn').evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), ['user', 'assistant'])
  assert.match(await panel.locator(':scope > .turns > .turn-assistant .bubble').innerText(), /Within three to five business days/)
  assert.match(await page.locator('.trace > p.meta').innerText(), /^1 span · /)
  await page.screenshot({ path: join(artifacts, '7-history.png'), fullPage: true })
})

test('the UI ran under its Content-Security-Policy with nothing refused, and the policy is enforced', async () => {
  // The walk above: overview, worst traces, a trace with its conversation panel, a session page.
  assert.deepEqual(violations, [], 'no CSP violation while walking the UI')
  assert.deepEqual(consoleErrors, [], 'no console error while walking the UI')
  // A style attribute set from markup is what the policy refuses: the listener above sees it.
  await page.evaluate("document.body.setAttribute('style', 'outline: 1px solid red')")
  for (let i = 0; i < 50 && !violations.length; i++) await new Promise((resolve) => setTimeout(resolve, 100))
  assert.match(violations.join('\n'), /^style-src-attr refused inline/, 'the policy forbids inline style attributes')
})

test('every /ui and /api response carries the security headers', async () => {
  const urls = [
    sieve.dashboard,
    `${sieve.dashboard}app.js`,
    `${sieve.dashboard}style.css`,
    `${sieve.dashboard}favicon.svg`,
    `${sieve.dashboard}vendor/uplot/uPlot.esm.js`,
    `${sieve.dashboard}no-such-file.js`,
    `${sieve.url}/ui`,
    `${sieve.url}/api/worst`,
    `${sieve.url}/api/traces/${broken}`,
    `${sieve.url}/api/traces`,
    `${sieve.url}/api/quality?interval=2m`,
    `${sieve.url}/api/nothing-here`,
  ]
  for (const url of urls) await assertSecurityHeaders(url)
})
