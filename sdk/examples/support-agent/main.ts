import { parseArgs } from 'node:util'
import { exportStats, flush, init, shutdown } from '@sieve/sdk'
import { runSupportAgent } from './run.js'

/**
 * The refund-outside-policy support agent, traced with the Sieve SDK.
 *   --broken      use the regressed prompt (refunds outside the policy window)
 *   --turns N     one conversation of N customer turns, one session (default 1)
 * The model is OpenAI's, or any OpenAI-compatible endpoint: OPENAI_API_KEY, OPENAI_BASE_URL (default
 * https://api.openai.com/v1), OPENAI_MODEL (default gpt-4o-mini). Traces go to SIEVE_ENDPOINT
 * (default http://localhost:4318); spans it could not deliver there are reported and make it exit 1.
 */
const { values } = parseArgs({ options: { broken: { type: 'boolean', default: false }, turns: { type: 'string', default: '1' } } })
if (!process.env.OPENAI_API_KEY) {
  console.error('Set OPENAI_API_KEY (and OPENAI_BASE_URL for an OpenAI-compatible endpoint other than OpenAI): the agent needs a model.')
  process.exit(2)
}

const sdk = init({ serviceName: 'support-agent', agentVersion: 'v12', promptVersion: values.broken ? 'refund-v4-broken' : 'refund-v3', captureContent: true })
if (!sdk.ok) console.error(sdk.error.message)
const endpoint = (process.env.SIEVE_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT ?? 'http://localhost:4318').replace(/\/+$/, '')

try {
  const run = await runSupportAgent({
    broken: values.broken,
    turns: Number(values.turns),
    onTurn(turn) {
      console.log(`agent: ${turn.answer}`)
      console.log(`tools: ${turn.toolCalls.join(' → ')}`)
      console.log(`trace: ${turn.traceId}  (${endpoint}/api/traces/${turn.traceId})`)
    },
  })
  if (run.turns.length > 1) console.log(`session: ${run.sessionId} (${run.turns.length} turns; ${endpoint}/api/sessions/${run.sessionId})`)
} finally {
  // The SDK never fails the agent over its spans; the example, whose point is the trace, says so.
  await flush()
  const { dropped, failed, pending } = exportStats()
  await shutdown()
  const lost = dropped + failed + pending
  if (lost > 0) {
    console.error(
      `${lost} span${lost === 1 ? '' : 's'} could not be delivered to ${endpoint}: is Sieve running there? Point the example at it with SIEVE_ENDPOINT=http://host:port`,
    )
    process.exitCode = 1
  }
}
