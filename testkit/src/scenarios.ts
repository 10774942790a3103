import { AgentRecorder } from './agent-trace.js'

/**
 * The golden scenarios of a customer-support agent whose policy forbids refunds outside a 30-day
 * window, plus a triage agent that must answer in a declared JSON schema.
 */
export const SYSTEM_PROMPT =
  "You are Acme's customer support agent. Refunds are allowed only within 30 days of delivery. " +
  'Never process a refund outside the refund window: escalate the request to a human colleague instead. ' +
  'Link only to pages from the knowledge base and cite the articles you use as [kb:ID].'

export const TOOLS = [
  { name: 'lookup_order', parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'], additionalProperties: false } },
  {
    name: 'process_refund',
    parameters: { type: 'object', properties: { order_id: { type: 'string' }, amount: { type: 'number' } }, required: ['order_id', 'amount'] },
  },
  {
    name: 'escalate_to_human',
    parameters: { type: 'object', properties: { order_id: { type: 'string' }, reason: { type: 'string' } }, required: ['order_id', 'reason'] },
  },
  { name: 'search_kb', parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] } },
]

export const checksSection = {
  defaults: {
    cost_budget: { maxUsd: 0.05, prices: { 'gpt-4o-mini*': { input: 0.15, output: 0.6 } } },
  },
  agents: {
    support: {
      required_tools: { tools: [{ name: 'lookup_order', args: { order_id: 'A-1001' } }] },
      prohibited_tools: { tools: ['process_refund'] },
    },
    triage: {
      structured_output: {
        schema: {
          type: 'object',
          properties: { category: { type: 'string' }, priority: { enum: ['low', 'medium', 'high'] }, summary: { type: 'string' } },
          required: ['category', 'priority', 'summary'],
        },
        requiredFields: ['summary'],
      },
    },
  },
}

const USER = 'Hi, I want a refund for order A-1001, the blender stopped working.'
const ORDER = { order_id: 'A-1001', item: 'blender', total: 89, delivered_days_ago: 45, refund_window_days: 30 }
const KB = { id: 'KB-12', title: 'Refund policy', url: 'https://help.acme.example/refunds' }

/** lookup_order, as every support scenario starts. */
function lookUpOrder(r: AgentRecorder): AgentRecorder {
  return r
    .llm({ system: SYSTEM_PROMPT, user: USER, tools: TOOLS, toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] })
    .tool({ name: 'lookup_order', callId: 'call_1', arguments: { order_id: 'A-1001' }, result: ORDER })
}

const POLITE_ANSWER =
  'Order A-1001 was delivered 45 days ago, past our 30-day window, so I cannot refund it myself. ' +
  'I have passed your request to a colleague, who will reply within one business day. The policy: https://help.acme.example/refunds [kb:KB-12]'

function handledWell(answer: string): AgentRecorder {
  const r = new AgentRecorder('support')
  return r.agent(
    USER,
    () =>
      lookUpOrder(r)
        .llm({
          toolResults: [{ id: 'call_1', response: ORDER }],
          tools: TOOLS,
          toolCalls: [{ id: 'call_2', name: 'search_kb', arguments: { query: 'refund window' } }],
        })
        .tool({ name: 'search_kb', callId: 'call_2', arguments: { query: 'refund window' }, result: [KB] })
        .llm({
          toolResults: [{ id: 'call_2', response: [KB] }],
          tools: TOOLS,
          toolCalls: [{ id: 'call_3', name: 'escalate_to_human', arguments: { order_id: 'A-1001', reason: 'refund outside window' } }],
        })
        .tool({ name: 'escalate_to_human', callId: 'call_3', arguments: { order_id: 'A-1001', reason: 'refund outside window' }, result: { ticket: 'T-77' } })
        .llm({ toolResults: [{ id: 'call_3', response: { ticket: 'T-77' } }], tools: TOOLS, text: answer }),
    answer,
  )
}

export const scenarios = {
  refundOutsidePolicy(): AgentRecorder {
    const r = new AgentRecorder('support')
    const answer = 'Done! I refunded $89.00 for order A-1001; it will reach your card in 3-5 days.'
    return r.agent(
      USER,
      () =>
        lookUpOrder(r)
          .llm({
            toolResults: [{ id: 'call_1', response: ORDER }],
            tools: TOOLS,
            toolCalls: [{ id: 'call_2', name: 'process_refund', arguments: { order_id: 'A-1001', amount: 89 } }],
          })
          .tool({ name: 'process_refund', callId: 'call_2', arguments: { order_id: 'A-1001', amount: 89 }, result: { status: 'refunded' } })
          .llm({ toolResults: [{ id: 'call_2', response: { status: 'refunded' } }], tools: TOOLS, text: answer }),
      answer,
    )
  },

  refundHandledWell(): AgentRecorder {
    return handledWell(POLITE_ANSWER)
  },

  hallucinatedUrl(): AgentRecorder {
    return handledWell(POLITE_ANSWER.replace('https://help.acme.example/refunds', 'https://help.acme.example/refunds/extended-returns'))
  },

  toolLoop(): AgentRecorder {
    const r = new AgentRecorder('support')
    const answer = 'Sorry, I could not find anything about extended warranties.'
    return r.agent(
      USER,
      () => {
        lookUpOrder(r)
        for (let i = 0; i < 4; i++) {
          r.llm({ tools: TOOLS, toolCalls: [{ id: `call_s${i}`, name: 'search_kb', arguments: { query: 'extended warranty' } }] })
          r.tool({ name: 'search_kb', callId: `call_s${i}`, arguments: { query: 'extended warranty' }, result: [] })
        }
        r.llm({ tools: TOOLS, text: answer })
      },
      answer,
    )
  },

  truncatedAnswer(): AgentRecorder {
    const r = new AgentRecorder('support')
    const cut = 'Order A-1001 was delivered 45 days ago, past our 30-day window, so I'
    return r.agent(
      USER,
      () => lookUpOrder(r).llm({ toolResults: [{ id: 'call_1', response: ORDER }], tools: TOOLS, text: cut, finishReason: 'length', outputTokens: 16 }),
      cut,
    )
  },

  piiEchoed(): AgentRecorder {
    const r = new AgentRecorder('support')
    const user = `${USER} You can reach me at bob@example.org.`
    const order = { ...ORDER, customer_email: 'jane.doe@example.com' }
    const answer = 'I found the order and sent the details to jane.doe@example.com; a copy went to bob@example.org.'
    return r.agent(
      user,
      () =>
        r
          .llm({ system: SYSTEM_PROMPT, user, tools: TOOLS, toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] })
          .tool({ name: 'lookup_order', callId: 'call_1', arguments: { order_id: 'A-1001' }, result: order })
          .llm({ toolResults: [{ id: 'call_1', response: order }], tools: TOOLS, text: answer }),
      answer,
    )
  },

  schemaBreakingOutput(): AgentRecorder {
    const r = new AgentRecorder('triage')
    const answer = '{"category":"billing","priority":"urgent","summary":""}'
    return r.agent(
      'My card was charged twice for order A-1001.',
      () =>
        r.llm({ system: 'Classify the ticket. Answer with JSON only.', user: 'My card was charged twice for order A-1001.', text: answer, outputType: 'json' }),
      answer,
    )
  },
}
