import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { startSieve } from './support/sieve.js'
import { sendAgentRuns } from './support/agentTraces.js'

const CHROMIUM = process.env.SIEVE_CHROMIUM ?? '/usr/bin/chromium'
const artifacts = join(dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/dashboard')

let sieve: Awaited<ReturnType<typeof startSieve>>
let browser: BrowserContext
let page: Page
let failing: string[]

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or set SIEVE_CHROMIUM)`)
  mkdirSync(artifacts, { recursive: true })
  sieve = await startSieve('up')
  await sendAgentRuns(sieve.url, 'support-agent@1.4.0', [
    { question: 'Where is my order A-1001?', truncated: false },
    { question: 'Has A-1001 shipped?', truncated: false },
    { question: 'When does A-1001 arrive?', truncated: false },
  ])
  failing = await sendAgentRuns(sieve.url, 'support-agent@1.5.0', [
    { question: 'Where is my order A-1001?', truncated: true },
    { question: 'Has A-1001 shipped?', truncated: false },
  ])
  // The scorer scores a trace once it has been quiet for its quiet period (3 s by default).
  for (let i = 0; i < 120; i++) {
    const res = await fetch(`${sieve.url}/api/worst?check=truncation`)
    const body = (await res.json()) as { traces?: { traceId: string }[] }
    if (body.traces?.some((t) => t.traceId === failing[0])) break
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'sieve-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1400, height: 1000 },
  })
  page = await browser.newPage()
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`))
})

after(async () => {
  await browser?.close()
  await sieve?.stop()
})

test('from the overview to a failing trace and the failed check\'s detail', async () => {
  await page.goto(`${sieve.dashboard}#/?range=1h`)
  const truncationRow = page.locator('table.checks tr[data-check="truncation"]')
  await truncationRow.waitFor()
  assert.match(await truncationRow.innerText(), /80\.0%/, 'four of five traces pass the truncation check')
  await page.locator('figure.chart canvas').first().waitFor()
  await page.screenshot({ path: join(artifacts, '1-overview.png'), fullPage: true })

  await truncationRow.click()
  const row = page.locator(`tr[data-trace="${failing[0]}"]`)
  await row.waitFor()
  assert.match(await row.innerText(), /truncation/)
  await row.locator('input[type=checkbox]').check()
  await page.locator('button.primary', { hasText: 'Export to dataset (1)' }).click()
  // sieve up has no dataset exporter wired yet: the action reaches the API and says so.
  await page.locator('.actions .status .error').waitFor()
  assert.match(await page.locator('.actions .status').innerText(), /no dataset exporter is configured \(HTTP 501\)/)
  await page.screenshot({ path: join(artifacts, '2-worst.png'), fullPage: true })

  await row.locator('a').click()
  const check = page.locator('details.score.failed[data-check="truncation"]')
  await check.waitFor()
  const text = await check.innerText()
  assert.match(text, /model output truncated in span [0-9a-f]{16} \(finish_reason length\)/)
  const cited = page.locator('.span-row.cited')
  assert.equal(await cited.count(), 1, 'the truncated chat span is marked')
  assert.match(await cited.innerText(), /chat gpt-4o/)
  assert.match(await page.locator('.span-detail').innerText(), /should arrive by/, 'the LLM output of the cited span is shown')
  await page.screenshot({ path: join(artifacts, '3-trace.png'), fullPage: true })
})

test('the version comparison shows the truncation drop between versions', async () => {
  await page.goto(`${sieve.dashboard}#/compare?by=agent_version&a=${encodeURIComponent('support-agent@1.4.0')}&b=${encodeURIComponent('support-agent@1.5.0')}`)
  const row = page.locator('.compare tbody tr', { hasText: 'truncation' })
  await row.waitFor()
  assert.match(await row.innerText(), /100\.0% \(3\/3\)\s+50\.0% \(1\/2\)\s+-50\.0 pt/)
  await page.screenshot({ path: join(artifacts, '4-compare.png'), fullPage: true })
})
