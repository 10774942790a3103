/**
 * The peer of `npm run bench:ingest -- --kafka --vs-otelcol`: a minimal OpenTelemetry Collector
 * (`otelcol/`: otelcol v0.165.0 with the OTLP receiver and the batch processor, the contrib Kafka
 * exporter v0.165.1) built from Go modules into .cache/otelcol, rebuilt only when main.go, go.mod or
 * go.sum change (`nice -n 19`, GOMAXPROCS=1: the first build takes minutes on this machine).
 *
 * Its settings, matched to Sieve's collector: OTLP/HTTP on a free loopback port; the batch
 * processor's defaults (8,192 spans or 200 ms) and the exporter's default in-memory sending queue, as
 * the collector is usually deployed; the same broker, a topic of its own with the same partitions;
 * acks from all in-sync replicas (`required_acks: -1`, franz-go then produces idempotently), Snappy,
 * `otlp_proto` records keyed by trace id (`partition_traces_by_id`: one record per trace, as Sieve
 * writes). Unlike Sieve it answers 200 before Kafka has the spans, so the bench times it until the
 * topic holds every record.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import kafkajs from 'kafkajs'
import { freePort } from '@sieve/testkit'

const root = fileURLToPath(new URL('../../', import.meta.url))
const source = join(root, 'collector/bench/otelcol')

/** The peer's binary, built if its sources changed since; undefined (and a line saying so) where Go is absent. */
export function otelcolBinary(): string | undefined {
  if (spawnSync('go', ['version']).error) {
    console.log('--vs-otelcol: skipped, `go` is not on PATH (the OpenTelemetry Collector peer is built from Go modules)')
    return undefined
  }
  const hash = createHash('sha256')
  for (const file of ['main.go', 'go.mod', 'go.sum']) hash.update(readFileSync(join(source, file)))
  const binary = join(root, '.cache/otelcol', `sieve-bench-otelcol-${hash.digest('hex').slice(0, 12)}`)
  if (existsSync(binary)) return binary
  mkdirSync(join(root, '.cache/otelcol'), { recursive: true })
  console.log(`building the OpenTelemetry Collector peer into ${binary} (nice, GOMAXPROCS=1; minutes the first time)...`)
  const started = performance.now()
  const build = spawnSync('nice', ['-n', '19', 'env', 'GOMAXPROCS=1', 'go', 'build', '-trimpath', '-buildvcs=false', '-o', `${binary}.part`, '.'], {
    cwd: source,
    stdio: 'inherit',
  })
  if (build.status !== 0) throw new Error(`go build of collector/bench/otelcol failed (${build.status ?? build.signal})`)
  renameSync(`${binary}.part`, binary)
  for (const old of readdirSync(join(root, '.cache/otelcol'))) if (!binary.endsWith(old)) rmSync(join(root, '.cache/otelcol', old), { force: true })
  console.log(`built in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  return binary
}

export interface OtelcolPeer {
  child: ChildProcess
  url: string
  stop(): Promise<void>
}

/** Starts the peer producing to `topic`; resolves once it says it is ready. */
export async function startOtelcol(binary: string, dir: string, brokers: string[], topic: string): Promise<OtelcolPeer> {
  const port = await freePort()
  const config = join(dir, 'otelcol.yaml')
  mkdirSync(dir, { recursive: true })
  writeFileSync(
    config,
    `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${port}
processors:
  batch: {}
exporters:
  kafka:
    brokers: [${brokers.map((b) => JSON.stringify(b)).join(', ')}]
    client_id: bench-otelcol
    traces:
      topic: ${topic}
      encoding: otlp_proto
    partition_traces_by_id: true
    producer:
      required_acks: -1
      compression: snappy
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [kafka]
`,
  )
  const child = spawn(binary, [`--config=file:${config}`], { stdio: ['ignore', 'ignore', 'pipe'] })
  let output = ''
  child.stderr!.on('data', (chunk) => (output += chunk))
  while (!output.includes('Everything is ready')) {
    if (child.exitCode !== null) throw new Error(`the otelcol peer exited ${child.exitCode}:\n${output}`)
    await Promise.race([once(child.stderr!, 'data'), once(child, 'exit')])
  }
  return {
    child,
    url: `http://127.0.0.1:${port}/v1/traces`,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await once(child, 'exit')
      }
    },
  }
}

/** The topic's admin: creates it with `partitions`, and counts the records in it (sum of end offsets; no transactions, so no control records). */
export async function topicCounter(brokers: string[], topic: string, partitions: number): Promise<{ records(): Promise<number>; close(): Promise<void> }> {
  const admin = new kafkajs.Kafka({ clientId: 'bench-otelcol-admin', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  return {
    records: async () => (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0),
    close: () => admin.disconnect(),
  }
}
