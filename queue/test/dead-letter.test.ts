import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { RecordMetadata } from 'kafkajs'
import { DeadLetterSink, type DeadLetterProducer } from '../src/dead-letter.js'
import { keyPartitioner } from '../src/key-partitioner.js'

// A dead letter is sent before its source partition moves on: a send that resolved without having
// written one (kafkajs issue 1303, a leader moving during the send; see kafka-send.ts) would leave
// the record stored nowhere once the consumer commits past it.

/**
 * A producer whose first send answers for no partition but `first`; later sends answer for all.
 * Its first `failedConnects` connects fail, as while a killed broker is still named the controller.
 */
function producer(first: number, failedConnects = 0): DeadLetterProducer & { sent: { topic: string; acks: number; partitions: number[] }[]; connects: number } {
  const sent: { topic: string; acks: number; partitions: number[] }[] = []
  return {
    sent,
    connects: 0,
    async connect() {
      if (++this.connects <= failedConnects) throw new Error('Connection error: connect ECONNREFUSED')
    },
    async disconnect() {},
    async send({ topic, acks, messages }) {
      if (this.connects <= failedConnects) throw new Error('The producer is disconnected')
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

test('the producer connects on the first dead letter, and again after a failed connect', async () => {
  const p = producer(0, 1)
  const sink = new DeadLetterSink(p, 'dead', keyPartitioner('dead', 1))
  assert.equal(p.connects, 0, 'not connected before a dead letter')
  await assert.rejects(sink.send([{ key: 'a', value: 'poison' }]), /ECONNREFUSED/)
  await sink.send([{ key: 'a', value: 'poison' }])
  await sink.send([{ key: 'b', value: 'poison' }])
  assert.equal(p.connects, 2)
  assert.deepEqual(p.sent, [
    { topic: 'dead', acks: -1, partitions: [0] },
    { topic: 'dead', acks: -1, partitions: [0] },
  ])
})
