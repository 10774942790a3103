import { createHash } from 'node:crypto'
import { zodProblems } from '@sieve/core'
import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'

/**
 * The `scorecards` section of the config file: how one trace's scores add up to one verdict, per
 * agent. Items are named as their scores are in `scores`: a check (`prohibited_tools`), a judge
 * rubric's weighted score (`customer-support`) or one of its dimensions
 * (`customer-support.policy_adherence`).
 *
 *   scorecards:
 *     default:                                   # agents without their own
 *       passAt: 0.8                              # weighted total needed to pass
 *       items:
 *         latency_budget: { weight: 1 }
 *         customer-support: { weight: 2 }
 *     agents:
 *       support-agent:                           # gen_ai.agent.name, else service.name
 *         passAt: 0.8
 *         items:
 *           prohibited_tools: { gate: true }     # failing it fails the trace, whatever the total
 *           customer-support.policy_adherence: { weight: 2, gate: true, min: 0.5 }
 *
 * An agent's scorecard replaces the default one whole: a verdict is read against one list.
 */
const itemSchema = z
  .strictObject({
    /** Share of the weighted total; 0 makes a pure gate. */
    weight: z.number().min(0).default(1),
    /** A hard gate: when the item fails, the trace fails whatever the weighted total. */
    gate: z.boolean().default(false),
    /** Value (0..1) the item needs to pass; without it, the score's own pass (a check's, a rubric's threshold, a dimension's passAt). */
    min: z.number().min(0).max(1).optional(),
  })
  .default({ weight: 1, gate: false })

const JUDGE_NAME = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9_]*)?$/

export const scorecardSchema = z.strictObject({
  passAt: z.number().min(0).max(1),
  items: z.record(z.string().min(1), itemSchema).refine((items) => Object.keys(items).length > 0, 'a scorecard needs at least one item'),
})

export const scorecardsSectionSchema = z
  .strictObject({
    default: scorecardSchema.optional(),
    agents: z.record(z.string().min(1), scorecardSchema).default({}),
  })
  .default({ agents: {} })

export type ScorecardItemKind = 'deterministic' | 'judge'

export interface ScorecardItem {
  name: string
  kind: ScorecardItemKind
  weight: number
  gate: boolean
  min?: number
}

export interface Scorecard {
  /** The agents key that matched, or 'default'. */
  name: string
  passAt: number
  items: readonly ScorecardItem[]
  /** Hash of the card's content: a stored verdict says which card made it. */
  configHash: string
}

export interface Scorecards {
  default: Scorecard | undefined
  agents: ReadonlyMap<string, Scorecard>
  /** The card for a trace: by agent name first, then service name, then the default; none when nothing is configured. */
  cardFor(agentName: string, serviceName: string): Scorecard | undefined
}

/**
 * Validates the section. `checks` are the names of the checks that can run: an item named like one
 * is a check; any other name must look like a judge rubric or `rubric.dimension` (whether that
 * rubric is loaded is for the judge to say, see `judgeItemProblems`).
 */
export function resolveScorecards(section: unknown, checks: ReadonlySet<string>): { scorecards: Scorecards; problems: string[] } {
  const parsed = scorecardsSectionSchema.safeParse(section)
  if (!parsed.success) {
    return { scorecards: noScorecards, problems: zodProblems(parsed.error, { at: 'scorecards' }) }
  }
  const problems: string[] = []
  const build = (name: string, card: z.output<typeof scorecardSchema>, path: string): Scorecard => {
    const items: ScorecardItem[] = []
    for (const [item, spec] of Object.entries(card.items)) {
      const kind: ScorecardItemKind | undefined = checks.has(item) ? 'deterministic' : JUDGE_NAME.test(item) ? 'judge' : undefined
      if (!kind) {
        problems.push(`${path}.items.${item}: neither a check (known: ${[...checks].join(', ')}) nor a judge rubric or rubric.dimension`)
        continue
      }
      items.push({ name: item, kind, weight: spec.weight, gate: spec.gate, ...(spec.min !== undefined ? { min: spec.min } : {}) })
    }
    if (!items.some((i) => i.weight > 0 || i.gate)) problems.push(`${path}.items: every item has weight 0 and no gate: the card scores nothing`)
    const configHash = createHash('sha256')
      .update(canonicalJson({ passAt: card.passAt, items }))
      .digest('hex')
      .slice(0, 16)
    return { name, passAt: card.passAt, items, configHash }
  }
  const fallback = parsed.data.default ? build('default', parsed.data.default, 'scorecards.default') : undefined
  const agents = new Map(Object.entries(parsed.data.agents).map(([agent, card]) => [agent, build(agent, card, `scorecards.agents.${agent}`)]))
  return {
    problems,
    scorecards: {
      default: fallback,
      agents,
      cardFor: (agentName, serviceName) => (agentName && agents.get(agentName)) || (serviceName && agents.get(serviceName)) || fallback,
    },
  }
}

export const noScorecards: Scorecards = { default: undefined, agents: new Map(), cardFor: () => undefined }

/** Judge items naming a rubric or a dimension that no loaded rubric has: a typo would never score. */
export function judgeItemProblems(scorecards: Scorecards, rubrics: ReadonlyMap<string, { dimensions: ReadonlyArray<{ id: string }> }>): string[] {
  const cards = [...(scorecards.default ? [scorecards.default] : []), ...scorecards.agents.values()]
  return cards.flatMap((card) =>
    card.items.flatMap((item) => {
      if (item.kind !== 'judge') return []
      const [rubricId, dimension] = item.name.split('.', 2) as [string, string | undefined]
      const rubric = rubrics.get(rubricId)
      if (rubric && (dimension === undefined || rubric.dimensions.some((d) => d.id === dimension))) return []
      const path = card.name === 'default' ? 'scorecards.default' : `scorecards.agents.${card.name}`
      const known = rubric ? `dimensions of ${rubricId}: ${rubric.dimensions.map((d) => d.id).join(', ')}` : `rubrics: ${[...rubrics.keys()].join(', ')}`
      return [`${path}.items.${item.name}: no loaded rubric has it (${known})`]
    }),
  )
}
