import type { Trace } from '@sieve/core'
import type { GoldenExample } from '@sieve/dataset'

type Message = GoldenExample['input']['messages'][number]

/** How many times the agent is called for an example: once per user turn. */
export const userTurnCount = (messages: readonly Message[]): number => messages.filter((m) => m.role === 'user').length

/**
 * What the agent receives for user turn `turn` (0-based) of a recorded conversation: the recorded
 * messages up to that user turn, each earlier answer replaced by the answer the agent gave live in
 * this replay (`answers[i]` for user turn i), so the agent continues its own conversation rather
 * than one it never had. Assistant messages before the first user turn (a greeting) are kept.
 */
export function turnInput(messages: readonly Message[], answers: readonly string[], turn: number): Message[] {
  const out: Message[] = []
  let user = -1
  let answered = false
  for (const m of messages) {
    if (m.role === 'user') {
      user++
      answered = false
      out.push(m)
      if (user === turn) break
    } else if (user < 0) out.push(m)
    else if (!answered) {
      out.push({ role: 'assistant', content: answers[user] ?? m.content })
      answered = true
    }
  }
  return out
}

/**
 * The traces of one replay's turns as one trace, for the checks: a prohibited tool called in any
 * turn, a required one called in none, are the run's.
 */
export function replaySession(traces: readonly Trace[]): Trace | undefined {
  const last = traces[traces.length - 1]
  if (!last) return undefined
  if (traces.length === 1) return last
  return { projectId: last.projectId, traceId: last.traceId, spans: traces.flatMap((t) => t.spans), complete: traces.every((t) => t.complete) }
}
