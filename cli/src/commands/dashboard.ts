import { once } from 'node:events'
import { SERVER_ENV, STORAGE_ENV } from '../environment.js'
import type { Command } from '../command.js'

export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: 'Serve the dashboard (web UI and query API) over ClickHouse, without ingesting',
  options: {},
  details: [
    'Serves /ui and the query API (/api) on SIEVE_HOST:SIEVE_PORT over the ClickHouse the other roles write to, the review ' +
      "queues included: their rubrics and trust rules come from the config file's judge section, their rules from its review section.",
  ],
  env: ['SIEVE_CONFIG_FILE', ...SERVER_ENV, ...STORAGE_ENV],
  exitCodes: {
    0: 'stopped by SIGINT/SIGTERM',
    1: 'storage unreachable at start, or another error (printed)',
    2: 'configuration or start-up error, found before storage is opened: an invalid setting, an invalid judge or review section (a rubric), a non-loopback SIEVE_HOST without SIEVE_API_KEYS, SIEVE_PORT taken, the embedded engine not installed',
  },
  async run() {
    const [
      { listen },
      { createLogger, createStorage, loadConfig },
      { createDashboardApp, UI_PATH },
      { bindingProblem },
      { checkPort, preflight },
      { loadReviewSetup },
    ] = await Promise.all([
      import('@sieve/http'),
      import('@sieve/core'),
      import('@sieve/dashboard'),
      import('../serve.js'),
      import('../preflight.js'),
      import('@sieve/review'),
    ])
    const config = loadConfig()
    const binding = bindingProblem(config)
    if (binding.refuse) {
      console.error(`sieve dashboard: ${binding.refuse}`)
      return 2
    }
    const problem = await preflight([async (c) => void loadReviewSetup(c), (c) => checkPort(c.host, c.port)], config)
    if (problem) {
      console.error(`sieve dashboard: ${problem}`)
      return 2
    }
    const log = createLogger({ level: config.logLevel, fields: { role: 'dashboard' } })
    if (binding.warn) log.warn(`sieve dashboard: ${binding.warn}`)
    let storage: Awaited<ReturnType<typeof createStorage>>
    try {
      storage = await createStorage(config.clickhouse)
    } catch (err) {
      log.error(`sieve dashboard: ${(err as Error).message}`)
      return 1
    }
    const app = createDashboardApp({
      client: storage,
      apiKeys: config.apiKeys,
      judgeModel: config.judge.model,
      review: loadReviewSetup(config),
      log: (message, fields) => log.error(message, fields),
    })
    const server = await listen(app, config.host, config.port)
    console.log(`Dashboard:        ${server.url}${UI_PATH}/\nQuery API:        ${server.url}/api/quality`)
    await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')])
    await server.stop()
    await storage.close()
    return 0
  },
}
