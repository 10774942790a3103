import { readFileSync } from 'node:fs'
import { presidioDatasetPath } from './presidio.js'

/**
 * The text the scrubber benchmarks run on: the presidio sentences, the hand-made corpus (keys,
 * phones, look-alikes such as order ids and trace ids), and agent-shaped examples made of both.
 */
export const sentences = (JSON.parse(readFileSync(presidioDatasetPath(), 'utf8')) as { full_text: string }[]).map((r) => r.full_text)
export const corpus = readFileSync(new URL('../test/fixtures/scrub-corpus.jsonl', import.meta.url), 'utf8')
  .trim()
  .split('\n')
  .map((l) => (JSON.parse(l) as { text: string }).text)
const system =
  'You are the support agent of an online shop. Be concise, never promise refunds outside the 30-day policy, and call tools to look up orders before answering. '.repeat(
    3,
  )

/** Example i: a system prompt, a user turn, two tool calls with arguments and results, and an answer. */
export function benchExample(i: number) {
  const s = (k: number) => sentences[(i * 7 + k) % sentences.length]!
  const c = (k: number) => corpus[(i * 5 + k) % corpus.length]!
  return {
    input: { system, messages: [{ role: 'user', content: `${s(0)} ${s(1)}` }] },
    tool_calls: [
      {
        name: 'lookup_order',
        arguments: { order_id: `ORD-${100000 + i}`, note: c(0) },
        result: { status: 'delivered', detail: `${c(1)} ${s(2)}`, trace_id: '4bf92f3577b34da6a3ce929d0e0e4736' },
      },
      { name: 'customer_profile', arguments: { query: s(3) }, result: { profile: `${s(4)}\n${c(2)}`, tier: 'gold', since: '2021-04-12T09:30:00Z' } },
    ],
    output: `${s(5)} ${c(3)} Your order ORD-${100000 + i} for $129.99 shipped on 2024-05-01.`,
  }
}
