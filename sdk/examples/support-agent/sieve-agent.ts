import { readFileSync } from 'node:fs'
import { AGENT_ENV, init, shutdown } from '@sieve/sdk'
import { answerProtocolTurn, modelClient, promptVersionFor, protocolInput } from './protocol-turn.js'

/**
 * The support agent behind Sieve's agent protocol as a command, as `sieve eval` and `sieve
 * simulate` run it: the input on stdin, one traced turn answered by the model of OPENAI_API_KEY and
 * OPENAI_BASE_URL (OPENAI_MODEL, default gpt-4o-mini), the trace sent to SIEVE_ENDPOINT by the SDK
 * before the process exits.
 *   --broken   the regressed prompt, which refunds outside the policy window
 */
const broken = process.argv.includes('--broken')
const input = protocolInput.parse(JSON.parse(readFileSync(0, 'utf8')))
init({ serviceName: 'support-agent', agentVersion: 'v12', promptVersion: promptVersionFor(broken), captureContent: true })
try {
  await answerProtocolTurn(modelClient(), input, { broken, sessionId: process.env[AGENT_ENV.sessionId] ?? 'eval' })
} finally {
  await shutdown()
}
