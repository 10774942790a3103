import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml'

/** A YAML text read with where each of its values sits, so a schema problem can name its line. */
export type YamlWithLines = { ok: true; value: unknown; lineOf(path: readonly PropertyKey[]): number } | { ok: false; line: number; message: string }

/**
 * Parses `text`; `lineOf(path)` is the 1-based line of the key (or list item) `path` leads to, or
 * of the deepest part of it that exists (the mapping a missing key belongs in).
 */
export function parseYamlWithLines(text: string): YamlWithLines {
  const lines = new LineCounter()
  const doc = parseDocument(text, { lineCounter: lines })
  const error = doc.errors[0]
  if (error) return { ok: false, line: error.linePos?.[0].line ?? 1, message: error.message.split('\n')[0]! }
  let value: unknown
  try {
    value = doc.toJS()
  } catch (err) {
    // Thrown while building values: aliases that would expand past the parser's bound ("billion laughs").
    return { ok: false, line: 1, message: (err as Error).message }
  }
  const lineAt = (offset: number | undefined) => (offset === undefined ? 1 : lines.linePos(offset).line)
  return {
    ok: true,
    value,
    lineOf(path) {
      let node: unknown = doc.contents
      let line = lineAt((node as Node | null)?.range?.[0])
      for (const segment of path) {
        if (isMap(node)) {
          const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === segment)
          if (!pair) break
          line = lineAt((pair.key as Node | null)?.range?.[0])
          node = pair.value
        } else if (isSeq(node) && typeof segment === 'number' && node.items[segment]) {
          node = node.items[segment]
          line = lineAt((node as Node).range?.[0])
        } else break
      }
      return line
    },
  }
}
