import { compareNanos, type Span } from '../span.js'

/**
 * Spans as a tree, siblings in the order they happened. Clocks alone cannot tell: spans of one
 * agent loop often start within the same millisecond, and services' clocks drift. Content can:
 * a model call that asked for tool call `c1` came before the tool span that ran `c1`, which came
 * before the model call whose input holds `c1`'s result; a model call whose output another call's
 * input repeats came first. Those links order siblings; start time, then end time, orders the rest.
 * Siblings that plainly ran one after another (see ranInTurn) keep their clock order.
 */
export interface SpanNode {
  span: Span
  children: SpanNode[]
}

/** What a span (with everything under it) made known, and what it had to know first. */
export interface CausalKeys {
  produces: Iterable<string>
  consumes: Iterable<string>
}

export type KeysOf = (span: Span) => CausalKeys | undefined

const byClock = (a: SpanNode, b: SpanNode): number =>
  compareNanos(a.span.startTimeUnixNano, b.span.startTimeUnixNano) ||
  compareNanos(a.span.endTimeUnixNano, b.span.endTimeUnixNano) ||
  (a.span.spanId < b.span.spanId ? -1 : a.span.spanId > b.span.spanId ? 1 : 0)

/** Every span once; a span whose parent is missing (or a parent cycle) becomes a root. */
export function causalTree(spans: readonly Span[], keysOf: KeysOf = () => undefined): SpanNode[] {
  const nodes = new Map<string, SpanNode>()
  for (const span of spans) if (!nodes.has(span.spanId)) nodes.set(span.spanId, { span, children: [] })
  const roots: SpanNode[] = []
  for (const node of nodes.values()) {
    const parent = node.span.parentSpanId ? nodes.get(node.span.parentSpanId) : undefined
    if (parent && parent !== node) parent.children.push(node)
    else roots.push(node)
  }
  // Parent links that loop (a → b → a) reach no root: each such loop is cut at its earliest span.
  const reached = new Set<SpanNode>()
  const reach = (from: SpanNode[]) => {
    const stack = [...from]
    while (stack.length) {
      const n = stack.pop()!
      if (reached.has(n)) continue
      reached.add(n)
      stack.push(...n.children)
    }
  }
  reach(roots)
  if (reached.size < nodes.size) {
    for (const node of [...nodes.values()].sort(byClock)) {
      if (reached.has(node)) continue
      const parent = nodes.get(node.span.parentSpanId)!
      parent.children.splice(parent.children.indexOf(node), 1)
      roots.push(node)
      reach([node])
    }
  }
  const subtreeKeys = new Map<SpanNode, CausalKeys>()
  const keysOfTree = (node: SpanNode): CausalKeys => {
    let keys = subtreeKeys.get(node)
    if (keys) return keys
    const own = keysOf(node.span) ?? NO_KEYS
    if (node.children.length === 0) keys = own
    else {
      const produces = new Set(own.produces)
      const consumes = new Set(own.consumes)
      for (const child of node.children) {
        const c = keysOfTree(child)
        for (const k of c.produces) produces.add(k)
        for (const k of c.consumes) consumes.add(k)
      }
      keys = { produces, consumes }
    }
    subtreeKeys.set(node, keys)
    return keys
  }
  const order = (list: SpanNode[]): SpanNode[] => {
    for (const node of list) node.children = order(node.children)
    return orderSiblings(list, keysOfTree)
  }
  return order(roots)
}

const NO_KEYS: CausalKeys = { produces: [], consumes: [] }

/**
 * Siblings of one service that ran one after another (each ended before the next began) are in the
 * order their clock gives; content links need not be read. Spans that overlap, start together or
 * come from services with clocks of their own are ordered by the links.
 */
function ranInTurn(byTime: SpanNode[]): boolean {
  for (let i = 1; i < byTime.length; i++) {
    const a = byTime[i - 1]!.span
    const b = byTime[i]!.span
    if (
      a.serviceName !== b.serviceName ||
      compareNanos(a.endTimeUnixNano, b.startTimeUnixNano) > 0 ||
      compareNanos(a.startTimeUnixNano, b.startTimeUnixNano) >= 0
    )
      return false
  }
  return true
}

/** Siblings sorted topologically on the content links, clock order among those free to go next. */
function orderSiblings(list: SpanNode[], keysOf: (n: SpanNode) => CausalKeys): SpanNode[] {
  const byTime = [...list].sort(byClock)
  if (byTime.length < 2 || ranInTurn(byTime)) return byTime
  // A key made by one sibling only is a link; one made by several says nothing about order.
  const producer = new Map<string, number>()
  byTime.forEach((node, i) => {
    for (const key of keysOf(node).produces) producer.set(key, producer.has(key) && producer.get(key) !== i ? -1 : i)
  })
  if (producer.size === 0) return byTime
  const after: Set<number>[] = byTime.map(() => new Set())
  const waitingOn = byTime.map(() => 0)
  byTime.forEach((node, i) => {
    for (const key of keysOf(node).consumes) {
      const p = producer.get(key)
      if (p === undefined || p < 0 || p === i || after[p]!.has(i)) continue
      after[p]!.add(i)
      waitingOn[i]!++
    }
  })
  const out: SpanNode[] = []
  const done = byTime.map(() => false)
  while (out.length < byTime.length) {
    // The earliest sibling nothing waits for; when links contradict each other, the earliest left.
    let next = byTime.findIndex((_, i) => !done[i] && waitingOn[i] === 0)
    if (next < 0) next = done.indexOf(false)
    done[next] = true
    out.push(byTime[next]!)
    for (const j of after[next]!) waitingOn[j]!--
  }
  return out
}

/** Depth first, each span before its children: the order a trace happened in. */
export function* walkTree(roots: readonly SpanNode[]): Generator<SpanNode> {
  const stack = [...roots].reverse()
  while (stack.length) {
    const node = stack.pop()!
    yield node
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
}
