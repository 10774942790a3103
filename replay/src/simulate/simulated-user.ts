import type { VisibleMessage } from './user-prompt.js'
import { DONE } from './templates.js'

/** The user's next turn, or why there is none. */
export type UserReply = { say: string } | { end: 'user-done' | 'script-ended' }

/** What the simulated user has cost so far (an LLM user; a scripted one costs nothing). */
export interface UserUsage {
  calls: number
  inputTokens: number
  outputTokens: number
  costUsd: number
}

/** Plays the user of one run: sees the visible conversation only, answers with its next turn. */
export interface SimulatedUser {
  readonly kind: 'scripted' | 'llm'
  readonly usage: UserUsage
  /** `turn` is the 1-based number of the turn asked for (the opening is turn 1). */
  next(visible: readonly VisibleMessage[], turn: number): Promise<UserReply>
}

export const noUsage = (): UserUsage => ({ calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 })

/** The scripted user: the next line of its script; the run ends when the script does, or at a `[DONE]` line. */
export function scriptedUser(script: readonly string[]): SimulatedUser {
  let said = 0
  return {
    kind: 'scripted',
    usage: noUsage(),
    async next() {
      const line = script[said++]
      if (line === undefined) return { end: 'script-ended' }
      return line === DONE ? { end: 'user-done' } : { say: line }
    },
  }
}
