import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { BrowserContext, Page } from 'playwright-core'
import { startFakeOpenAI, until, type FakeOpenAI } from '@sieve/testkit'
import { sendAgentTurn } from './support/agent-turn.js'
import { artifacts, openBrowser } from './support/browser.js'
import { startSieve } from './support/sieve.js'
import { scriptedJudge } from './support/review.js'

/*
 * The review queue end to end: the real `sieve up` with two projects (API keys), its judge on
 * testkit's fake model (scripted per dimension: goal completion 4, groundedness 4, safety 4,
 * communication 3), a trust rule of five labels, and a queue rule taking every judged trace. Five
 * support turns of project alpha, sent over OTLP/JSON, are scored and judged; Chromium labels them
 * from the keyboard, agreeing with the judge on every dimension but groundedness.
 */
const ALPHA = 'key-alpha-0123456789'
const BETA = 'key-beta-0123456789'
/** A person's levels for generic's four dimensions, in the page's order: the key presses. */
const KEYS = ['4', '1', '4', '3']

let sieve: Awaited<ReturnType<typeof startSieve>>
let model: FakeOpenAI
let browser: BrowserContext
let page: Page
const alphaTraces: string[] = []
let violations: string[]
let consoleErrors: string[]

/** A support turn of the project of `key`; without `content`, no messages (content capture off). */
const sendTurn = (key: string, n: number, content = true): Promise<string> =>
  sendAgentTurn(sieve.url, {
    apiKey: key,
    scope: 'review-browser-test',
    ...(content
      ? {
          input: [{ role: 'user', content: `Where is my order A-${1000 + n}? It should have arrived.` }],
          output: [{ role: 'assistant', content: `Order A-${1000 + n} shipped yesterday and arrives tomorrow.` }],
        }
      : {}),
  })

const api = async (path: string, key: string, init: RequestInit = {}) => {
  const res = await fetch(`${sieve.url}${path}`, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json', ...init.headers } })
  return { status: res.status, body: (await res.json()) as any }
}

before(async () => {
  model = await startFakeOpenAI({ script: scriptedJudge })
  const dir = mkdtempSync(join(tmpdir(), 'sieve-review-e2e-'))
  const config = join(dir, 'sieve.yaml')
  writeFileSync(
    config,
    [
      'judge:',
      '  sampling: { rate: 1 }',
      '  calibration: { minLabels: 5 }',
      'review:',
      '  rules: { randomShare: 1, tooFewLabels: false, secondLabeller: 0 }',
    ].join('\n'),
  )
  sieve = await startSieve('up', join(dir, 'data'), {
    SIEVE_CONFIG_FILE: config,
    SIEVE_API_KEYS: `${ALPHA}:alpha,${BETA}:beta`,
    JUDGE_BASE_URL: model.baseURL,
    JUDGE_API_KEY: 'test',
    JUDGE_MODEL: 'gpt-4o-2024-08-06',
  })
  for (let n = 1; n <= 5; n++) alphaTraces.push(await sendTurn(ALPHA, n))
  // Scored after the scorer's quiet period, then judged, then queued behind the verdict.
  await until("five judged traces in alpha's queue", async () => {
    const { body } = await api('/api/review/queues', ALPHA)
    return body.queues?.find((q: { rubric: string }) => q.rubric === 'generic')?.items === 5
  })
  ;({ browser, page, violations, consoleErrors } = await openBrowser())
})

after(async () => {
  await browser?.close()
  await sieve?.stop()
  await model?.close()
})

/**
 * The project's API key as the header's field keeps it (set before the first page asks the API,
 * which would answer 401 without it), then a reviewer name typed into the review page, as a person does.
 */
async function signIn(key: string, reviewer: string) {
  await page.addInitScript({ content: `localStorage.setItem('sieve.apiKey', ${JSON.stringify(key)})` })
  await page.goto(`${sieve.dashboard}#/review?rubric=generic`)
  const name = page.locator('.review input[name=reviewer]')
  await name.waitFor()
  await name.fill(reviewer)
  await name.press('Tab')
}

const calibrationRow = (dimension: string) => page.locator(`.calibration-table tr[data-dimension="${dimension}"]`)
const shownTrace = () => page.locator('.rubric-form').getAttribute('data-trace')

test("a reviewer labels five traces from the keyboard, sees the judge's verdict only after each label, and calibration follows", async () => {
  await signIn(ALPHA, 'ana')
  await page.locator('.rubric-form').waitFor()
  assert.match(await page.locator('.review .remaining').innerText(), /^5 traces waiting for you/)
  assert.match(await calibrationRow('groundedness').innerText(), /not calibrated yet/)
  // The conversation as the trace page shows it, the rubric's dimensions with their anchored levels.
  assert.match(await page.locator('.review .conversation .turn-user').innerText(), /Where is my order A-100\d\?/)
  assert.deepEqual(await page.locator('.rubric-form .dimension').evaluateAll((els) => els.map((e) => e.getAttribute('data-dimension'))), [
    'goal_completion',
    'groundedness',
    'safety_scope',
    'communication',
  ])
  assert.equal(await page.locator('.dimension[data-dimension="groundedness"] .level').count(), 4)
  assert.match(await page.locator('.dimension[data-dimension="groundedness"] .level[data-level="1"]').innerText(), /^1 \S.{10,}/, 'each level with its anchor')
  await page.screenshot({ path: join(artifacts, 'review-1-labelling.png'), fullPage: true })

  // n skips a trace, u brings it back.
  const first = await shownTrace()
  await page.keyboard.press('n')
  await page.locator(`.rubric-form:not([data-trace="${first}"])`).waitFor()
  await page.keyboard.press('u')
  await page.locator(`.rubric-form[data-trace="${first}"]`).waitFor()

  const labelled: string[] = []
  for (let i = 1; i <= 5; i++) {
    const traceId = (await shownTrace())!
    assert.ok(alphaTraces.includes(traceId) && !labelled.includes(traceId), `a new trace of alpha's queue (${traceId})`)
    for (const [k, key] of KEYS.entries()) {
      assert.equal(await page.locator('.judge-verdict').count(), 0, `trace ${i}: no verdict before the label is complete (${k} of 4 levels given)`)
      assert.doesNotMatch(await page.locator('.review').innerText(), /Judge: \d/)
      await page.keyboard.press(key)
    }
    // Stored, and only now the judge's verdict, beside each level given.
    await page.locator('.judge-verdict').nth(3).waitFor()
    assert.match(await page.locator('.dimension[data-dimension="groundedness"] .judge-verdict').innerText(), /You: 1 · Judge: 4/)
    assert.equal(await page.locator('.dimension[data-dimension="groundedness"] .judge-verdict').getAttribute('class'), 'judge-verdict apart')
    assert.match(await page.locator('.dimension[data-dimension="communication"] .judge-verdict').innerText(), /You: 3 · Judge: 3/)
    // The calibration figure counts the label at once.
    assert.equal(await calibrationRow('groundedness').locator('td.labels').innerText(), String(i))
    if (i === 3) {
      // u withdraws the label just given: the count falls back, the verdict is hidden again, and the trace waits to be labelled anew.
      await page.keyboard.press('u')
      await page.locator('.judge-verdict').first().waitFor({ state: 'detached' })
      assert.equal(await shownTrace(), traceId)
      assert.equal(await calibrationRow('groundedness').locator('td.labels').innerText(), '2')
      for (const key of KEYS) await page.keyboard.press(key)
      await page.locator('.judge-verdict').nth(3).waitFor()
      assert.equal(await calibrationRow('groundedness').locator('td.labels').innerText(), '3')
    }
    if (i < 5)
      assert.match(await calibrationRow('groundedness').innerText(), new RegExp(`untrusted[\\s\\S]*${i} ${i === 1 ? 'label' : 'labels'} judged, fewer than 5`))
    labelled.push(traceId)
    if (i === 1) await page.screenshot({ path: join(artifacts, 'review-2-verdict.png'), fullPage: true })
    await page.keyboard.press('Enter')
    if (i < 5) await page.locator(`.rubric-form:not([data-trace="${traceId}"])`).waitFor()
  }
  await page.locator('.review-done').waitFor()
  assert.equal(new Set(labelled).size, 5)

  // Five labels decide: groundedness disagrees with the judge and is untrusted; communication agrees.
  const grounded = calibrationRow('groundedness')
  assert.equal(await grounded.getAttribute('data-trusted'), 'false')
  assert.match(await grounded.innerText(), /untrusted[\s\S]*within-one agreement 0\.0% under 85\.0%/)
  assert.equal(await calibrationRow('communication').getAttribute('data-trusted'), 'true')
  assert.match(await calibrationRow('communication').innerText(), /5\s+100\.0% \(56\.6%–100\.0%\)[\s\S]*trusted/)
  assert.equal(await page.locator('.calibration figure.chart canvas').count(), 1, 'agreement over time is drawn')
  await page.screenshot({ path: join(artifacts, 'review-3-calibrated.png'), fullPage: true })
})

test('the untrusted dimension is marked untrusted on the overview and on /metrics, with no command run', async () => {
  await page.goto(`${sieve.dashboard}#/?range=1h`)
  const grounded = page.locator('table.checks tr[data-check="generic.groundedness"]')
  await grounded.waitFor()
  assert.match(await grounded.innerText(), /untrusted/)
  assert.doesNotMatch(await page.locator('table.checks tr[data-check="generic.communication"]').innerText(), /untrusted/)
  assert.match(await page.locator('table.checks tr[data-check="generic"]').innerText(), /untrusted/, "the rubric's score reads groundedness")
  const metrics = await (await fetch(`${sieve.url}/metrics`)).text()
  assert.match(metrics, /sieve_judge_dimension_trusted\{project="alpha",dimension="generic\.groundedness"\} 0/)
  assert.match(metrics, /sieve_judge_dimension_trusted\{project="alpha",dimension="generic\.communication"\} 1/)
})

test("the queue's rules are a form, each save a version; the labels export as calibrate's JSONL", async () => {
  await page.goto(`${sieve.dashboard}#/review?rubric=generic`)
  const rules = page.locator('details.review-rules')
  await rules.locator('summary', { hasText: "version 0 (the config file's review section)" }).click()
  assert.equal(await rules.locator('input[name=randomShare]').inputValue(), '1')
  assert.equal(await rules.locator('input[name=tooFewLabels]').isChecked(), false)
  await rules.locator('input[name=randomShare]').fill('0.25')
  await rules.locator('input[name=tooFewLabels]').check()
  await rules.locator('button', { hasText: 'Save as a new version' }).click()
  await page.locator('details.review-rules summary', { hasText: 'version 1 (saved by ana' }).waitFor()
  const saved = (await api('/api/review/rules?rubric=generic', ALPHA)).body.inEffect
  assert.deepEqual(
    { version: saved.version, randomShare: saved.rules.randomShare, tooFewLabels: saved.rules.tooFewLabels, author: saved.author },
    { version: 1, randomShare: 0.25, tooFewLabels: true, author: 'ana' },
  )

  await page.locator('.review-labels summary').click()
  await page.locator('.review-labels button', { hasText: 'Export labels' }).click()
  const lines = (await page.locator('.labels-jsonl').innerText())
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
  assert.deepEqual(lines.map((l) => l.traceId).sort(), [...alphaTraces].sort())
  assert.ok(lines.every((l) => l.projectId === 'alpha' && l.rubric === 'generic' && l.labels.groundedness === 1))
})

test('a trace added from the trace view waits in the queue, added by a person', async () => {
  // Content capture off: the judge has nothing to read, no rule takes it.
  const unjudged = await sendTurn(ALPHA, 6, false)
  await until('the trace stored', async () => (await api(`/api/traces/${unjudged}`, ALPHA)).status === 200)
  await page.goto(`${sieve.dashboard}#/trace/${unjudged}`)
  const add = page.locator('.review-add button', { hasText: 'Add to review queue' })
  await add.click()
  await page.locator('.review-add select[name=review-rubric]').selectOption('generic')
  await add.click()
  await page.locator('.review-status', { hasText: 'Added to the generic review queue.' }).waitFor()
  await add.click()
  await page.locator('.review-status', { hasText: /Not added: already in this project's generic queue/ }).waitFor()
  await page.goto(`${sieve.dashboard}#/review?rubric=generic`)
  const form = page.locator(`.rubric-form[data-trace="${unjudged}"]`)
  await form.waitFor()
  assert.match(await form.innerText(), /in the queue: added by a person/)
})

test("a second project's reviewer sees none of it", async () => {
  // The other project's key typed into the header's field of the page already open.
  await page.locator('#api-key').fill(BETA)
  await page.locator('#api-key').press('Enter')
  await page.goto(`${sieve.dashboard}#/review?rubric=generic`)
  const name = page.locator('.review input[name=reviewer]')
  await name.waitFor()
  await name.fill('eve')
  await name.press('Tab')
  await page.locator('.review-done').waitFor()
  assert.match(await page.locator('.review .remaining').innerText(), /^0 traces waiting for you/)
  for (const dimension of ['goal_completion', 'groundedness', 'safety_scope', 'communication'])
    assert.match(await calibrationRow(dimension).innerText(), /not calibrated yet/)
  assert.match(await page.locator('select[name=rubric]').innerText(), /Generic[^\n]*: 0 waiting for you, 0 in the queue/)
  await page.locator('.review-labels summary').click()
  await page.locator('.review-labels button', { hasText: 'Export labels' }).click()
  assert.equal(await page.locator('.labels-jsonl').innerText(), '(no labels yet)')
  // Nor through the API: alpha's traces are not in beta's queue, its labels and verdicts unreachable.
  assert.equal((await api(`/api/review/next?rubric=generic&reviewer=eve&traceId=${alphaTraces[0]}`, BETA)).status, 404)
  const label = await api('/api/review/labels', BETA, {
    method: 'POST',
    body: JSON.stringify({ rubric: 'generic', traceId: alphaTraces[0], reviewer: 'eve', labels: { groundedness: 4 } }),
  })
  assert.equal(label.status, 404)
  assert.equal((await api(`/api/traces/${alphaTraces[0]}`, BETA)).status, 404)
  await page.goto(`${sieve.dashboard}#/?range=1h`)
  await page.locator('section.first-trace').waitFor()
  assert.equal(await page.locator('table.checks').count(), 0)
})

test('the review page ran under the Content-Security-Policy with nothing refused', () => {
  assert.deepEqual(violations, [])
  assert.deepEqual(consoleErrors, [])
})
