import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ensureTopics, KafkaSetupError, type TopicSpec } from '../src/kafka-topics.js'

const spec: TopicSpec = { topic: 'sieve-spans', partitions: 3, replicationFactor: 3, minInsyncReplicas: 2 }

/** An admin whose create fails and whose listings show the topic from the `visibleFrom`-th on (never when undefined). */
function admin(visibleFrom: number | undefined) {
  let listings = 0
  return {
    get listings() {
      return listings
    },
    async listTopics() {
      listings++
      return visibleFrom !== undefined && listings >= visibleFrom ? [spec.topic] : []
    },
    async createTopics(): Promise<boolean> {
      throw new Error('This server does not host this topic-partition')
    },
  }
}

test('a create that failed while the topic was being made visible is not a missing topic', async () => {
  // A three-broker cluster: the create went through, the broker asked lists the topic a moment later.
  const cluster = admin(3)
  await ensureTopics(cluster, [spec], ['b1:9092'], true, { visibleWithinMs: 5_000 })
  assert.equal(cluster.listings, 3)
})

test('a topic still missing after the wait is a start-up error saying how to create it', async () => {
  await assert.rejects(
    ensureTopics(admin(undefined), [spec], ['b1:9092'], true, { visibleWithinMs: 300 }),
    (err: unknown) =>
      err instanceof KafkaSetupError &&
      /topic 'sieve-spans' missing \(could not create: This server does not host this topic-partition\)/.test(err.message) &&
      /--config min.insync.replicas=2/.test(err.message),
  )
})
