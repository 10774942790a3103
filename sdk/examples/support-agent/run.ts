import OpenAI from 'openai'
import { wrapOpenAI } from '@sieve/sdk'
import { startFakeOpenAI } from '@sieve/testkit'
import { supportTurn, type TurnResult } from './agent.js'
import type { PromptVersion } from './policy.js'
import { supportModel } from './scripted-model.js'

export interface RunOptions {
  /** Use the regressed prompt: the agent refunds outside the policy window. */
  broken?: boolean
  turns?: number
  /** An OpenAI-compatible endpoint; without one (and without OPENAI_API_KEY) the scripted model runs. */
  baseURL?: string
  apiKey?: string
  model?: string
  onTurn?: (turn: TurnResult) => void
}

/**
 * Runs customer turns of the support agent, traced with whatever `init()` set up. Tests of the
 * scorer and exporter call this (after `init` towards their collector) to get both behaviours.
 */
export async function runSupportAgent(options: RunOptions = {}): Promise<{ promptVersion: PromptVersion; offline: boolean; turns: TurnResult[] }> {
  const promptVersion: PromptVersion = options.broken ? 'refund-v4-broken' : 'refund-v3'
  const offline = !options.baseURL && !options.apiKey
  const local = offline ? await startFakeOpenAI({ script: supportModel }) : undefined
  const client = wrapOpenAI(new OpenAI(local ? { baseURL: local.baseURL, apiKey: 'offline' } : { baseURL: options.baseURL, apiKey: options.apiKey }))
  const turns: TurnResult[] = []
  try {
    for (let i = 0; i < (options.turns ?? 1); i++) {
      const turn = await supportTurn(client, {
        request: 'Hi, I want a refund for order A-1001, it arrived broken.',
        promptVersion,
        model: options.model ?? 'gpt-4o-mini',
        sessionId: `session-${Date.now()}-${i}`,
        userId: 'C-17',
      })
      turns.push(turn)
      options.onTurn?.(turn)
    }
  } finally {
    await local?.close()
  }
  return { promptVersion, offline, turns }
}
