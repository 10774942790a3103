import type { TraceView } from '../trace/view.js'
import { notMeasured, type Verdict } from './check.js'

/**
 * Why a check cannot read the trace, when what it reads is absent. A trace without model calls is
 * not an agent's (nothing to check: skipped); one whose model calls were traced without what the
 * check reads leaves the verdict unknown (not measured, never a pass).
 */

/** For checks reading messages: the trace's model calls sent none. */
export function contentAbsent(view: TraceView): Verdict | undefined {
  if (view.hasContent) return undefined
  return view.llmCalls.length ? notMeasured(view.contentHint) : { skipped: 'no model calls and no messages in the trace' }
}

/** For checks reading tool calls: the trace has no tool spans and none of its model calls' output was captured. */
export function toolCallsUnseen(view: TraceView): Verdict | undefined {
  if (view.toolCallsVisible) return undefined
  if (!view.llmCalls.length) return { skipped: 'no model or tool calls in the trace' }
  const why = view.contentHint || "no model call's output was captured"
  return notMeasured(`tool calls not visible: the trace has no tool spans and ${why}`)
}

/** For checks reading token counts: the model calls carry none. */
export function tokensAbsent(view: TraceView): Verdict | undefined {
  if (!view.llmCalls.length) return { skipped: 'no model calls' }
  if (view.llmCalls.some((c) => c.fields.inputTokens > 0 || c.fields.outputTokens > 0)) return undefined
  return notMeasured('the model calls carry no token counts (gen_ai.usage.input_tokens / gen_ai.usage.output_tokens)')
}
