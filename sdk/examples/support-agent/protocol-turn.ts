import OpenAI from 'openai'
import { z } from 'zod'
import { agentTurnInputSchema, SIMULATION_ATTR, wrapOpenAI } from '@sieve/sdk'
import { supportTurn, type TurnResult } from './agent.js'
import { withFixtures } from './tools.js'

/**
 * One turn of Sieve's agent protocol (its schemas come with the SDK; protocol/README.md, "The agent
 * protocol"), shared by the command agent (sieve-agent.ts, the input on stdin) and the HTTP agent
 * (sieve-agent-http.ts, the input POSTed): the conversation so far, the user's newest turn last;
 * under `sieve simulate` also `fixtures`, here the orders and customers the tools see, and
 * `simulation`, which the agent span records as `sieve.simulation.*`.
 */
const order = z.object({ customerId: z.string(), amount: z.number(), status: z.string(), deliveredDaysAgo: z.number(), note: z.string().optional() })
const customer = z.object({ name: z.string(), since: z.string(), previousRefunds: z.number() })
export const protocolInput = agentTurnInputSchema.extend({
  fixtures: z.object({ orders: z.record(z.string(), order).optional(), customers: z.record(z.string(), customer).optional() }).optional(),
})
export type ProtocolInput = z.infer<typeof protocolInput>

export const promptVersionFor = (broken: boolean) => (broken ? 'refund-v4-broken' : 'refund-v3')

/** The model client of both: OPENAI_API_KEY and OPENAI_BASE_URL, as the `openai` client reads them. */
export const modelClient = (): OpenAI => wrapOpenAI(new OpenAI())

export function answerProtocolTurn(client: OpenAI, input: ProtocolInput, o: { broken: boolean; sessionId: string }): Promise<TurnResult> {
  const sim = input.simulation
  return withFixtures(input.fixtures, () =>
    supportTurn(client, {
      request: input.messages.at(-1)!.content,
      history: input.messages.slice(0, -1),
      promptVersion: promptVersionFor(o.broken),
      model: process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
      sessionId: o.sessionId,
      userId: 'C-17',
      ...(sim ? { attributes: { [SIMULATION_ATTR.scenario]: sim.scenario, [SIMULATION_ATTR.template]: sim.template, [SIMULATION_ATTR.run]: sim.run } } : {}),
    }),
  )
}
