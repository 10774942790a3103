import { asText, conventionFinishReason, eachJson, messageJson, scrub, scrubArguments, textPartJson, type ContentPolicy } from '../content.js'
import { GEN_AI } from '@sieve/protocol'
import { once } from './memo.js'
import { newAttributes, put, toolsText, type ApiAdapter, type RequestedToolCall, type ResponseFacts, type StreamAccumulator } from './adapter.js'

/** `client.chat.completions.create` → GenAI `chat` spans. */

type Kind = 'input' | 'output' | 'system'

function contentPart(policy: ContentPolicy, part: any, kind: Kind): string {
  if (part?.type === 'text') return textPartJson(policy, String(part.text ?? ''), kind)
  if (part?.type === 'refusal') return textPartJson(policy, String(part.refusal ?? ''), kind)
  if (part?.type === 'image_url') return JSON.stringify({ type: 'uri', modality: 'image', uri: scrub(policy, String(part.image_url?.url ?? ''), kind) })
  if (part?.type === 'input_audio')
    return JSON.stringify({ type: 'blob', modality: 'audio', mime_type: `audio/${part.input_audio?.format ?? ''}`, content: '' })
  return JSON.stringify({ type: String(part?.type ?? 'unknown') })
}

/** The JSON of each content part. */
function contentParts(policy: ContentPolicy, content: unknown, kind: Kind): string[] {
  if (content === null || content === undefined) return []
  if (typeof content === 'string') return [textPartJson(policy, content, kind)]
  if (!Array.isArray(content)) return [textPartJson(policy, asText(content), kind)]
  return eachJson(content, contentPart, policy, kind)
}

function toolCallPart(policy: ContentPolicy, c: any): string {
  return JSON.stringify({
    type: 'tool_call',
    id: String(c.id ?? ''),
    name: String(c.function?.name ?? c.custom?.name ?? ''),
    arguments: scrubArguments(policy, c.function?.arguments ?? c.custom?.input ?? ''),
  })
}

/** The JSON of each tool call part. */
function toolCallParts(policy: ContentPolicy, calls: unknown): string[] {
  return eachJson(calls ?? [], toolCallPart, policy, undefined)
}

/**
 * One request message as it appears in the span: its system parts' JSON (comma-separated, '' when
 * it has none), or its input message's JSON. Kept serialized, so a conversation's earlier messages
 * cost a string join on each call, not a conversion.
 */
type MessageJson = { system: boolean; json: string }

function convertMessage(policy: ContentPolicy, m: any): MessageJson {
  if (m?.role === 'system' || m?.role === 'developer') return { system: true, json: contentParts(policy, m.content, 'system').join(',') }
  if (m?.role === 'tool') {
    const response = JSON.stringify({ type: 'tool_call_response', id: String(m.tool_call_id ?? ''), response: scrub(policy, asText(m.content), 'tool.result') })
    return { system: false, json: messageJson('tool', [response]) }
  }
  const parts = [...contentParts(policy, m?.content, 'input'), ...toolCallParts(policy, m?.tool_calls)]
  return { system: false, json: messageJson(String(m?.role ?? 'user'), parts, m?.name ? { name: String(m.name) } : undefined) }
}

/** The JSON of the system parts ('' when there are none) and of the input messages. */
function inputMessages(policy: ContentPolicy, messages: any[]): { system: string; input: string } {
  const system: string[] = []
  const input: string[] = []
  for (const m of messages) {
    const converted = once(m, policy, convertMessage)
    if (!converted.system) input.push(converted.json)
    else if (converted.json) system.push(converted.json)
  }
  return { system: system.length ? `[${system.join(',')}]` : '', input: `[${input.join(',')}]` }
}

export const chatCompletionsAdapter: ApiAdapter = {
  operation: 'chat',

  requestAttributes(p, policy, attrs) {
    put(attrs, GEN_AI.requestModel, p?.model)
    put(attrs, GEN_AI.requestMaxTokens, p?.max_completion_tokens ?? p?.max_tokens)
    put(attrs, GEN_AI.requestTemperature, p?.temperature)
    put(attrs, GEN_AI.requestTopP, p?.top_p)
    put(attrs, GEN_AI.requestFrequencyPenalty, p?.frequency_penalty)
    put(attrs, GEN_AI.requestPresencePenalty, p?.presence_penalty)
    put(attrs, GEN_AI.requestSeed, p?.seed)
    put(attrs, GEN_AI.requestStopSequences, typeof p?.stop === 'string' ? [p.stop] : p?.stop)
    if (typeof p?.n === 'number' && p.n !== 1) put(attrs, GEN_AI.requestChoiceCount, p.n)
    put(attrs, GEN_AI.requestStream, p?.stream === true)
    const format = p?.response_format?.type
    put(attrs, GEN_AI.outputType, format === 'json_object' || format === 'json_schema' ? 'json' : format === 'text' ? 'text' : undefined)
    if (policy.capture && Array.isArray(p?.messages)) {
      const { system, input } = inputMessages(policy, p.messages)
      if (system) attrs[GEN_AI.systemInstructions] = system
      attrs[GEN_AI.inputMessages] = input
      if (Array.isArray(p.tools) && p.tools.length) attrs[GEN_AI.toolDefinitions] = once(p.tools, policy, toolsText)
    }
    return attrs
  },

  responseFacts(r, policy) {
    const choices: any[] = Array.isArray(r?.choices) ? r.choices : []
    return facts(
      policy,
      r,
      choices.map((c) => ({
        text: c?.message?.content ?? c?.message?.refusal ?? null,
        toolCalls: c?.message?.tool_calls ?? [],
        finishReason: c?.finish_reason,
      })),
    )
  },

  accumulator(): StreamAccumulator {
    const head: any = {}
    const texts: string[] = []
    const calls: { id: string; function: { name: string; arguments: string } }[] = []
    let finishReason: string | undefined
    return {
      add(chunk) {
        if (!head.id && chunk?.id) {
          head.id = chunk.id
          head.model = chunk.model
        }
        if (chunk?.usage) head.usage = chunk.usage
        const choice = chunk?.choices?.[0]
        if (!choice) return
        const delta = choice.delta
        if (typeof delta?.content === 'string' && delta.content) texts.push(delta.content)
        for (const t of delta?.tool_calls ?? []) {
          const call = (calls[t.index ?? 0] ??= { id: '', function: { name: '', arguments: '' } })
          if (t.id) call.id = t.id
          if (t.function?.name) call.function.name += t.function.name
          if (t.function?.arguments) call.function.arguments += t.function.arguments
        }
        if (choice.finish_reason) finishReason = choice.finish_reason
      },
      finish(policy) {
        return facts(policy, head, [{ text: texts.length ? texts.join('') : null, toolCalls: calls.filter(Boolean), finishReason }])
      },
    }
  },
}

type Choice = { text: string | null; toolCalls: any[]; finishReason?: string | null }

/** A list's holes are skipped, and written null in the output messages, as the list's map() and JSON.stringify did. */
function facts(policy: ContentPolicy, r: any, choices: Choice[]): ResponseFacts {
  const attrs = newAttributes()
  put(attrs, GEN_AI.responseId, r?.id)
  put(attrs, GEN_AI.responseModel, r?.model)
  const reasons: string[] = []
  for (let i = 0; i < choices.length; i++) {
    const reason = i in choices ? choices[i]!.finishReason : undefined
    if (typeof reason === 'string') reasons.push(reason)
  }
  put(attrs, GEN_AI.responseFinishReasons, reasons)
  const usage = r?.usage
  put(attrs, GEN_AI.usageInputTokens, usage?.prompt_tokens)
  put(attrs, GEN_AI.usageOutputTokens, usage?.completion_tokens)
  put(attrs, GEN_AI.usageCacheReadInputTokens, usage?.prompt_tokens_details?.cached_tokens)
  put(attrs, GEN_AI.usageReasoningOutputTokens, usage?.completion_tokens_details?.reasoning_tokens)
  if (policy.capture) {
    let output = '['
    for (let i = 0; i < choices.length; i++) {
      if (i > 0) output += ','
      output += i in choices ? outputMessage(policy, choices[i]!) : 'null'
    }
    attrs[GEN_AI.outputMessages] = `${output}]`
  }
  const toolCalls: RequestedToolCall[] = []
  for (let i = 0; i < choices.length; i++) {
    if (!(i in choices)) continue
    const calls = choices[i]!.toolCalls ?? []
    if (!Array.isArray(calls)) throw new TypeError('expected a list of tool calls')
    for (let k = 0; k < calls.length; k++) {
      const t = calls[k]
      if (k in calls) toolCalls.push({ id: String(t.id ?? ''), name: String(t.function?.name ?? ''), arguments: String(t.function?.arguments ?? '') })
    }
  }
  return { attributes: attrs, toolCalls }
}

function outputMessage(policy: ContentPolicy, c: Choice): string {
  const parts = contentParts(policy, c.text, 'output')
  const calls = toolCallParts(policy, c.toolCalls)
  return messageJson('assistant', calls.length ? parts.concat(calls) : parts, { finishReason: conventionFinishReason(c.finishReason) })
}
