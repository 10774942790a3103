import { callTools, say, type ModelRequest, type Step } from '@sieve/testkit'
import { PROMPTS, REFUND_WINDOW_DAYS } from './policy.js'

/**
 * A deterministic stand-in for an LLM, for running the example offline: it follows whichever
 * system prompt it is given, step by step, the way a real model would on this scenario.
 */
export function supportModel(request: ModelRequest): Step {
  const messages: any[] = request.body.messages ?? []
  const system = String(messages.find((m) => m.role === 'system')?.content ?? '')
  const results = messages.filter((m) => m.role === 'tool').map((m) => JSON.parse(String(m.content)))
  const orderId = /\bA-\d{4}\b/.exec(String(messages.findLast((m) => m.role === 'user')?.content ?? ''))?.[0] ?? 'A-1001'
  const order = results[0]
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
        : say(`Order ${order.order_id} was delivered ${order.deliveredDaysAgo} days ago, outside our ${REFUND_WINDOW_DAYS}-day refund window, so I added ${last.amount} of store credit (${last.credit_id}) to your account instead.`)
    }
  }
}
