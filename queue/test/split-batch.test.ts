import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { QueuedSpan } from '@sieve/core'
import { makeTraces } from '@sieve/testkit'
import { withoutCutRecord } from '../src/kafka-subscription.js'

// A version 2 Kafka record holds a trace's spans; a batch halved to isolate a refused span can cut
// through one. The ingester commits the first half's highest offset + 1: past the cut record, the
// record's other half would be lost to a crash before it is stored.

const spans = makeTraces(6, 1)
const at = (partition: number, offset: number, i: number): QueuedSpan => ({ span: spans[i]!, partition, offset: String(offset), bytes: 1000 })

test("a first half cut through a record says the offset before it for that record's spans, so a commit stops short of the record", () => {
  const batch = [at(0, 7, 0), at(0, 8, 1), at(0, 8, 2), at(0, 8, 3)]
  const first = withoutCutRecord(batch.slice(0, 2), batch[2])
  assert.deepEqual(
    first.map((q) => q.offset),
    ['7', '7'],
  )
  assert.equal(first[0], batch[0], 'spans of whole records are handed on as they were')
  const commit = first.reduce((max, q) => (BigInt(q.offset) > max ? BigInt(q.offset) : max), -1n) + 1n
  assert.equal(commit, 8n, 'the cut record is handled again after a crash')
})

test('a cut between records, or between partitions, changes nothing', () => {
  const between = [at(0, 7, 0), at(0, 8, 1)]
  assert.deepEqual(
    withoutCutRecord(between.slice(0, 1), between[1]).map((q) => q.offset),
    ['7'],
  )
  const partitions = [at(0, 8, 0), at(1, 8, 1)]
  assert.deepEqual(
    withoutCutRecord(partitions.slice(0, 1), partitions[1]).map((q) => q.offset),
    ['8'],
  )
})
