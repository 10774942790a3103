import type { ModelRequest, ReplyStep } from './script.js'

/** A reply step resolved against its request: every default filled in, ids assigned. */
export interface Answer {
  id: string
  created: number
  model: string
  text: string | null
  toolCalls: { id: string; name: string; arguments: string }[]
  finishReason: NonNullable<ReplyStep['finishReason']>
  inputTokens: number
  outputTokens: number
}

/** Roughly four characters a token, so token counts are deterministic and grow with the text. */
const estimateTokens = (chars: number) => Math.max(1, Math.ceil(chars / 4))

export function resolveAnswer(step: ReplyStep, request: ModelRequest): Answer {
  const toolCalls = (step.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${request.index}_${i}`,
    name: call.name,
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
  }))
  const text = step.text ?? (toolCalls.length ? null : '')
  const requestChars = JSON.stringify(request.body?.messages ?? request.body?.input ?? '').length
  const answerChars = (text ?? '').length + toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0)
  return {
    id: String(request.index),
    created: Math.floor(Date.now() / 1000),
    model: step.model ?? (typeof request.body?.model === 'string' ? request.body.model : 'fake-model'),
    text,
    toolCalls,
    finishReason: step.finishReason ?? (toolCalls.length ? 'tool_calls' : 'stop'),
    inputTokens: step.usage?.inputTokens ?? estimateTokens(requestChars),
    outputTokens: step.usage?.outputTokens ?? estimateTokens(answerChars),
  }
}

/** Splits text into a few pieces, as a model streams it. */
export function pieces(text: string, size = 8): string[] {
  const out: string[] = []
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size))
  return out
}
