import { z } from 'zod'

/**
 * Model prices in USD per million tokens, keyed by model name. A key ending in `*` is a prefix
 * (`gpt-4o-mini*` prices every dated snapshot); the longest matching key wins. Shared by the cost
 * budget check and the judge's spend accounting.
 */
export const priceTableSchema = z.record(z.string().min(1), z.object({ input: z.number().min(0), output: z.number().min(0) }))

export type PriceTable = z.output<typeof priceTableSchema>
export type ModelPrice = PriceTable[string]

export function priceOf(model: string, table: PriceTable): ModelPrice | undefined {
  const exact = table[model]
  if (exact) return exact
  let best: { length: number; price: ModelPrice } | undefined
  for (const [key, price] of Object.entries(table)) {
    if (!key.endsWith('*')) continue
    const prefix = key.slice(0, -1)
    if (model.startsWith(prefix) && (!best || prefix.length > best.length)) best = { length: prefix.length, price }
  }
  return best?.price
}

/** USD for one call, or undefined when the model has no price. */
export function costUsd(model: string, inputTokens: number, outputTokens: number, table: PriceTable): number | undefined {
  const price = priceOf(model, table)
  return price && (inputTokens * price.input + outputTokens * price.output) / 1_000_000
}
