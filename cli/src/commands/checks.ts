import { OWNER_NOTE, REMOTE_ENV } from '../environment.js'
import { URL_OPTION, withUrl, type Command } from '../command.js'

export const checksCommand: Command = {
  name: 'checks',
  summary: 'List the deterministic checks configured for each agent, with parameters and config hash',
  options: {
    url: URL_OPTION,
    agent: { type: 'string', value: 'name', description: 'only the checks that run for this agent (or service) name' },
  },
  details: ['Reads the `checks` and `scorecards` sections of the SIEVE_CONFIG_FILE file (the built-in defaults without one).', OWNER_NOTE],
  env: ['SIEVE_CONFIG_FILE', ...REMOTE_ENV],
  exitCodes: { 0: 'listed', 2: 'usage or configuration error (an invalid checks section)' },
  async run({ values }) {
    const [{ loadConfig }, { openOperations }] = await Promise.all([import('@sieve/core'), import('../store/open-operations.js')])
    const operations = await openOperations(loadConfig(withUrl(values)))
    try {
      console.log(await operations.checks(typeof values.agent === 'string' ? values.agent : undefined))
      console.error(`sieve checks: ${operations.origin}`)
      return 0
    } finally {
      await operations.close()
    }
  },
}
