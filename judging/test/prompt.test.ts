import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BUILTIN_RUBRICS_DIR, buildTranscript, loadRubricDir } from '@sieve/judging'
import { buildJudgePrompt } from '../src/prompt.js'
import { matchSnapshot } from './snapshot.js'
import { supportConversation, supportSpan, numberedTraceId } from '@sieve/testkit'

const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)

test('the transcript is the conversation: each message once, in order, with the span it came from', () => {
  const t = buildTranscript(supportConversation(numberedTraceId(1)))
  assert.deepEqual(
    t.turns.map((x) => [x.index, x.spanId, x.role]),
    [
      [1, 'a000000000000002', 'system'],
      [2, 'a000000000000002', 'user'],
      [3, 'a000000000000002', 'tool_call'],
      [4, 'a000000000000003', 'tool_result'],
      [5, 'a000000000000004', 'assistant'],
    ],
  )
  assert.equal(t.turns[2]!.text, 'check_order_status({"order_id":"A1"})')
  // The tool span has the result; the next model call's input repeats it: shown once.
  assert.equal(t.turns[3]!.text, '{"status":"shipped","eta":"tomorrow"}')
  assert.equal(t.userTurns, 1)
  assert.equal(t.tokens, 370)
})

test('a turn of a session that resends its history shows that history as such, and what the turn did after it', () => {
  const id = numberedTraceId(3)
  const sent = [
    { role: 'user', parts: [{ type: 'text', content: 'Refund A1.' }] },
    { role: 'assistant', parts: [{ type: 'tool_call', id: 'r1', name: 'process_refund', arguments: { order_id: 'A1' } }] },
    { role: 'tool', parts: [{ type: 'tool_call_response', id: 'r1', response: 'refunded' }] },
    { role: 'assistant', parts: [{ type: 'text', content: 'Refunded.' }] },
    { role: 'user', parts: [{ type: 'text', content: 'When will I see it?' }] },
  ]
  const answer = [{ role: 'assistant', parts: [{ type: 'text', content: 'Within five days.' }] }]
  const call = supportSpan(id, 'b000000000000001', {
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': JSON.stringify(sent), 'gen_ai.output.messages': JSON.stringify(answer) },
  })
  const t = buildTranscript({ projectId: 'p', traceId: id, spans: [call], complete: true })
  assert.deepEqual(
    t.turns.map((x) => [x.role, !!x.history]),
    [
      ['user', true],
      ['tool_call', true],
      ['tool_result', true],
      ['assistant', true],
      ['user', false],
      ['assistant', false],
    ],
  )
  const prompt = buildJudgePrompt(rubrics.get('generic')!, rubrics.get('generic')!.dimensions[0]!, t).user
  assert.match(prompt, /\[turn 2 \| span b000000000000001 \| assistant calls tool \| history\]\nprocess_refund/)
  assert.match(prompt, /\[turn 6 \| span b000000000000001 \| assistant\]\nWithin five days\./)
})

test('a failed tool call shows its error in the transcript', () => {
  const t = buildTranscript(supportConversation(numberedTraceId(2), { toolError: true }))
  assert.match(t.turns.find((x) => x.spanId === 'a000000000000003')!.text, /\[error: order service timeout\]$/)
})

for (const [rubricId, dimensionId] of [
  ['customer-support', 'policy_adherence'],
  ['customer-support', 'accuracy'],
  ['generic', 'groundedness'],
] as const) {
  test(`the ${rubricId} ${dimensionId} prompt matches its snapshot`, () => {
    const rubric = rubrics.get(rubricId)!
    const dimension = rubric.dimensions.find((d) => d.id === dimensionId)!
    const prompt = buildJudgePrompt(rubric, dimension, buildTranscript(supportConversation(numberedTraceId(1))))
    matchSnapshot(`prompt.${rubricId}.${dimensionId}`, `--- system ---\n${prompt.system}\n--- user ---\n${prompt.user}\n`)
  })
}

test('the prompt asks for evidence and reasoning before the score', () => {
  const rubric = rubrics.get('generic')!
  const { system } = buildJudgePrompt(rubric, rubric.dimensions[0]!, buildTranscript(supportConversation(numberedTraceId(1))))
  assert.ok(system.indexOf('"evidence"') < system.indexOf('"reasoning"'))
  assert.ok(system.indexOf('"reasoning"') < system.indexOf('"score"'))
})
