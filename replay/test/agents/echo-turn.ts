import { context, trace, type Context, type Tracer } from '@opentelemetry/api'
import { SIMULATION_ATTR, type AgentMessage, type AgentSimulation } from '@sieve/protocol'

export interface EchoTurn {
  messages: AgentMessage[]
  sessionId: string
  simulation?: AgentSimulation
  answer: string
}

/**
 * The echo agents' trace for one turn: an `invoke_agent echo` span holding one tool call, tagged
 * `sieve.simulation.*`, its output the answer. No model is called.
 */
export function traceEchoTurn(tracer: Tracer, turn: EchoTurn, parent: Context = context.active()): void {
  const sim = turn.simulation
  const tags = sim ? { [SIMULATION_ATTR.scenario]: sim.scenario, [SIMULATION_ATTR.template]: sim.template, [SIMULATION_ATTR.run]: sim.run } : {}
  const root = tracer.startSpan(
    'invoke_agent echo',
    {
      attributes: {
        ...tags,
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'echo',
        'gen_ai.conversation.id': turn.sessionId,
        'gen_ai.input.messages': JSON.stringify(turn.messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))),
      },
    },
    parent,
  )
  tracer
    .startSpan(
      'execute_tool look_up',
      { attributes: { ...tags, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'look_up', 'gen_ai.tool.call.id': 'call_1' } },
      trace.setSpan(parent, root),
    )
    .end()
  root.setAttribute('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: turn.answer }], finish_reason: 'stop' }]))
  root.end()
}
