import type { Command } from '../command.js'
import { parts } from '../parts.js'
import { serve } from '../serve.js'

export { bindingProblem } from '../serve.js'

export const upCommand: Command = {
  name: 'up',
  summary: 'Run Sieve: collector, queue, ingester and storage, from the environment configuration',
  usage: 'sieve up',
  options: {},
  run: () => serve({ name: 'up', parts, migrate: true, needsKafka: false }),
}
