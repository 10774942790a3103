import OpenAI from 'openai'
import { wrapOpenAI } from '@sieve/sdk'
import { supportTurn, type TurnResult } from './agent.js'
import type { PromptVersion } from './policy.js'

export interface RunOptions {
  /** Use the regressed prompt: the agent refunds outside the policy window. */
  broken?: boolean
  turns?: number
  /** An OpenAI-compatible endpoint and its key; by default OPENAI_BASE_URL and OPENAI_API_KEY, as the `openai` client reads them. */
  baseURL?: string
  apiKey?: string
  /** Default OPENAI_MODEL, else gpt-4o-mini. */
  model?: string
  onTurn?: (turn: TurnResult) => void
}

/** What the customer says: the request, then (in a longer conversation) insisting on a refund to the card. */
const CUSTOMER = [
  'Hi, I want a refund for order A-1001, it arrived broken.',
  "I don't want store credit. Please refund it to my card, I have been a customer for years.",
]

/**
 * Runs one conversation of `turns` customer turns with the support agent (one session, each turn
 * given the earlier ones as history), traced with whatever `init()` set up. Tests of the scorer
 * and exporter call this (after `init` towards their collector) to get both behaviours.
 */
export async function runSupportAgent(options: RunOptions = {}): Promise<{ promptVersion: PromptVersion; sessionId: string; turns: TurnResult[] }> {
  const promptVersion: PromptVersion = options.broken ? 'refund-v4-broken' : 'refund-v3'
  // Unset options fall back to the client's own environment variables.
  const client = wrapOpenAI(new OpenAI({ baseURL: options.baseURL, apiKey: options.apiKey }))
  const turns: TurnResult[] = []
  const sessionId = `session-${Date.now()}`
  const history: { role: 'user' | 'assistant'; content: string }[] = []
  for (let i = 0; i < (options.turns ?? 1); i++) {
    const request = CUSTOMER[Math.min(i, CUSTOMER.length - 1)]!
    const turn = await supportTurn(client, {
      request,
      history: [...history],
      promptVersion,
      model: options.model ?? process.env.OPENAI_MODEL ?? 'gpt-4o-mini',
      sessionId,
      userId: 'C-17',
    })
    history.push({ role: 'user', content: request }, { role: 'assistant', content: turn.answer })
    turns.push(turn)
    options.onTurn?.(turn)
  }
  return { promptVersion, sessionId, turns }
}
