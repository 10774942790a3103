import assert from 'node:assert/strict'
import { test } from 'node:test'
import { turnInput, userTurnCount } from '../src/eval/replay-turns.js'

const recorded = [
  { role: 'assistant' as const, content: 'Hi! How can I help?' },
  { role: 'user' as const, content: 'u1' },
  { role: 'assistant' as const, content: 'a1' },
  { role: 'assistant' as const, content: 'a1, continued' },
  { role: 'user' as const, content: 'u2' },
  { role: 'assistant' as const, content: 'a2' },
  { role: 'user' as const, content: 'u3' },
]

test('each user turn is replayed with the live answers in place of the recorded ones, the user turn last', () => {
  assert.equal(userTurnCount(recorded), 3)
  const live = ['live 1', 'live 2']
  assert.deepEqual(turnInput(recorded, live, 0), [recorded[0], recorded[1]])
  // Several recorded answers to one user turn are one live answer.
  assert.deepEqual(turnInput(recorded, live, 1), [recorded[0], recorded[1], { role: 'assistant', content: 'live 1' }, recorded[4]])
  assert.deepEqual(turnInput(recorded, live, 2), [
    recorded[0],
    recorded[1],
    { role: 'assistant', content: 'live 1' },
    recorded[4],
    { role: 'assistant', content: 'live 2' },
    recorded[6],
  ])
})
