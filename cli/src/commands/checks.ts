import type { Command } from '../command.js'

export const checksCommand: Command = {
  name: 'checks',
  summary: 'List the deterministic checks configured for each agent, with parameters and config hash',
  options: {
    agent: { type: 'string', value: 'name', description: 'only the checks that run for this agent (or service) name' },
  },
  details: ['Reads the `checks` section of the SIEVE_CONFIG_FILE file (the built-in defaults without one).'],
  env: ['SIEVE_CONFIG_FILE'],
  exitCodes: { 0: 'listed', 2: 'usage or configuration error (an invalid checks section)' },
  async run({ values }) {
    const [{ loadConfig }, { formatChecksConfig, loadChecksConfig }] = await Promise.all([import('@sieve/core'), import('@sieve/scorer')])
    const config = loadConfig()
    const checks = await loadChecksConfig(config.sections)
    console.log(formatChecksConfig(checks, typeof values.agent === 'string' ? values.agent : undefined))
    return 0
  },
}
