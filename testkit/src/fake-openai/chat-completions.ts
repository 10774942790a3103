import { pieces, type Answer } from './answer.js'

/** Chat Completions wire shapes (https://platform.openai.com/docs/api-reference/chat). */

const usage = (a: Answer) => ({
  prompt_tokens: a.inputTokens,
  completion_tokens: a.outputTokens,
  total_tokens: a.inputTokens + a.outputTokens,
})

export function chatCompletion(a: Answer) {
  return {
    id: `chatcmpl-${a.id}`,
    object: 'chat.completion',
    created: a.created,
    model: a.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: a.text,
          refusal: null,
          ...(a.toolCalls.length
            ? { tool_calls: a.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        },
        logprobs: null,
        finish_reason: a.finishReason,
      },
    ],
    usage: usage(a),
  }
}

/** The `data:` payloads of a streamed answer, in order (without the final `[DONE]`). */
export function chatCompletionChunks(a: Answer, includeUsage: boolean): object[] {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: `chatcmpl-${a.id}`,
    object: 'chat.completion.chunk',
    created: a.created,
    model: a.model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  })
  const chunks: object[] = [chunk({ role: 'assistant', content: '', refusal: null })]
  for (const piece of pieces(a.text ?? '')) chunks.push(chunk({ content: piece }))
  a.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }))
    for (const piece of pieces(call.arguments)) chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
  })
  chunks.push(chunk({}, a.finishReason))
  if (includeUsage) {
    chunks.push({ id: `chatcmpl-${a.id}`, object: 'chat.completion.chunk', created: a.created, model: a.model, choices: [], usage: usage(a) })
  }
  return chunks
}
