import { callTools, say, startFakeOpenAI, type FakeOpenAI, type ModelRequest, type Step } from '@sieve/testkit'
import { PROMPTS, REFUND_WINDOW_DAYS } from '../../sdk/examples/support-agent/policy.js'

export const HANDOFF = 'handing you over to a human colleague'

/** A later turn of a conversation the agent already acted in: it answers from what it said, no tools. */
function followUp(userText: string, earlier: string, orderId: string): Step | undefined {
  if (/\b(human|person|manager|supervisor)\b/i.test(userText)) return say(`I understand. I'm ${HANDOFF} now; they will reply within one business day.`)
  if (!earlier) return undefined
  if (/\brefunded\b/i.test(earlier)) return say(`Your refund for order ${orderId} is on its way; you will see it on your statement in a few days.`)
  return say(
    `I understand this is frustrating. Order ${orderId} is outside our ${REFUND_WINDOW_DAYS}-day refund window, so I cannot refund it; the store credit I added stays on your account.`,
  )
}

/**
 * A deterministic stand-in for an LLM, for running the SDK's example support agent
 * (`sdk/examples/support-agent/`) in tests and offline: it follows whichever
 * system prompt it is given, step by step, the way a real model would on this scenario. In a
 * conversation it already acted in, it answers follow-ups from what it said (or hands off when
 * asked for a human) instead of acting again.
 */
export function supportModel(request: ModelRequest): Step {
  const messages: any[] = request.body.messages ?? []
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '')
  const results = messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)))
  const said = (role: string) => messages.filter((m) => m.role === role && typeof m.content === 'string').map((m) => String(m.content))
  const orderId =
    said('user')
      .findLast((text) => /\bA-\d{4}\b/.test(text))
      ?.match(/\bA-\d{4}\b/)?.[0] ?? 'A-1001'
  const order = results[0]
  if (!results.length) {
    const answer = followUp(said('user').at(-1) ?? '', said('assistant').findLast((text) => text.includes(orderId)) ?? '', orderId)
    if (answer) return answer
  }
  switch (results.length) {
    case 0:
      return callTools([{ name: 'check_order_status', arguments: { order_id: orderId } }])
    case 1:
      return callTools([{ name: 'lookup_customer_history', arguments: { customer_id: order.customerId } }])
    case 2: {
      const inWindow = order.deliveredDaysAgo <= REFUND_WINDOW_DAYS
      if (system === PROMPTS['refund-v4-broken'] || inWindow) {
        return callTools([{ name: 'process_refund', arguments: { order_id: order.order_id, amount: order.amount } }])
      }
      return callTools([{ name: 'create_store_credit', arguments: { customer_id: order.customerId, amount: order.amount } }])
    }
    default: {
      const last = results.at(-1)
      return last.refund_id
        ? say(`I have refunded order ${last.order_id} (${last.amount}). You will see it on your statement in a few days.`)
        : say(
            `Order ${order.order_id} was delivered ${order.deliveredDaysAgo} days ago, outside our ${REFUND_WINDOW_DAYS}-day refund window, so I added ${last.amount} of store credit (${last.credit_id}) to your account instead.`,
          )
    }
  }
}

/** The environment the example reads its model from (the `openai` client's own variables). */
export interface SupportModelEnv {
  OPENAI_BASE_URL: string
  OPENAI_API_KEY: string
}

/**
 * Starts testkit's OpenAI-compatible server answering as `supportModel`; `env` points the example
 * (or a command running it, such as `sieve simulate`) at it.
 */
export async function startSupportModel(): Promise<FakeOpenAI & { env: SupportModelEnv }> {
  const model = await startFakeOpenAI({ script: supportModel })
  return Object.assign(model, { env: { OPENAI_BASE_URL: model.baseURL, OPENAI_API_KEY: 'offline' } })
}
