import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import kafkajs from 'kafkajs'
import { openKafkaQueue, type KafkaSpanQueue } from '@sieve/queue'
import { createStorage, migrate } from '@sieve/core'
import { createPipelineMetrics } from '@sieve/metrics'
import { startIngester } from '@sieve/ingester'
import { resolveChecksConfig } from '@sieve/scoring'
import { Scorer } from '@sieve/scorer'
import { countRows, sharedBrokers, startFakeOpenAI, until, verdict, type FakeOpenAI, numberedTraceId, supportUserTrace } from '@sieve/testkit'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'
import { JudgeStage, type JudgeCandidate } from '../src/stage.js'
import { BUILTIN_RUBRICS_DIR, JudgeClient, JudgeMetrics, loadJudgeConfig, loadRubricDir } from '@sieve/judging'

let brokers: string[]
let release: () => Promise<void>
let storage: Storage
let server: FakeOpenAI
const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)

before(async () => {
  ;({ brokers, release } = await sharedBrokers())
  storage = await createStorage({ kind: 'embedded', path: join(mkdtempSync(join(tmpdir(), 'sieve-judge-slices-kafka-')), 'clickhouse'), database: 'sieve' })
  await migrate(storage, { retentionDays: 30 })
  server = await startFakeOpenAI({ script: (r) => verdict(r, 3) })
})
after(async () => {
  await server.close()
  await storage.close()
  await release?.()
})

const newUserStage = () => {
  const config = loadJudgeConfig({
    judge: { baseUrl: server.baseURL, apiKey: 'k', model: 'judge-2025-01-01', allowModelAlias: false },
    sections: { judge: { sampling: { rate: 0, slices: [{ name: 'new-users', match: { kind: 'new_user', firstTraces: 2 } }] } } },
  })!
  const metrics = new JudgeMetrics()
  return new JudgeStage({ config, client: new JudgeClient(config, metrics), metrics, rubrics, storage, sink: { write: async () => {} } })
}

test("two scorer instances of one consumer group over Kafka, each with its own judge, take exactly the users' first traces between them", async () => {
  const kafka = uniqueKafkaSettings(brokers, 4)
  const group = `scorer-${randomUUID().slice(0, 8)}`
  const queues: KafkaSpanQueue[] = []
  const open = async () => {
    const q = await openKafkaQueue({
      kafka,
      metrics: createPipelineMetrics(),
      publish: { failFastMs: 2000 },
      consume: { minBackoffMs: 100, maxBackoffMs: 1000 },
    })
    queues.push(q)
    return q
  }
  const ingestQueue = await open()
  const ingester = await startIngester({ queue: ingestQueue, storage, metrics: createPipelineMetrics(), commitAfterRollup: true })

  // Six users with four traces each, a trace a second in turn: their traces land on every partition.
  const users = ['ann', 'ben', 'cat', 'dan', 'eve', 'fay']
  const traces = users.flatMap((user, u) =>
    [0, 1, 2, 3].map((k) => supportUserTrace('kafka', numberedTraceId(0x4000 + u * 16 + k), user, BigInt(k * users.length + u))),
  )
  const expected = users.flatMap((_, u) => [numberedTraceId(0x4000 + u * 16), numberedTraceId(0x4000 + u * 16 + 1)]).sort()

  // What each instance scored is handed to its judge once the ingester has stored everything,
  // so the test does not depend on the ingester keeping ahead of the scorers.
  const instances = await Promise.all(
    [0, 1].map(async () => {
      const scored: JudgeCandidate[] = []
      const scorer = await Scorer.start({
        queue: await open(),
        sink: { write: async () => {} },
        checks: resolveChecksConfig(undefined),
        options: { group, quietPeriodMs: 500, tickMs: 50 },
        onScored: (score) => void scored.push({ trace: score.trace, checks: [] }),
      })
      return { scorer, scored, stage: newUserStage() }
    }),
  )
  const admin = new kafkajs.Kafka({ clientId: 'judge-slices-test', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  await until('both scorers in the group', async () => {
    const [described] = (await admin.describeGroups([group])).groups
    return described?.state === 'Stable' && described.members.length === 2
  })
  await admin.disconnect()

  await ingestQueue.publish(traces.flatMap((t) => t.spans))
  await until('every trace stored', async () => (await countRows(storage, `SELECT count() FROM traces FINAL WHERE project_id = 'kafka'`)) === traces.length)
  await until('every trace scored', () => new Set(instances.flatMap((i) => i.scored.map((c) => c.trace.traceId))).size === traces.length)
  for (const { scorer } of instances) await scorer.stop()
  await ingester.stop()
  for (const q of queues) await q.close()

  const taken = await Promise.all(
    instances.map(async ({ scored, stage }) => {
      const slices = await Promise.all(scored.map((c) => stage.consider(c)))
      await stage.close()
      return scored.filter((_, i) => slices[i] === 'new-users').map((c) => c.trace.traceId)
    }),
  )
  assert.ok(
    instances.every((i) => i.scored.length > 0),
    `both instances scored traces (${instances.map((i) => i.scored.length).join(' and ')})`,
  )
  assert.deepEqual([...new Set(taken.flat())].sort(), expected)
})
