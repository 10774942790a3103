import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'

const run = promisify(execFile)
const script = fileURLToPath(new URL('../../deploy/local/kafka.sh', import.meta.url))

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

/** A broker of the test's own (deploy/local/kafka.sh on free ports), for tests that stop it. */
export interface PrivateBroker {
  brokers: string[]
  start(): Promise<void>
  stop(): Promise<void>
  destroy(): Promise<void>
}

export async function startPrivateBroker(): Promise<PrivateBroker> {
  const port = await freePort()
  let controller = await freePort()
  while (controller === port) controller = await freePort()
  const state = await mkdtemp(join(tmpdir(), 'sieve-kafka-test-'))
  const env = { ...process.env, KAFKA_PORT: String(port), KAFKA_CONTROLLER_PORT: String(controller), KAFKA_STATE_DIR: state }
  const call = async (cmd: string) => {
    await run(script, [cmd], { env, timeout: 180_000 })
  }
  await call('up')
  return {
    brokers: [`127.0.0.1:${port}`],
    start: () => call('up'),
    stop: () => call('down'),
    destroy: async () => {
      await call('down').catch(() => {})
      await rm(state, { recursive: true, force: true })
    },
  }
}

/**
 * The broker `npm test` started (KAFKA_BROKERS), or, when a test file runs on its own, a
 * private one that `release()` stops.
 */
export async function sharedBrokers(): Promise<{ brokers: string[]; release(): Promise<void> }> {
  const fromEnv = process.env.KAFKA_BROKERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  if (fromEnv?.length) return { brokers: fromEnv, release: async () => {} }
  const broker = await startPrivateBroker()
  return { brokers: broker.brokers, release: () => broker.destroy() }
}

/**
 * Three brokers of the test's own (`kafka.sh cluster` on free ports: each also a KRaft controller,
 * topics replicated 3 times with min.insync.replicas=2), for tests that stop, kill and restart them.
 * Brokers are numbered 1 to 3, as their KRaft node ids.
 */
export interface PrivateCluster {
  brokers: string[]
  /** SIGTERM: the broker hands its partition leaderships over, then exits. */
  stop(broker: number): Promise<void>
  /** SIGKILL, returning once the process is gone. */
  kill(broker: number): Promise<void>
  /** Starts a stopped or killed broker and waits until it says it is up. */
  start(broker: number): Promise<void>
  destroy(): Promise<void>
}

export async function startPrivateCluster(): Promise<PrivateCluster> {
  const ports = new Set<number>()
  while (ports.size < 6) ports.add(await freePort())
  const [p1, p2, p3, c1, c2, c3] = [...ports]
  const state = await mkdtemp(join(tmpdir(), 'sieve-kafka-cluster-'))
  const env = { ...process.env, KAFKA_CLUSTER_PORTS: `${p1},${p2},${p3}`, KAFKA_CLUSTER_CONTROLLER_PORTS: `${c1},${c2},${c3}`, KAFKA_STATE_DIR: state }
  const call = async (...args: string[]) => {
    await run(script, ['cluster', ...args], { env, timeout: 180_000 })
  }
  await call('up')
  return {
    brokers: [p1, p2, p3].map((p) => `127.0.0.1:${p}`),
    stop: (n) => call('stop', String(n)),
    kill: (n) => call('kill', String(n)),
    start: (n) => call('start', String(n)),
    destroy: async () => {
      await call('down').catch(() => {})
      await rm(state, { recursive: true, force: true })
    },
  }
}
