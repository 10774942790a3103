import { causalTree, ContentReader, spanCausalKeys, type Span, type SpanNode as CausalNode, type Trace } from '@sieve/core'

export type SpanNode = Span & { children: SpanNode[] }

export interface TraceTree {
  projectId: string
  traceId: string
  complete: boolean
  spanCount: number
  /** Root spans, plus spans whose parent was never received or whose parent links loop (so no span is hidden). */
  roots: SpanNode[]
}

/**
 * Nests spans under their parents, siblings in the order they happened. Start times cannot say
 * that alone: an agent loop's model call and the tool call it asked for often start in the same
 * millisecond, and services' clocks drift. So siblings are put in core's causal order (the one the
 * conversation is read in: a tool span after the model call that requested its call id), then by
 * clock. `reader` parses the spans' content; pass the one `conversationOf` uses to read it once.
 */
export function traceTree(trace: Trace, reader = new ContentReader()): TraceTree {
  const toNode = (node: CausalNode): SpanNode => ({ ...node.span, children: node.children.map(toNode) })
  const roots = causalTree(trace.spans, spanCausalKeys(reader)).map(toNode)
  return { projectId: trace.projectId, traceId: trace.traceId, complete: trace.complete, spanCount: trace.spans.length, roots }
}
