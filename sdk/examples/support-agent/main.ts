import { parseArgs } from 'node:util'
import OpenAI from 'openai'
import { init, shutdown, wrapOpenAI } from '@sieve/sdk'
import { startFakeOpenAI } from '@sieve/testkit'
import { supportTurn } from './agent.js'
import { supportModel } from './scripted-model.js'

/**
 * The refund-outside-policy support agent, traced with the Sieve SDK.
 *   --broken      use the regressed prompt (refunds outside the policy window)
 *   --turns N     run N customer turns (default 1)
 * Talks to OPENAI_BASE_URL / OPENAI_API_KEY (model: OPENAI_MODEL, default gpt-4o-mini); without
 * them it starts a scripted local model. Traces go to SIEVE_ENDPOINT (default http://localhost:4318).
 */
const { values } = parseArgs({ options: { broken: { type: 'boolean', default: false }, turns: { type: 'string', default: '1' } } })
const promptVersion = values.broken ? 'refund-v4-broken' : 'refund-v3'

const sdk = init({ serviceName: 'support-agent', agentVersion: 'v12', promptVersion })
if (!sdk.ok) console.error(sdk.error.message)

const offline = !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY
const local = offline ? await startFakeOpenAI({ script: supportModel }) : undefined
if (local) console.log(`No OPENAI_BASE_URL/OPENAI_API_KEY: using the scripted local model at ${local.baseURL}`)
const client = wrapOpenAI(new OpenAI(local ? { baseURL: local.baseURL, apiKey: 'offline' } : {}))
const model = process.env.OPENAI_MODEL ?? 'gpt-4o-mini'
const endpoint = (process.env.SIEVE_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '')

try {
  for (let i = 0; i < Number(values.turns); i++) {
    const turn = await supportTurn(client, {
      request: 'Hi, I want a refund for order A-1001, it arrived broken.',
      promptVersion,
      model,
      sessionId: `session-${Date.now()}-${i}`,
      userId: 'C-17',
    })
    console.log(`agent: ${turn.answer}`)
    console.log(`tools: ${turn.toolCalls.join(' → ')}`)
    console.log(`trace: ${turn.traceId}  (${endpoint}/api/traces/${turn.traceId})`)
  }
} finally {
  await shutdown()
  await local?.close()
}
