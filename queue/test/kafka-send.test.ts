import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { RecordMetadata } from 'kafkajs'
import { sendToEveryPartition, type PartitionedMessage, type Sender } from '../src/kafka-send.js'

// kafkajs 2.2.4 can resolve a send() without having written some of its partitions: when a leader
// moves during the send, the moved partition's messages are left out of the retries (kafkajs issue
// 1303; cluster-faults.test.ts loses acknowledged spans in a rolling restart without this).

const messages: PartitionedMessage[] = [0, 1, 2, 3, 4, 5].map((partition) => ({ key: `k${partition}`, value: `v${partition}`, partition }))

/** A producer whose sends answer only for the partitions `answers` lets through, one list per send. */
function producer(...answers: number[][]): Sender & { sent: number[][] } {
  const sent: number[][] = []
  return {
    sent,
    async send({ topic, messages: batch }) {
      const partitions = [...new Set(batch.map((m) => m.partition!))]
      sent.push(batch.map((m) => m.partition!))
      const through = answers[sent.length - 1] ?? partitions
      return partitions.filter((p) => through.includes(p)).map((partition): RecordMetadata => ({ topicName: topic, partition, errorCode: 0 }))
    },
  }
}

test('messages of partitions missing from the answer are sent again, the others not', async () => {
  const p = producer([0, 1, 3, 4, 5])
  await sendToEveryPartition(p, { topic: 't', acks: -1, messages })
  assert.deepEqual(p.sent, [[0, 1, 2, 3, 4, 5], [2]])
})

test('a partition never acknowledged fails the send, naming it', async () => {
  const p = producer([0, 1, 2, 3], [], [], [])
  await assert.rejects(sendToEveryPartition(p, { topic: 't', acks: -1, messages }), /partitions 4, 5 of t after 4 sends/)
  assert.equal(p.sent.length, 4)
})
