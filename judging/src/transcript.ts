import { conversationOf, type Trace, type Turn } from '@sieve/core'
import { traceView } from '@sieve/scoring'

/**
 * What the judge reads: the trace's conversation (core's conversation model), one entry per turn,
 * numbered as the conversation is. Each entry keeps the id of the span it came from, so a verdict
 * can cite it and an engineer can open it.
 */
export interface TranscriptTurn {
  /** 1-based position in the conversation; what the judge cites as "turn N". */
  index: number
  spanId: string
  role: Turn['role']
  /** Tool name for tool calls and results. */
  name?: string
  /** The text the judge is shown (a long turn is cut), and that a quote must appear in. */
  text: string
  /** Said before this trace began (the history its model calls were sent): context, not what the agent did in it. */
  history?: true
}

export interface Transcript {
  turns: TranscriptTurn[]
  /** User turns: how long the conversation was, for the long-conversation slice. */
  userTurns: number
  tokens: number
  /** No user or assistant text: nothing to judge (content capture off, tool spans only). */
  contentMissing: boolean
  /** Why the conversation is incomplete (an incomplete trace, content cut short); empty when whole. */
  truncation: string[]
}

function turnText(turn: Turn): string {
  switch (turn.role) {
    case 'tool_call':
      return `${turn.name ?? 'tool'}(${turn.text})`
    case 'tool_result':
      return turn.error ? `[error: ${turn.error}]${turn.result !== undefined ? ` ${turn.text}` : ''}` : turn.text
    default:
      return turn.text
  }
}

/** The transcript of one trace, or of the traces of one session (an eval replay's turns). */
export function buildTranscript(traces: Trace | readonly Trace[], maxCharsPerTurn = 4000): Transcript {
  const single = !Array.isArray(traces) ? (traces as Trace) : traces.length === 1 ? traces[0]! : undefined
  // One trace: the conversation the checks read already, built once per trace.
  const conversation = single ? traceView(single).conversation : conversationOf(traces)
  const turns = conversation.turns.map((turn, i): TranscriptTurn => {
    const full = turnText(turn)
    const text = full.length > maxCharsPerTurn ? `${full.slice(0, maxCharsPerTurn)}… [${full.length - maxCharsPerTurn} more characters]` : full
    return {
      index: i + 1,
      spanId: turn.spanId,
      role: turn.role,
      ...(turn.name ? { name: turn.name } : {}),
      text,
      ...(turn.history ? { history: true as const } : {}),
    }
  })
  let tokens = 0
  for (const trace of single ? [single] : (traces as readonly Trace[])) {
    for (const call of traceView(trace).llmCalls) tokens += call.fields.inputTokens + call.fields.outputTokens
  }
  return {
    turns,
    userTurns: turns.filter((t) => t.role === 'user').length,
    tokens,
    contentMissing: conversation.contentMissing,
    truncation: conversation.truncation,
  }
}
