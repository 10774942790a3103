import { existsSync, readFileSync, writeFileSync } from 'node:fs'

/**
 * The refund agent (fixed), except that every other run crashes before sending anything: the gate
 * must count those runs as errored, not as failed answers. The run counter lives in argv[2].
 */
const counter = process.argv[2]!
const runs = existsSync(counter) ? Number(readFileSync(counter, 'utf8')) : 0
writeFileSync(counter, String(runs + 1))
if (runs % 2 === 1) {
  console.error('agent crashed: connection reset by the order service')
  process.exit(3)
}
await import('../../../testkit/agents/refund-agent.js')
