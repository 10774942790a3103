import type { JudgeSection } from './config.js'

export interface TokenUsage {
  inputTokens: number
  outputTokens: number
}

/** USD for a call's tokens from the price table; 0 for a model without a price. */
export function callCost(prices: JudgeSection['prices'], model: string, usage: TokenUsage): number {
  const p = prices[model]
  if (!p) return 0
  return (usage.inputTokens * p.inputPerMillion + usage.outputTokens * p.outputPerMillion) / 1_000_000
}
