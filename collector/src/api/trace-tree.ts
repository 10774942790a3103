import type { Span, Trace } from '@sieve/core'

export type SpanNode = Span & { children: SpanNode[] }

export interface TraceTree {
  projectId: string
  traceId: string
  complete: boolean
  spanCount: number
  /** Root spans, plus spans whose parent was never received (so no span is hidden). */
  roots: SpanNode[]
}

/** Nests spans under their parents, children in start order. */
export function traceTree(trace: Trace): TraceTree {
  const nodes = new Map<string, SpanNode>()
  for (const span of trace.spans) nodes.set(span.spanId, { ...span, children: [] })
  const roots: SpanNode[] = []
  for (const node of nodes.values()) {
    const parent = node.parentSpanId ? nodes.get(node.parentSpanId) : undefined
    if (parent && parent !== node) parent.children.push(node)
    else roots.push(node)
  }
  return { projectId: trace.projectId, traceId: trace.traceId, complete: trace.complete, spanCount: trace.spans.length, roots }
}
