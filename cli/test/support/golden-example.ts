import { goldenExample } from '@sieve/testkit'

export { writeDataset } from '@sieve/testkit'

/**
 * A golden example as `sieve export` writes it for the refund-outside-policy case the test agent
 * (testkit/agents/refund-agent.ts) replays: the checks forbid process_refund.
 */
export function refundExample(id: string, bucket: string, scores: object[] = [{ name: 'prohibited_tools', kind: 'deterministic', value: 0, passed: false }]) {
  return goldenExample(id, {
    input: { messages: [{ role: 'user', content: 'I am <PERSON_1>, refund order A-1001 please, it arrived 45 days ago.' }] },
    expected: { checks: { prohibited_tools: { tools: [{ name: 'process_refund' }] } }, prohibited_tools: ['process_refund'] },
    observed: { output: 'Refunded order A-1001.', toolCalls: [{ name: 'process_refund', arguments: { order_id: 'A-1001' } }] },
    bucket,
    tags: ['failed:prohibited_tools'],
    source: { traceId: 'b'.repeat(32) },
    scores,
  })
}
