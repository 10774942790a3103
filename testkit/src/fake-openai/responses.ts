import { pieces, type Answer } from './answer.js'

/** Responses API wire shapes (https://platform.openai.com/docs/api-reference/responses). */

function outputItems(a: Answer) {
  const items: object[] = []
  if (a.text !== null && (a.text !== '' || a.toolCalls.length === 0)) {
    items.push({
      type: 'message',
      id: `msg_${a.id}`,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: a.text, annotations: [] }],
    })
  }
  for (const call of a.toolCalls) {
    items.push({ type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: call.arguments, status: 'completed' })
  }
  return items
}

export function response(a: Answer, request: any, status: 'in_progress' | 'final' = 'final') {
  const incomplete = a.finishReason === 'length' || a.finishReason === 'content_filter'
  const final = status === 'final'
  return {
    id: `resp_${a.id}`,
    object: 'response',
    created_at: a.created,
    status: final ? (incomplete ? 'incomplete' : 'completed') : 'in_progress',
    incomplete_details: final && incomplete ? { reason: a.finishReason === 'length' ? 'max_output_tokens' : 'content_filter' } : null,
    error: null,
    model: a.model,
    instructions: request?.instructions ?? null,
    output: final ? outputItems(a) : [],
    parallel_tool_calls: true,
    temperature: request?.temperature ?? 1,
    top_p: request?.top_p ?? 1,
    max_output_tokens: request?.max_output_tokens ?? null,
    tool_choice: request?.tool_choice ?? 'auto',
    tools: request?.tools ?? [],
    text: { format: { type: 'text' } },
    usage: final
      ? {
          input_tokens: a.inputTokens,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: a.outputTokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: a.inputTokens + a.outputTokens,
        }
      : null,
  }
}

/** The server-sent events of a streamed response, in order: [event name, data]. */
export function responseEvents(a: Answer, request: any): [string, object][] {
  const events: [string, object][] = []
  const emit = (type: string, data: object) => events.push([type, { type, sequence_number: events.length, ...data }])
  emit('response.created', { response: response(a, request, 'in_progress') })
  emit('response.in_progress', { response: response(a, request, 'in_progress') })
  outputItems(a).forEach((item: any, output_index) => {
    if (item.type === 'message') {
      const text: string = item.content[0].text
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } })
      const part = { type: 'output_text', text: '', annotations: [] }
      emit('response.content_part.added', { item_id: item.id, output_index, content_index: 0, part })
      for (const delta of pieces(text)) emit('response.output_text.delta', { item_id: item.id, output_index, content_index: 0, delta, logprobs: [] })
      emit('response.output_text.done', { item_id: item.id, output_index, content_index: 0, text, logprobs: [] })
      emit('response.content_part.done', { item_id: item.id, output_index, content_index: 0, part: { ...part, text } })
    } else {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } })
      for (const delta of pieces(item.arguments)) emit('response.function_call_arguments.delta', { item_id: item.id, output_index, delta })
      emit('response.function_call_arguments.done', { item_id: item.id, output_index, arguments: item.arguments })
    }
    emit('response.output_item.done', { output_index, item })
  })
  const final = response(a, request)
  emit(final.status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response: final })
  return events
}
