import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { RecordMetadata } from 'kafkajs'
import { DeadLetterSink } from '../src/dead-letter.js'
import type { Sender } from '../src/kafka-send.js'
import { keyPartitioner } from '../src/key-partitioner.js'

// A dead letter is sent before its source partition moves on: a send that resolved without having
// written one (kafkajs issue 1303, a leader moving during the send; see kafka-send.ts) would leave
// the record stored nowhere once the consumer commits past it.

/** A producer whose first send answers for no partition but `first`; later sends answer for all. */
function producer(first: number): Sender & { sent: { topic: string; acks: number; partitions: number[] }[] } {
  const sent: { topic: string; acks: number; partitions: number[] }[] = []
  return {
    sent,
    async send({ topic, acks, messages }) {
      const partitions = [...new Set(messages.map((m) => m.partition!))].sort((a, b) => a - b)
      sent.push({ topic, acks, partitions })
      const through = sent.length === 1 ? partitions.filter((p) => p === first) : partitions
      return through.map((partition): RecordMetadata => ({ topicName: topic, partition, errorCode: 0 }))
    },
  }
}

test('dead letters of a partition missing from the answer are sent again, to the partition of their key', async () => {
  const partitionOf = keyPartitioner('dead', 3)
  const keys = ['trace-a', 'trace-b', 'trace-c', 'trace-d', 'trace-e', 'trace-f']
  const partitions = [...new Set(keys.map(partitionOf))].sort((a, b) => a - b)
  assert.ok(partitions.length > 1, 'the keys spread over several partitions')
  const p = producer(partitions[0]!)
  await new DeadLetterSink(p, 'dead', partitionOf).send(keys.map((key) => ({ key, value: 'poison', headers: { 'sieve.error': 'bad' } })))
  assert.deepEqual(p.sent, [
    { topic: 'dead', acks: -1, partitions },
    { topic: 'dead', acks: -1, partitions: partitions.slice(1) },
  ])
})

test('dead letters without a key are given a partition too', async () => {
  const p = producer(0)
  await new DeadLetterSink(p, 'dead', keyPartitioner('dead', 1)).send([{ key: null, value: 'poison' }])
  assert.deepEqual(p.sent, [{ topic: 'dead', acks: -1, partitions: [0] }])
})
