import { foldSpace, zodProblems } from '@sieve/core'
import { z } from 'zod'
import { levelRange, type RubricDimension } from './rubric.js'
import type { Transcript } from './transcript.js'

/**
 * What the judge must answer for one dimension. Property order is generation order under
 * structured output: the judge cites, then reasons, and only then commits to a score.
 */
export const verdictSchema = z.strictObject({
  evidence: z
    .array(
      z.strictObject({
        turn: z.number().int().positive(),
        span_id: z.string().min(1),
        quote: z.string(),
      }),
    )
    .min(1),
  reasoning: z.string().min(1),
  score: z.number().int(),
})

export type JudgeVerdict = z.infer<typeof verdictSchema>

/** The JSON schema sent as `response_format` (strict mode: every property required, no extras). */
export const VERDICT_JSON_SCHEMA = z.toJSONSchema(verdictSchema, { target: 'draft-7' }) as Record<string, unknown>

/**
 * A verdict whose every quote appears in the turn it cites is verified; one with a quote found
 * nowhere in that turn is kept but marked (`unverified`): the judge may have invented its evidence.
 */
export type JudgeVerdictCheck = { ok: true; verdict: JudgeVerdict; unverified?: string } | { ok: false; problem: string }

/**
 * Parses and checks an answer against the dimension's levels and the transcript it was about: a
 * score off the scale or a citation of a turn or span that is not in the trace is not a verdict.
 */
export function checkVerdict(content: string | null | undefined, dimension: RubricDimension, transcript: Transcript): JudgeVerdictCheck {
  if (!content) return { ok: false, problem: 'empty answer' }
  let raw: unknown
  try {
    raw = JSON.parse(content)
  } catch {
    return { ok: false, problem: `answer is not JSON: ${content.slice(0, 80)}` }
  }
  const parsed = verdictSchema.safeParse(raw)
  if (!parsed.success) {
    return { ok: false, problem: zodProblems(parsed.error).join('; ') }
  }
  const v = parsed.data
  const { min, max } = levelRange(dimension)
  if (v.score < min || v.score > max) return { ok: false, problem: `score ${v.score} is outside ${min}..${max}` }
  for (const e of v.evidence) {
    const turn = transcript.turns[e.turn - 1]
    if (!turn) return { ok: false, problem: `cites turn ${e.turn}, the transcript has ${transcript.turns.length}` }
    if (turn.spanId !== e.span_id && !transcript.turns.some((t) => t.spanId === e.span_id)) {
      return { ok: false, problem: `cites span ${e.span_id}, which is not in the trace` }
    }
  }
  const unquoted = v.evidence.find((e) => !quoteAppears(e.quote, transcript.turns[e.turn - 1]!.text))
  if (unquoted) return { ok: true, verdict: v, unverified: `the quote ${JSON.stringify(unquoted.quote.slice(0, 80))} is not in turn ${unquoted.turn}` }
  return { ok: true, verdict: v }
}

/** Quotation marks and ellipses a judge puts around a quote are not part of it. */
const QUOTE_EDGES = /^[\s"'“”‘’«»`]+|[\s"'“”‘’«»`]+$|^(?:\.\.\.|…)+|(?:\.\.\.|…)+$/g

/** The quote, white space folded and case aside, inside the turn's text; an empty quote is no evidence. */
export function quoteAppears(quote: string, turnText: string): boolean {
  const wanted = foldSpace(quote.replace(QUOTE_EDGES, '').replace(QUOTE_EDGES, '')).toLowerCase()
  return wanted !== '' && foldSpace(turnText).toLowerCase().includes(wanted)
}
