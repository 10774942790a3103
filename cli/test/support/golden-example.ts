import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * A golden example as `sieve export` writes it for the refund-outside-policy case the test agent
 * (testkit/agents/refund-agent.ts) replays: the checks forbid process_refund.
 */
export function refundExample(id: string, bucket: string, scores: object[] = [{ name: 'prohibited_tools', kind: 'deterministic', value: 0, passed: false }]) {
  return {
    version: 1,
    id,
    input: { messages: [{ role: 'user', content: 'I am <PERSON_1>, refund order A-1001 please, it arrived 45 days ago.' }] },
    context: { retrievedDocumentIds: [], toolResults: [] },
    expected: { checks: { prohibited_tools: { tools: [{ name: 'process_refund' }] } }, prohibited_tools: ['process_refund'] },
    observed: { output: 'Refunded order A-1001.', toolCalls: [{ name: 'process_refund', arguments: { order_id: 'A-1001' } }] },
    bucket,
    tags: ['failed:prohibited_tools'],
    source: {
      traceId: 'b'.repeat(32),
      projectId: 'default',
      service: 'support',
      agentName: 'support',
      agentVersion: 'v12',
      promptVersion: '',
      model: 'gpt-4o-mini',
      exportedAt: '2026-01-15T10:00:00.000Z',
    },
    scores,
    reviewBy: '2026-04-15',
  }
}

/** Writes examples as a JSONL dataset in `dir`; returns its path. */
export function writeDataset(dir: string, name: string, ...examples: object[]): string {
  const path = join(dir, name)
  writeFileSync(path, `${examples.map((e) => JSON.stringify(e)).join('\n')}\n`)
  return path
}
