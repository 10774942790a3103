import type { Span } from '../span.js'
import type { Convention } from './convention.js'
import { openInference } from './openinference.js'
import { openLlmetry } from './openllmetry.js'
export { ASSOCIATED_SESSION } from './openllmetry.js'
import { vercelAi } from './vercel-ai.js'

export type { Convention, FactKey, SchemeMessages, SchemeToolCall } from './convention.js'

/** Read after the GenAI conventions, in this order (see Convention). */
export const CONVENTIONS: readonly Convention[] = [openInference, vercelAi, openLlmetry]

/** The first convention the span carries, if any. */
export function conventionOf(span: Span): Convention | undefined {
  for (const c of CONVENTIONS) if (c.marks(span)) return c
  return undefined
}
