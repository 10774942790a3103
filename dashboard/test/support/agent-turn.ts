import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'

export interface AgentTurn {
  /** The project's API key, when the Sieve has keys. */
  apiKey?: string
  /** gen_ai.conversation.id: the session the turn belongs to. */
  sessionId?: string
  /** What the agent was sent and what it answered; left out, the span carries no messages (content capture off). */
  input?: { role: string; content: string }[]
  output?: { role: string; content: string }[]
  scope?: string
}

/**
 * One support-agent turn as any OpenTelemetry SDK sends it (OTLP/JSON): an `invoke_agent` span with
 * the messages as GenAI attributes. Returns its trace id once the Sieve answered 200.
 */
export async function sendAgentTurn(url: string, turn: AgentTurn): Promise<string> {
  const traceId = randomBytes(16).toString('hex')
  const start = BigInt(Date.now()) * 1_000_000n
  const text = (key: string, value: string) => ({ key, value: { stringValue: value } })
  const said = (messages: { role: string; content: string }[]) =>
    JSON.stringify(messages.map(({ role, content }) => ({ role, parts: [{ type: 'text', content }] })))
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [text('service.name', 'support-agent')] },
        scopeSpans: [
          {
            scope: { name: turn.scope ?? 'dashboard-test' },
            spans: [
              {
                traceId,
                spanId: randomBytes(8).toString('hex'),
                name: 'invoke_agent support-agent',
                kind: 1,
                startTimeUnixNano: String(start),
                endTimeUnixNano: String(start + 40_000_000n),
                attributes: [
                  text('gen_ai.operation.name', 'invoke_agent'),
                  text('gen_ai.agent.name', 'support-agent'),
                  ...(turn.sessionId ? [text('gen_ai.conversation.id', turn.sessionId)] : []),
                  ...(turn.input ? [text('gen_ai.input.messages', said(turn.input))] : []),
                  ...(turn.output ? [text('gen_ai.output.messages', said(turn.output))] : []),
                ],
              },
            ],
          },
        ],
      },
    ],
  }
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(turn.apiKey ? { 'x-api-key': turn.apiKey } : {}) }
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers, body: JSON.stringify(body) })
  assert.equal(res.status, 200, await res.text())
  return traceId
}
