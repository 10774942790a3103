import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseDataset } from '../src/index.js'

const valid = {
  version: 1,
  id: 'ex_0123456789abcdef',
  input: { messages: [{ role: 'user', content: 'Refund order A-1001 please, I am <PERSON_1>' }] },
  context: { systemPrompt: 'You are a support agent.', retrievedDocumentIds: [], toolResults: [] },
  expected: { checks: { prohibited_tools: { tools: ['process_refund'] } }, prohibited_tools: ['process_refund'] },
  observed: { output: 'Refunded.', toolCalls: [{ name: 'process_refund', arguments: { order_id: 'A-1001' } }] },
  bucket: 'known-failure',
  tags: ['failed:prohibited_tools'],
  source: {
    traceId: 'a'.repeat(32),
    projectId: 'default',
    service: 'support',
    agentName: 'support',
    agentVersion: '1.0.0',
    promptVersion: '',
    model: 'gpt-4o-mini',
    exportedAt: '2026-01-15T10:00:00.000Z',
  },
  scores: [{ name: 'prohibited_tools', kind: 'deterministic', value: 0, passed: false }],
  reviewBy: '2026-04-15',
}

test('accepts a well-formed dataset and blank lines', () => {
  const { examples, problems } = parseDataset(`${JSON.stringify(valid)}\n\n`)
  assert.deepEqual(problems, [])
  assert.equal(examples.length, 1)
})

test('reports the line and field of every problem', () => {
  const badBucket = { ...valid, id: 'ex_1111111111111111', bucket: 'flaky' }
  const noInput = { ...valid, id: 'ex_2222222222222222', input: { messages: [] } }
  const badTrace = { ...valid, id: 'ex_3333333333333333', source: { ...valid.source, traceId: 'XYZ' } }
  const text = [valid, badBucket, 'not json', noInput, badTrace, valid].map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n')
  const { problems } = parseDataset(text)
  const got = problems.map((p) => `${p.line} ${p.field}`)
  assert.deepEqual(got, ['2 bucket', '3 ', '4 input.messages', '5 source.traceId', '6 id'])
  assert.match(problems[1]!.message, /not valid JSON/)
  assert.match(problems[4]!.message, /duplicate of the example on line 1/)
})

test("a history of user and assistant turns is valid when the user's turn comes last", () => {
  const history = {
    ...valid,
    input: {
      messages: [
        { role: 'user', content: 'My order broke.' },
        { role: 'assistant', content: 'Refund or credit?' },
        { role: 'user', content: 'Refund.' },
      ],
    },
  }
  assert.deepEqual(parseDataset(JSON.stringify(history)).problems, [])
  const endsOnAnswer = { ...valid, input: { messages: history.input.messages.slice(0, 2) } }
  assert.deepEqual(
    parseDataset(JSON.stringify(endsOnAnswer)).problems.map((p) => [p.field, p.message]),
    [['input.messages', "the last message must be the user's turn the agent answers"]],
  )
  const tool = { ...valid, input: { messages: [{ role: 'tool', content: '{}' }, ...history.input.messages] } }
  assert.deepEqual(
    parseDataset(JSON.stringify(tool)).problems.map((p) => p.field),
    ['input.messages.0.role'],
  )
})

test('rejects fields the schema does not know, and a future schema version', () => {
  const { problems } = parseDataset(JSON.stringify({ ...valid, version: 2, extra: true }))
  assert.deepEqual(problems.map((p) => p.field).sort(), ['', 'version'])
})

test('why an example was selected, judge floors and check minimums validate; misplaced ones are named by field', () => {
  const recorded = {
    ...valid,
    expected: {
      ...valid.expected,
      minValues: { prohibited_tools: 0.9 },
      judge: { rubric: 'customer-support', floors: { 'customer-support': 0.9, 'customer-support.accuracy': 0.8 } },
    },
    selected: [
      { by: 'score_below', name: 'prohibited_tools', below: 0.9 },
      { by: 'feedback', feedback: { score: 0, comment: 'Wrong, <PERSON_1> asked for a refund' } },
      { by: 'failed_gate', name: 'any', card: 'support-agent', gates: ['prohibited_tools'] },
    ],
  }
  assert.deepEqual(parseDataset(JSON.stringify(recorded)).problems, [])
  const misplaced = {
    ...valid,
    expected: { ...valid.expected, minValues: { tool_loop: 0.5 }, judge: { rubric: 'customer-support', floors: { 'generic.accuracy': 0.8 } } },
    selected: [{ by: 'whim' }, { by: 'score_below', name: 'prohibited_tools', below: 2 }],
  }
  const problems = parseDataset(JSON.stringify(misplaced)).problems
  assert.deepEqual(problems.map((p) => p.field).sort(), [
    'expected.judge.floors.generic.accuracy',
    'expected.minValues.tool_loop',
    'selected.0.by',
    'selected.1.below',
  ])
  assert.equal(problems.find((p) => p.field === 'expected.minValues.tool_loop')?.message, 'tool_loop is not among expected.checks')
  assert.deepEqual(
    parseDataset(JSON.stringify({ ...valid, selected: [] })).problems.map((p) => p.field),
    ['selected'],
  )
})
