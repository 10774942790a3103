import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import express, { Router } from 'express'

/** Where `sieve up` mounts the web UI. */
export const UI_PATH = '/ui'

const uiDir = join(dirname(fileURLToPath(import.meta.url)), '../ui')
const uplotDir = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.esm.js'))

/**
 * The web UI: plain ES modules and CSS from dashboard/ui plus uPlot straight from node_modules, so
 * there is nothing to build. The page calls the /api routes with the API key the user enters.
 */
export function createUi(): Router {
  const router = Router()
  router.use('/vendor/uplot', express.static(uplotDir, { index: false, fallthrough: false }))
  router.use(express.static(uiDir, { index: 'index.html' }))
  return router
}
