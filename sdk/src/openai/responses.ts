import { asText, scrub, scrubArguments, textPart, type ContentPolicy, type Message, type OutputMessage, type Part } from '../content.js'
import { GEN_AI } from '@sieve/protocol'
import { once } from './memo.js'
import { newAttributes, put, toolsText, type ApiAdapter, type RequestedToolCall, type ResponseFacts, type StreamAccumulator } from './adapter.js'

/** `client.responses.create` → GenAI `chat` spans (the conventions' operation for chat-style inference). */

function contentParts(policy: ContentPolicy, content: unknown, kind: 'input' | 'output' | 'system'): Part[] {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return [textPart(policy, content, kind)]
  if (!Array.isArray(content)) return [textPart(policy, asText(content), kind)]
  return content.map((part: any): Part => {
    if (part?.type === 'input_text' || part?.type === 'output_text') return textPart(policy, String(part.text ?? ''), kind)
    if (part?.type === 'refusal') return textPart(policy, String(part.refusal ?? ''), kind)
    if (part?.type === 'input_image' && part.image_url) return { type: 'uri', modality: 'image', uri: scrub(policy, String(part.image_url), kind) }
    if (part?.type === 'input_file' && part.file_id) return { type: 'file', modality: 'document', file_id: String(part.file_id) }
    return { type: String(part?.type ?? 'unknown') }
  })
}

const toolCallPart = (policy: ContentPolicy, item: any): Part => ({
  type: 'tool_call',
  id: String(item.call_id ?? item.id ?? ''),
  name: String(item.name ?? ''),
  arguments: scrubArguments(policy, item.arguments ?? item.input ?? ''),
})

function inputMessages(policy: ContentPolicy, input: unknown): Message[] {
  if (typeof input === 'string') return [{ role: 'user', parts: [textPart(policy, input, 'input')] }]
  if (!Array.isArray(input)) return []
  const messages: Message[] = []
  for (const item of input as any[]) {
    if (item?.type === 'function_call' || item?.type === 'custom_tool_call') {
      messages.push({ role: 'assistant', parts: [toolCallPart(policy, item)] })
    } else if (item?.type === 'function_call_output' || item?.type === 'custom_tool_call_output') {
      messages.push({
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: String(item.call_id ?? ''), response: scrub(policy, asText(item.output), 'tool.result') }],
      })
    } else if (item?.role) {
      const kind = item.role === 'system' || item.role === 'developer' ? 'system' : item.role === 'assistant' ? 'output' : 'input'
      messages.push({ role: item.role === 'developer' ? 'system' : String(item.role), parts: contentParts(policy, item.content, kind) })
    } else if (item?.type) {
      messages.push({ role: 'user', parts: [{ type: String(item.type) }] })
    }
  }
  return messages
}

function finishReason(r: any, hasToolCall: boolean): string {
  if (r?.status === 'incomplete') return r?.incomplete_details?.reason === 'content_filter' ? 'content_filter' : 'length'
  if (r?.status === 'failed') return 'error'
  return hasToolCall ? 'tool_call' : 'stop'
}

function facts(policy: ContentPolicy, r: any): ResponseFacts {
  const attrs = newAttributes()
  put(attrs, GEN_AI.responseId, r?.id)
  put(attrs, GEN_AI.responseModel, r?.model)
  const output: any[] = Array.isArray(r?.output) ? r.output : []
  const calls = output.filter((o) => o?.type === 'function_call' || o?.type === 'custom_tool_call')
  const reason = finishReason(r, calls.length > 0)
  put(attrs, GEN_AI.responseFinishReasons, [reason])
  put(attrs, GEN_AI.usageInputTokens, r?.usage?.input_tokens)
  put(attrs, GEN_AI.usageOutputTokens, r?.usage?.output_tokens)
  put(attrs, GEN_AI.usageCacheReadInputTokens, r?.usage?.input_tokens_details?.cached_tokens)
  put(attrs, GEN_AI.usageReasoningOutputTokens, r?.usage?.output_tokens_details?.reasoning_tokens)
  if (policy.capture) {
    const parts: Part[] = []
    for (const item of output) {
      if (item?.type === 'message') parts.push(...contentParts(policy, item.content, 'output'))
      else if (item?.type === 'function_call' || item?.type === 'custom_tool_call') parts.push(toolCallPart(policy, item))
      else if (item?.type === 'reasoning') {
        const summary = (item.summary ?? []).map((s: any) => s?.text ?? '').join('\n')
        if (summary) parts.push({ type: 'reasoning', content: scrub(policy, summary, 'output') })
      } else if (item?.type) parts.push({ type: 'server_tool_call', id: String(item.id ?? ''), name: String(item.type), server_tool_call: { type: item.type } })
    }
    const message: OutputMessage = { role: 'assistant', parts, finish_reason: reason }
    attrs[GEN_AI.outputMessages] = JSON.stringify([message])
  }
  const toolCalls: RequestedToolCall[] = calls.map((c) => ({
    id: String(c.call_id ?? ''),
    name: String(c.name ?? ''),
    arguments: String(c.arguments ?? c.input ?? ''),
  }))
  return { attributes: attrs, toolCalls }
}

const FINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed'])

export const responsesAdapter: ApiAdapter = {
  operation: 'chat',

  requestAttributes(p, policy, attrs) {
    put(attrs, GEN_AI.requestModel, p?.model)
    put(attrs, GEN_AI.requestMaxTokens, p?.max_output_tokens)
    put(attrs, GEN_AI.requestTemperature, p?.temperature)
    put(attrs, GEN_AI.requestTopP, p?.top_p)
    put(attrs, GEN_AI.requestStream, p?.stream === true)
    const format = p?.text?.format?.type
    put(attrs, GEN_AI.outputType, format === 'json_schema' || format === 'json_object' ? 'json' : format === 'text' ? 'text' : undefined)
    put(attrs, GEN_AI.conversationId, typeof p?.conversation === 'string' ? p.conversation : p?.conversation?.id)
    if (policy.capture) {
      if (typeof p?.instructions === 'string' && p.instructions) {
        attrs[GEN_AI.systemInstructions] = JSON.stringify([textPart(policy, p.instructions, 'system')])
      }
      attrs[GEN_AI.inputMessages] = JSON.stringify(inputMessages(policy, p?.input))
      if (Array.isArray(p?.tools) && p.tools.length) attrs[GEN_AI.toolDefinitions] = once(p.tools, policy, toolsText)
    }
    return attrs
  },

  responseFacts: (r, policy) => facts(policy, r),

  accumulator(): StreamAccumulator {
    let final: any
    return {
      add(event) {
        if (FINAL_EVENTS.has(event?.type)) final = event.response
      },
      finish(policy) {
        return facts(policy, final)
      },
    }
  },
}
