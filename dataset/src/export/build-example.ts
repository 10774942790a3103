import { createHash } from 'node:crypto'
import { conversationOf, type Conversation, type Trace } from '@sieve/core'
import { SIMULATION_ATTR } from '@sieve/protocol'
import { traceFields, traceView } from '@sieve/scoring'
import { DATASET_VERSION, type GoldenExample, type SelectionReason } from '../golden/golden-example.js'
import type { Scrubber } from '../scrub/scrubber.js'
import { expectationsFor, type ExpectationContext, type Filters } from './expectations.js'
import type { Candidate } from './select-traces.js'
import type { StoredScore } from './stored-score.js'

export interface BuildOptions extends ExpectationContext {
  scrubber: Scrubber
  bucket: GoldenExample['bucket']
  now: Date
  /** Days until the example should be reviewed. */
  reviewAfterDays: number
  /** The filters the trace was selected by; none: selected for a failure. */
  filters?: Filters
}

/** An example, or why the trace could not become one. */
export type Built = { example: GoldenExample } | { skipped: string }

export function exampleId(projectId: string, traceId: string): string {
  return `ex_${createHash('sha256').update(`${projectId}/${traceId}`).digest('hex').slice(0, 16)}`
}

/** What two examples must share to be the same case: their scrubbed user turns, case and spacing aside. */
export function inputHash(input: GoldenExample['input']): string {
  const normalised = input.messages.map((m) => `${m.role}:${m.content.toLowerCase().replace(/\s+/g, ' ').trim()}`).join('\n')
  return createHash('sha256').update(normalised).digest('hex')
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
 * Turns a selected trace into a golden example. `earlier` are the traces of the same session
 * before it: the example's history then holds the turns the user had with the agent in them too.
 * Skipped, with the reason, when the conversation has no user turn (content capture was off) or
 * nothing the selection promised can be replayed (see expectationsFor).
 */
export function buildExample(
  trace: Trace,
  candidate: Pick<Candidate, 'scores' | 'scorecard' | 'feedback'>,
  options: BuildOptions,
  earlier: readonly Trace[] = [],
): Built {
  const view = traceView(trace)
  const conversation = earlier.length ? conversationOf([...earlier, trace]) : view.conversation
  const replayed = replayedTurns(conversation)
  if (!replayed.messages.some((m) => m.role === 'user')) return { skipped: 'no user turn captured (content capture off?)' }
  const filters = options.filters ?? {}
  const wanted = expectationsFor(trace, candidate, filters, options)
  if ('skipped' in wanted) return wanted
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
  const selected = selectionReasons(filters, candidate, wanted.gates, scrub)
  const reviewBy = new Date(options.now.getTime() + options.reviewAfterDays * 86_400_000)
  const example: GoldenExample = {
    version: DATASET_VERSION,
    id: exampleId(trace.projectId, trace.traceId),
    input,
    context: {
      ...(systemPrompt ? { systemPrompt } : {}),
      ...(fields.tracePromptVersion ? { promptVersion: fields.tracePromptVersion } : {}),
      retrievedDocumentIds: [...view.retrievedDocIds],
      toolResults: toolCalls.filter((c) => c.result !== undefined).map((c) => ({ name: c.name, result: c.result })),
    },
    expected: wanted.expected,
    observed: { output: scrub(replayed.answer), toolCalls },
    bucket: options.bucket,
    tags: [...exampleTags(candidate.scores, wanted.gates, selected), ...simulationTags(trace)],
    selected,
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
    scores: candidate.scores.map((s) => ({ name: s.name, kind: s.kind, value: s.value, passed: s.passed })),
    reviewBy: reviewBy.toISOString().slice(0, 10),
  }
  return { example }
}

/**
 * Why the trace was selected, one reason per filter: what the example stands for, read by people
 * and tools without the store. The feedback comment is user text, scrubbed like the rest.
 */
function selectionReasons(
  filters: Filters,
  candidate: Pick<Candidate, 'scorecard' | 'feedback'>,
  gates: string[],
  scrub: <T>(value: T) => T,
): SelectionReason[] {
  const reasons: SelectionReason[] = []
  if (filters.failed) reasons.push({ by: 'failed_check', name: filters.failed })
  if (filters.score !== undefined && filters.below !== undefined) reasons.push({ by: 'score_below', name: filters.score, below: filters.below })
  if (filters.failedGate) {
    const card = candidate.scorecard?.card
    reasons.push({ by: 'failed_gate', name: filters.failedGate, ...(card ? { card } : {}), gates: filters.failedGate === 'any' ? gates : [filters.failedGate] })
  }
  if (filters.feedback && candidate.feedback) {
    const { score, comment } = candidate.feedback
    reasons.push({ by: 'feedback', feedback: { score, ...(comment ? { comment: scrub(comment) } : {}) } })
  }
  return reasons.length ? reasons : [{ by: 'failure' }]
}

/**
 * `simulation:<scenario>@<template>` for a trace `sieve simulate --send` stored: a dataset mixing
 * simulated and production failures says which case came from which scenario.
 */
function simulationTags(trace: Trace): string[] {
  for (const span of trace.spans) {
    const scenario = span.attributes[SIMULATION_ATTR.scenario]
    if (typeof scenario !== 'string' || scenario === '') continue
    const template = span.attributes[SIMULATION_ATTR.template]
    return [`simulation:${scenario}@${typeof template === 'string' && template ? template : 'base'}`]
  }
  return []
}

/**
 * `failed:<name>` for each score that failed, by its own name: a check, the judge's rubric
 * (`<rubric>`, its weighted score) or one dimension (`<rubric>.<dimension>`); `gate:<name>` for the
 * gates expected, `selected:<by>` and `below:<score>`.
 */
function exampleTags(scores: StoredScore[], gates: string[], selected: SelectionReason[]): string[] {
  const failedOf = (kind: string) => scores.filter((s) => !s.passed && s.kind === kind).map((s) => s.name)
  const failed = [...failedOf('deterministic'), ...failedOf('judge').sort()]
  const tags = [...failed.map((name) => `failed:${name}`), ...gates.map((g) => `gate:${g}`)]
  for (const reason of selected) {
    tags.push(`selected:${reason.by}`)
    if (reason.by === 'score_below') tags.push(`below:${reason.name}`)
  }
  return [...new Set(tags)]
}
