import { readFileSync } from 'node:fs'
import OpenAI from 'openai'
import { z } from 'zod'
import { init, shutdown, wrapOpenAI } from '@sieve/sdk'
import { startFakeOpenAI } from '@sieve/testkit'
import { supportTurn } from './agent.js'
import { supportModel } from './scripted-model.js'
import { useFixtures } from './tools.js'
import { SIMULATION_ATTR } from '@sieve/protocol'

/**
 * The support agent behind Sieve's agent protocol, as `sieve eval` and `sieve simulate` run it
 * (exporter/README.md, "The agent protocol"): the conversation so far on stdin, the user's newest
 * turn last; one traced turn answered by the scripted local model; the trace sent to SIEVE_ENDPOINT
 * by the SDK. Under `sieve simulate` the input also carries `fixtures` (orders and customers the
 * tools see) and `simulation`, which the agent span records as `sieve.simulation.*`.
 *   --broken   the regressed prompt, which refunds outside the policy window
 */
const order = z.object({ customerId: z.string(), amount: z.number(), status: z.string(), deliveredDaysAgo: z.number(), note: z.string().optional() })
const customer = z.object({ name: z.string(), since: z.string(), previousRefunds: z.number() })
const inputSchema = z.object({
  messages: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })).min(1),
  fixtures: z.object({ orders: z.record(z.string(), order).optional(), customers: z.record(z.string(), customer).optional() }).optional(),
  simulation: z.object({ scenario: z.string(), template: z.string(), run: z.number() }).optional(),
})

const broken = process.argv.includes('--broken')
const input = inputSchema.parse(JSON.parse(readFileSync(0, 'utf8')))
if (input.fixtures) useFixtures(input.fixtures)
const sim = input.simulation
const promptVersion = broken ? 'refund-v4-broken' : 'refund-v3'
init({ serviceName: 'support-agent', agentVersion: 'v12', promptVersion, captureContent: true })
const model = await startFakeOpenAI({ script: supportModel })
try {
  const client = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'offline' }))
  await supportTurn(client, {
    request: input.messages.at(-1)!.content,
    history: input.messages.slice(0, -1),
    promptVersion,
    model: 'gpt-4o-mini',
    sessionId: process.env.SIEVE_EVAL_SESSION_ID ?? 'eval',
    userId: 'C-17',
    ...(sim ? { attributes: { [SIMULATION_ATTR.scenario]: sim.scenario, [SIMULATION_ATTR.template]: sim.template, [SIMULATION_ATTR.run]: sim.run } } : {}),
  })
} finally {
  await shutdown()
  await model.close()
}
