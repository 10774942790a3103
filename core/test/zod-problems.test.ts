import assert from 'node:assert/strict'
import { test } from 'node:test'
import { z } from 'zod'
import { zodProblems } from '../src/index.js'

const query = z.strictObject({ limit: z.coerce.number().int().min(1), since: z.string().optional() }).refine((q) => q.since !== 'later', 'since must be a time')

const problemsOf = (input: unknown, options?: Parameters<typeof zodProblems>[1]) => {
  const parsed = query.safeParse(input)
  assert.ok(!parsed.success)
  return zodProblems(parsed.error, options)
}

test('each issue is one `path: message` line, under `at` when given', () => {
  assert.deepEqual(problemsOf({ limit: 0 }), ['limit: Too small: expected number to be >=1'])
  assert.deepEqual(problemsOf({ limit: 0 }, { at: 'query' }), ['query.limit: Too small: expected number to be >=1'])
})

test('an issue about the value itself names the root, or says the message alone for an empty root', () => {
  assert.deepEqual(problemsOf({ limit: 1, since: 'later' }), ['(root): since must be a time'])
  assert.deepEqual(problemsOf({ limit: 1, since: 'later' }, { root: 'query' }), ['query: since must be a time'])
  assert.deepEqual(problemsOf({ limit: 1, since: 'later' }, { root: '' }), ['since must be a time'])
})

test('with `unknown`, keys the schema does not know are named the way an HTTP API names what it was sent', () => {
  assert.deepEqual(problemsOf({ limit: 1, colour: 'red', size: 2 }), ['(root): Unrecognized keys: "colour", "size"'])
  assert.deepEqual(problemsOf({ limit: 1, colour: 'red', size: 2 }, { unknown: 'parameter' }), ["unknown parameter 'colour', 'size'"])
})
