import { z } from 'zod'
import { costUsd, priceTableSchema } from '../pricing.js'
import { traceView } from '../trace/view.js'
import { tokensAbsent } from './absent-inputs.js'
import { defineCheck } from './check.js'

export const costBudget = defineCheck({
  name: 'cost_budget',
  version: '2',
  description: 'The model calls of the trace cost at most maxUsd, priced by the per-model price table.',
  params: z.object({
    maxUsd: z.number().positive().default(1),
    /** Model → USD per million input/output tokens; `name*` keys match by prefix. */
    prices: priceTableSchema.default({}),
  }),
  evaluate(trace, { maxUsd, prices }) {
    const view = traceView(trace)
    const calls = view.llmCalls
    if (!calls.length) return { skipped: 'no model calls' }
    let usd = 0
    let priced = 0
    const unpriced = new Set<string>()
    for (const c of calls) {
      const model = c.fields.responseModel || c.fields.requestModel
      const cost = costUsd(model, c.fields.inputTokens, c.fields.outputTokens, prices)
      if (cost === undefined) unpriced.add(model || '(unnamed model)')
      else {
        usd += cost
        priced++
      }
    }
    if (!priced) return { skipped: `no price for ${[...unpriced].join(', ')}; add it under cost_budget.prices` }
    // Priced, but no token counts to price: $0 would be a pass the trace never earned.
    const absent = tokensAbsent(view)
    if (absent) return absent
    const rounded = Math.round(usd * 1e6) / 1e6
    const note = unpriced.size ? ` (not priced: ${[...unpriced].join(', ')})` : ''
    return {
      value: usd > maxUsd ? maxUsd / usd : 1,
      passed: usd <= maxUsd,
      detail: { message: `cost $${rounded} (max $${maxUsd})${note}`, usd: rounded, unpricedModels: [...unpriced] },
    }
  },
})
