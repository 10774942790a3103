import { once } from 'node:events'
import { listen } from '@sieve/collector'
import { createStorage, loadConfig } from '@sieve/core'
import { createDashboardApp, UI_PATH } from '@sieve/dashboard'
import type { Command } from '../command.js'
import { bindingProblem } from './up.js'

export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: 'Serve the dashboard (web UI and query API) over ClickHouse, without ingesting',
  usage: 'sieve dashboard',
  options: {},
  async run() {
    const config = loadConfig()
    const binding = bindingProblem(config)
    if (binding.refuse) {
      console.error(`sieve dashboard: ${binding.refuse}`)
      return 2
    }
    if (binding.warn) console.warn(`sieve dashboard: ${binding.warn}`)
    const storage = await createStorage(config.clickhouse)
    const server = await listen(createDashboardApp({ client: storage, apiKeys: config.apiKeys }), config.host, config.port)
    console.log(`Dashboard:        ${server.url}${UI_PATH}/\nQuery API:        ${server.url}/api/quality`)
    await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')])
    await server.stop()
    await storage.close()
    return 0
  },
}
