import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { startSieve } from './support/sieve.js'
import { runSupportAgent } from './support/support-agent.js'

const CHROMIUM = process.env.SIEVE_CHROMIUM ?? '/usr/bin/chromium'
const artifacts = join(dirname(fileURLToPath(import.meta.url)), '../../test-artifacts/dashboard')

let sieve: Awaited<ReturnType<typeof startSieve>>
let browser: BrowserContext
let page: Page
let broken: string

before(async () => {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or set SIEVE_CHROMIUM)`)
  mkdirSync(artifacts, { recursive: true })
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
  const checkRow = page.locator('table.checks tr[data-check="prohibited_tools"]')
  await checkRow.waitFor()
  assert.match(await checkRow.innerText(), /66\.7%/, 'two of three traces pass prohibited_tools')
  await page.locator('figure.chart canvas').first().waitFor()
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
  const dataset = join(sieve.dataDir, 'datasets', 'golden.jsonl')
  assert.equal(await status.innerText(), `Exported 1 example(s) to ${dataset}.`)
  const examples = readFileSync(dataset, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
  assert.equal(examples.length, 1)
  assert.match(JSON.stringify(examples[0]), new RegExp(broken), 'the example records the trace it came from')
  await page.screenshot({ path: join(artifacts, '2-worst.png'), fullPage: true })

  await row.locator('a').click()
  const check = page.locator('details.score.failed[data-check="prohibited_tools"]')
  await check.waitFor()
  assert.match(await check.innerText(), /prohibited tool process_refund called in span [0-9a-f]{16} with args \{"amount":89\.9,"order_id":"A-1001"\}/)
  const cited = page.locator('.span-row.cited')
  assert.equal(await cited.count(), 1, 'the refund span is marked')
  assert.match(await cited.innerText(), /process_refund/)
  assert.match(await page.locator('.span-detail').innerText(), /Tool arguments[\s\S]*"order_id": "A-1001"/i, 'the tool call of the cited span is shown')
  assert.match(await page.locator('.feedback').innerText(), /refunded an order outside the window/)
  await page.screenshot({ path: join(artifacts, '3-trace.png'), fullPage: true })
})

test('the prompt version comparison flags the broken prompt', async () => {
  await page.goto(`${sieve.dashboard}#/compare?by=prompt_version&a=refund-v3&b=refund-v4-broken`)
  const row = page.locator('.compare tbody tr', { hasText: 'prohibited_tools' })
  await row.waitFor()
  assert.match(await row.innerText(), /100\.0% \(2\/2\)\s+0\.0% \(0\/1\)\s+-100\.0 pt/)
  await page.screenshot({ path: join(artifacts, '4-compare.png'), fullPage: true })
})
