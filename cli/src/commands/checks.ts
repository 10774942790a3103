import { loadConfig } from '@sieve/core'
import { formatChecksConfig, loadChecksConfig } from '@sieve/scorer'
import type { Command } from '../command.js'

export const checksCommand: Command = {
  name: 'checks',
  summary: 'List the deterministic checks configured for each agent, with parameters and config hash',
  usage: 'sieve checks [--agent <name>]',
  options: {
    agent: { type: 'string', description: 'Only the checks that run for this agent (or service) name' },
  } as Command['options'], // `description` is read by --help and stripped before parseArgs
  async run({ values }) {
    const config = loadConfig()
    const checks = await loadChecksConfig(config.sections)
    console.log(formatChecksConfig(checks, typeof values.agent === 'string' ? values.agent : undefined))
    return 0
  },
}
