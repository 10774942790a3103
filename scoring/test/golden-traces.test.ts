import assert from 'node:assert/strict'
import { test } from 'node:test'
import { resolveChecksConfig, scoreTrace, type TraceScore } from '../src/index.js'
import { maskPii } from '../src/trace/pii.js'
import type { AgentRecorder } from '@sieve/testkit/agent-trace'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'

const config = resolveChecksConfig(checksSection)

function score(recorder: AgentRecorder): TraceScore {
  return scoreTrace(recorder.trace(), config)
}

const failed = (s: TraceScore): string[] => s.results.filter((r) => !r.passed).map((r) => r.name)
const result = (s: TraceScore, name: string) => {
  const r = s.results.find((x) => x.name === name)
  assert.ok(r, `no result for ${name}; skipped: ${JSON.stringify(s.skipped)}`)
  return r
}

test('a refund outside policy fails prohibited_tools, naming the process_refund span and its arguments', () => {
  const r = scenarios.refundOutsidePolicy()
  const s = score(r)
  assert.equal(s.profile, 'support')
  assert.deepEqual(failed(s), ['prohibited_tools'])
  const check = result(s, 'prohibited_tools')
  assert.equal(check.value, 0)
  const spanId = r.spanId('execute_tool process_refund')
  assert.deepEqual(check.detail.violations, [{ spanId, tool: 'process_refund', arguments: { order_id: 'A-1001', amount: 89 }, rule: 'process_refund' }])
  assert.equal(check.detail.message, `prohibited tool process_refund called in span ${spanId} with args {"amount":89,"order_id":"A-1001"}`)
})

test('the same request handled within policy passes every check that applies', () => {
  const s = score(scenarios.refundHandledWell())
  assert.deepEqual(failed(s), [])
  assert.ok(s.results.every((r) => r.value === 1 && !r.error))
  // Every check ran except the one with nothing to look at (no output schema for this agent).
  assert.deepEqual(
    s.skipped.map((k) => k.name),
    ['structured_output'],
  )
  assert.equal(result(s, 'grounding').detail.message, 'all 1 cited documents were retrieved')
  assert.equal(result(s, 'required_tools').detail.message, 'all 1 required tools were called')
})

test('a URL found in no input, tool result or context fails invented_urls with the URL and its span', () => {
  const r = scenarios.hallucinatedUrl()
  const s = score(r)
  assert.deepEqual(failed(s), ['invented_urls'])
  const answerSpan = r.spanId('chat gpt-4o-mini-2024-07-18', 3)
  assert.deepEqual(result(s, 'invented_urls').detail.invented, [{ spanId: answerSpan, url: 'https://help.acme.example/refunds/extended-returns' }])
})

test('a structured answer that breaks the declared schema fails structured_output, naming the field', () => {
  const r = scenarios.schemaBreakingOutput()
  const s = score(r)
  assert.equal(s.profile, 'triage')
  assert.deepEqual(failed(s), ['structured_output'])
  const detail = result(s, 'structured_output').detail
  // The agent's output repeats the model call's: the answer is the model call's, where it was produced.
  assert.equal(detail.spanId, r.spanId('chat gpt-4o-mini-2024-07-18'))
  assert.deepEqual(detail.schemaProblems, ['priority: Invalid option: expected one of "low"|"medium"|"high"'])
  assert.deepEqual(detail.emptyFields, ['summary'])
})

test('the same tool called four times with the same arguments fails tool_loop, listing the spans', () => {
  const r = scenarios.toolLoop()
  const s = score(r)
  assert.deepEqual(failed(s), ['tool_loop'])
  const check = result(s, 'tool_loop')
  const spans = [0, 1, 2, 3].map((i) => r.spanId('execute_tool search_kb', i))
  assert.deepEqual(check.detail.loops, [{ tool: 'search_kb', arguments: { query: 'extended warranty' }, spanIds: spans }])
  assert.equal(check.value, 1 - 3 / 5)
})

test('an answer cut at the token limit fails truncation, naming the model call', () => {
  const r = scenarios.truncatedAnswer()
  const s = score(r)
  assert.deepEqual(failed(s), ['truncation'])
  assert.deepEqual(result(s, 'truncation').detail.truncated, [{ spanId: r.spanId('chat gpt-4o-mini-2024-07-18', 1), finishReasons: ['length'] }])
})

test("PII from a tool result echoed to the user fails pii_echo; the user's own email does not", () => {
  const r = scenarios.piiEchoed()
  const s = score(r)
  assert.deepEqual(failed(s), ['pii_echo'])
  const echoed = result(s, 'pii_echo').detail.echoed
  assert.deepEqual(echoed, [{ spanId: r.spanId('chat gpt-4o-mini-2024-07-18', 1), kind: 'email', text: maskPii('jane.doe@example.com') }])
  assert.doesNotMatch(JSON.stringify(result(s, 'pii_echo').detail), /jane\.doe@example\.com/)
})
