import { failWith, say, type ModelRequest, type Step } from './fake-openai/script.js'

/**
 * The first user turn of a judge prompt (the first turn when none is the user's), with the first
 * sentence of its text as the quote: scripted verdicts cite something real, word for word.
 */
export function firstCitation(request: ModelRequest): { turn: number; span_id: string; quote: string } {
  const user: string = request.body.messages.find((m: { role: string }) => m.role === 'user').content
  const m = /\[turn (\d+) \| span ([^ ]+) \| user\]\n([^\n]*)/.exec(user) ?? /\[turn (\d+) \| span ([^ ]+) \|[^\]]*\]\n([^\n]*)/.exec(user)
  const sentence = /^.{1,80}?[.?!](?=\s|$)/.exec(m?.[3] ?? '')?.[0] ?? (m?.[3] ?? '').slice(0, 40)
  return { turn: Number(m?.[1] ?? 1), span_id: m?.[2] ?? 'none', quote: sentence }
}

/** The dimension a judge prompt is about. */
export const dimensionOf = (request: ModelRequest): string =>
  /Dimension: (.+)/.exec(request.body.messages.find((m: { role: string }) => m.role === 'user').content)?.[1] ?? ''

/** A valid verdict for whatever was asked, with the given level. */
export function verdict(request: ModelRequest, score: number, extra: Omit<Parameters<typeof say>[1], never> = {}): Step {
  return say(JSON.stringify({ evidence: [firstCitation(request)], reasoning: 'The agent answered from the tool result.', score }), {
    usage: { inputTokens: 1000, outputTokens: 100 },
    ...extra,
  })
}

/** A script whose every dimension is refused with 429, then 500, then answered with a valid verdict. */
export function failsTwiceThenAnswers(score: number): (request: ModelRequest) => Step {
  const attempts = new Map<string, number>()
  return (r) => {
    const d = dimensionOf(r)
    const n = (attempts.get(d) ?? 0) + 1
    attempts.set(d, n)
    return n === 1 ? failWith(429, { retryAfterSeconds: 0 }) : n === 2 ? failWith(500) : verdict(r, score)
  }
}
