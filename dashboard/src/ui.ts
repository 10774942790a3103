import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { securityHeaders } from '@sieve/http'
import express, { Router } from 'express'

/** Where `sieve up` mounts the web UI. */
export const UI_PATH = '/ui'

const uiDir = join(dirname(fileURLToPath(import.meta.url)), '../ui')
const uplotDir = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.esm.js'))

/**
 * What the UI loads: its own modules, style sheets (its own and uPlot's) and images, and the API
 * on the same origin; nothing inline, no eval, no data: or blob: URLs, no fonts but the system's.
 * Views set styles through CSSOM (`el.style`), which style-src does not govern; a `style`
 * attribute in markup would need 'unsafe-inline'. test/browser.test.ts walks the UI under it.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

/**
 * The web UI: plain ES modules and CSS from dashboard/ui plus uPlot straight from node_modules, so
 * there is nothing to build. The page calls the /api routes with the API key the user enters.
 */
export function createUi(): Router {
  const router = Router()
  router.use(securityHeaders(UI_CONTENT_SECURITY_POLICY))
  // The page's relative module paths resolve only under `/ui/`. serve-static would redirect there
  // itself, but with a policy of its own in place of this one.
  router.get('/', (req, res, next) => (req.originalUrl.startsWith(`${req.baseUrl}/`) ? next() : res.redirect(301, `${req.baseUrl}/`)))
  router.use('/vendor/uplot', express.static(uplotDir, { index: false, fallthrough: false }))
  router.use(express.static(uiDir, { index: 'index.html', redirect: false }))
  return router
}
