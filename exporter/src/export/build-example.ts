import { createHash } from 'node:crypto'
import { conversationOf, type Conversation, type Trace } from '@sieve/core'
import { traceFields, traceView, type ChecksConfig } from '@sieve/scorer'
import { DATASET_VERSION, type GoldenExample } from '../dataset/golden-example.js'
import type { Scrubber } from '../scrub/scrubber.js'

/** A stored score of the trace, as the selection query returns it. */
export interface StoredScore {
  name: string
  kind: string
  value: number
  passed: boolean
}

export interface BuildOptions {
  checks: ChecksConfig
  scrubber: Scrubber
  bucket: GoldenExample['bucket']
  now: Date
  /** Days until the example should be reviewed. */
  reviewAfterDays: number
}

export function exampleId(projectId: string, traceId: string): string {
  return `ex_${createHash('sha256').update(`${projectId}/${traceId}`).digest('hex').slice(0, 16)}`
}

/** What two examples must share to be the same case: their scrubbed user turns, case and spacing aside. */
export function inputHash(input: GoldenExample['input']): string {
  const normalised = input.messages.map((m) => `${m.role}:${m.content.toLowerCase().replace(/\s+/g, ' ').trim()}`).join('\n')
  return createHash('sha256').update(normalised).digest('hex')
}

const toolNames = (tools: unknown): string[] | undefined =>
  Array.isArray(tools) ? tools.map((t) => (typeof t === 'string' ? t : String((t as { name?: unknown }).name ?? ''))).filter(Boolean) : undefined

/**
 * Expectations from the checks that failed: each failed check with the parameters it ran with for
 * this agent, so the regression gate runs exactly that check again. Tool rules are also spelled
 * out as prohibited_tools / required_tools for people reading the file.
 */
function expectations(failed: string[], trace: Trace, checks: ChecksConfig): GoldenExample['expected'] {
  const view = traceView(trace)
  const profile = checks.profileFor(view.agentName, view.serviceName)
  const expected: GoldenExample['expected'] = { checks: {} }
  for (const name of failed) {
    const configured = profile.checks.find((c) => c.check.name === name)
    if (!configured) continue
    const params = JSON.parse(JSON.stringify(configured.params ?? {})) as Record<string, unknown>
    expected.checks[name] = params
    if (name === 'prohibited_tools') expected.prohibited_tools = toolNames(params.tools)
    if (name === 'required_tools') expected.required_tools = toolNames(params.tools)
  }
  return expected
}

/**
 * The judge rubric whose score failed (its weighted score, or one of its dimensions, named
 * `rubric.dimension`): the gate judges the replay with it.
 */
function failedRubric(scores: StoredScore[]): string | undefined {
  return scores.find((s) => s.kind === 'judge' && !s.passed)?.name.split('.')[0]
}

/**
 * What the example replays, from the conversation: every user and assistant text up to the last
 * user turn, in order (the history the agent had when it answered, the last user turn last), and
 * the answer the agent gave it (empty when it ended on tool calls or said nothing).
 */
export function replayedTurns(conversation: Conversation): { messages: { role: 'user' | 'assistant'; content: string }[]; answer: string } {
  const { turns } = conversation
  const lastUser = turns.findLastIndex((t) => t.role === 'user')
  const messages = turns
    .slice(0, lastUser + 1)
    .flatMap((t) => ((t.role === 'user' || t.role === 'assistant') && t.text ? [{ role: t.role, content: t.text }] : []))
  const last = turns.findLast((t, i) => i > lastUser && t.role !== 'system')
  return { messages, answer: last?.role === 'assistant' ? last.text : '' }
}

/**
 * Turns a failing trace into a golden example. `earlier` are the traces of the same session
 * before it: the example's history then holds the turns the user had with the agent in them too.
 * Returns undefined when the conversation has no user turn (content capture was off), or neither
 * a failed check that is still configured nor a failed judge score: such a case could not be
 * replayed.
 */
export function buildExample(trace: Trace, scores: StoredScore[], options: BuildOptions, earlier: readonly Trace[] = []): GoldenExample | undefined {
  const view = traceView(trace)
  const conversation = earlier.length ? conversationOf([...earlier, trace]) : view.conversation
  const replayed = replayedTurns(conversation)
  if (!replayed.messages.some((m) => m.role === 'user')) return undefined
  const failed = scores.filter((s) => !s.passed && s.kind === 'deterministic').map((s) => s.name)
  const expected = expectations(failed, trace, options.checks)
  const rubric = failedRubric(scores)
  if (rubric) expected.judge = { rubric }
  if (!Object.keys(expected.checks).length && !rubric) return undefined
  const fields = traceFields(trace)

  // One placeholder scope for the whole example: the customer named in the input is the same <PERSON_1> in the output.
  const placeholders = options.scrubber.newExample()
  const scrub = <T>(value: T): T => options.scrubber.scrub(value, placeholders)
  // Scrubbed in reading order, so placeholder numbers in the input do not depend on what the tools
  // returned: two conversations with the same words dedupe to the same input.
  const input = { messages: replayed.messages.map((m) => ({ role: m.role, content: scrub(m.content) })) }
  const systemPrompts = [...new Set(conversation.turns.filter((t) => t.role === 'system').map((t) => t.text))].join('\n')
  const systemPrompt = systemPrompts ? scrub(systemPrompts) : ''
  const toolCalls = view.toolCalls.map((c) => ({ name: c.name, arguments: scrub(c.arguments), result: scrub(c.result) }))
  const reviewBy = new Date(options.now.getTime() + options.reviewAfterDays * 86_400_000)
  return {
    version: DATASET_VERSION,
    id: exampleId(trace.projectId, trace.traceId),
    input,
    context: {
      ...(systemPrompt ? { systemPrompt } : {}),
      ...(fields.tracePromptVersion ? { promptVersion: fields.tracePromptVersion } : {}),
      retrievedDocumentIds: [...view.retrievedDocIds],
      toolResults: toolCalls.filter((c) => c.result !== undefined).map((c) => ({ name: c.name, result: c.result })),
    },
    expected,
    observed: { output: scrub(replayed.answer), toolCalls },
    bucket: options.bucket,
    tags: [...failed, ...(rubric ? [rubric] : [])].map((name) => `failed:${name}`),
    source: {
      traceId: trace.traceId,
      projectId: trace.projectId,
      service: view.serviceName,
      agentName: view.agentName,
      agentVersion: fields.agentVersion,
      promptVersion: fields.tracePromptVersion,
      model: fields.model,
      exportedAt: options.now.toISOString(),
    },
    scores: scores.map((s) => ({ name: s.name, kind: s.kind, value: s.value, passed: s.passed })),
    reviewBy: reviewBy.toISOString().slice(0, 10),
  }
}
