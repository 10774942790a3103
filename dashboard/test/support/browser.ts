import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM = process.env.SIEVE_CHROMIUM ?? '/usr/bin/chromium'
/** Where the browser tests leave their screenshots. */
export const artifacts = join(dirname(fileURLToPath(import.meta.url)), '../../../test-artifacts/dashboard')

export interface BrowserSession {
  page: Page
  browser: BrowserContext
  /** Everything the Content-Security-Policy refused, as the page reports it. */
  violations: string[]
  consoleErrors: string[]
}

/**
 * Debian's chromium driven by playwright-core, headless, on a profile of its own: every CSP
 * violation and console error is collected for the test to check, and an uncaught page error fails it.
 */
export async function openBrowser(): Promise<BrowserSession> {
  assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install -y chromium (or set SIEVE_CHROMIUM)`)
  mkdirSync(artifacts, { recursive: true })
  const browser = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'sieve-chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 1000 },
  })
  const violations: string[] = []
  const consoleErrors: string[] = []
  await browser.exposeFunction('sieveCspViolation', (v: string) => violations.push(v))
  await browser.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (e) => {
      window.sieveCspViolation(e.effectiveDirective + ' refused ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber)
    }, true)`,
  })
  const page = await browser.newPage()
  page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`))
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(`${message.text()} (${message.location().url})`)
  })
  return { page, browser, violations, consoleErrors }
}
