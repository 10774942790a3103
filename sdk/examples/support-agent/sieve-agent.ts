import { readFileSync } from 'node:fs'
import { AGENT_ENV, init, shutdown } from '@sieve/sdk'
import { startFakeOpenAI } from '@sieve/testkit'
import { answerProtocolTurn, promptVersionFor, protocolInput } from './protocol-turn.js'
import { supportModel } from './scripted-model.js'

/**
 * The support agent behind Sieve's agent protocol as a command, as `sieve eval` and `sieve
 * simulate` run it: the input on stdin, one traced turn answered by the scripted local model, the
 * trace sent to SIEVE_ENDPOINT by the SDK before the process exits.
 *   --broken   the regressed prompt, which refunds outside the policy window
 */
const broken = process.argv.includes('--broken')
const input = protocolInput.parse(JSON.parse(readFileSync(0, 'utf8')))
init({ serviceName: 'support-agent', agentVersion: 'v12', promptVersion: promptVersionFor(broken), captureContent: true })
const model = await startFakeOpenAI({ script: supportModel })
try {
  await answerProtocolTurn(model.baseURL, input, { broken, sessionId: process.env[AGENT_ENV.sessionId] ?? 'eval' })
} finally {
  await shutdown()
  await model.close()
}
