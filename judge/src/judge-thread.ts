import { Worker } from 'node:worker_threads'
import { backoffDelay } from '@sieve/core'
import { bareTrace } from '@sieve/scoring'
import { judgesOf, type JudgedTrace, type JudgeJob, type JudgeRunner } from './judge-job.js'
import type { JobMessage, JudgeWorkerInit, WorkerMessage } from './judge-worker-protocol.js'
import type { JudgeConfig, JudgeMetrics, Rubric } from '@sieve/judging'

const FROM_SOURCES = import.meta.url.endsWith('.ts')

/**
 * The worker thread, its entry beside this module: `judge-worker.js` from dist; from sources
 * `judge-worker.ts`, loaded through tsx, which the worker registers itself because Node 20 does not
 * apply the loader hooks of an inherited `--import tsx` to a worker's entry module. The rest of
 * `process.execArgv` (`--conditions=sieve-source`) is inherited as usual.
 */
function startWorker(workerData: JudgeWorkerInit): Worker {
  const options = { workerData, name: 'sieve-judge' }
  if (!FROM_SOURCES) return new Worker(new URL('./judge-worker.js', import.meta.url), options)
  const tsx = JSON.stringify(import.meta.resolve('tsx/esm/api'))
  const entry = JSON.stringify(new URL('./judge-worker.ts', import.meta.url).href)
  return new Worker(`import(${tsx}).then((tsx) => { tsx.register(); return import(${entry}) })`, { ...options, eval: true })
}

/** Why a trace was not judged although the judge was reached or never tried: the skip reason counted. */
export class JudgeThreadError extends Error {
  constructor(
    readonly reason: 'worker_crash' | 'judge_failed',
    message: string,
  ) {
    super(message)
  }
}

interface InProgress {
  resolve: (result: JudgedTrace) => void
  reject: (err: JudgeThreadError) => void
  onSpend: (usd: number) => void
}

/**
 * Runs the judge calls of sampled traces on a worker thread, so the scoring thread only decides
 * and posts a trace: the openai client, HTTP, JSON and zod, transcripts and score rows cost it
 * nothing. The thread starts with the first trace and keeps the process alive only while a trace is
 * in progress. When it dies, the traces in progress are rejected (skipped and counted by the stage,
 * never stored as scores) and the next trace starts a new thread.
 */
export class JudgeThread implements JudgeRunner {
  private worker: Worker | undefined
  private started: Promise<void> | undefined
  private readonly inProgress = new Map<number, InProgress>()
  private nextId = 0
  private closed = false
  /** Threads in a row that died before they were ready, and when the next may start. */
  private failedStarts = 0
  private retryAt = 0

  constructor(
    private readonly init: JudgeWorkerInit,
    private readonly metrics: Pick<JudgeMetrics, 'inc'>,
  ) {}

  /** A thread judging as `config` says with `rubrics`; its counters go to `metrics`. */
  static forConfig(config: JudgeConfig, rubrics: ReadonlyMap<string, Rubric>, metrics: Pick<JudgeMetrics, 'inc'>): JudgeThread {
    const { baseUrl, apiKey, timeoutMs, maxRetries, backoff, prices, concurrency } = config
    return new JudgeThread(
      { client: { baseUrl, apiKey, timeoutMs, maxRetries, backoff, prices }, concurrency, judges: judgesOf(config), rubrics: [...rubrics.values()] },
      metrics,
    )
  }

  judge(job: JudgeJob, onSpend: (usd: number) => void): Promise<JudgedTrace> {
    if (this.closed) return Promise.reject(new JudgeThreadError('judge_failed', 'the judge thread is closed'))
    // A thread that cannot even start is not restarted for every trace: traces are skipped (counted) until it may try again.
    if (!this.worker && Date.now() < this.retryAt) {
      return Promise.reject(
        new JudgeThreadError(
          'worker_crash',
          `the judge's worker thread failed to start ${this.failedStarts} time(s) in a row; next try at ${new Date(this.retryAt).toISOString()}`,
        ),
      )
    }
    const worker = this.worker ?? this.start()
    const id = this.nextId++
    const message: JobMessage = { id, trace: bareTrace(job.trace), rubricId: job.rubric.id, slice: job.slice }
    return new Promise((resolve, reject) => {
      this.inProgress.set(id, { resolve, reject, onSpend })
      if (this.inProgress.size === 1) worker.ref()
      worker.postMessage(message)
    })
  }

  ready(): Promise<void> {
    if (!this.worker) this.start()
    return this.started!
  }

  /** The worker thread in use, if one is running (for tests and diagnostics). */
  get thread(): Worker | undefined {
    return this.worker
  }

  async close(): Promise<void> {
    this.closed = true
    const worker = this.worker
    this.worker = undefined
    if (worker) await worker.terminate()
  }

  private start(): Worker {
    const worker = startWorker(this.init)
    let failure: Error | undefined
    let ready = false
    this.started = new Promise((resolve, reject) => {
      worker.once('message', () => resolve()) // the first message is 'ready'
      worker.once('exit', () => reject(new JudgeThreadError('worker_crash', `the judge's worker thread did not start: ${failure?.message ?? 'it exited'}`)))
    })
    this.started.then(() => (ready = true)).catch(() => {}) // a failure is reported by `exited`; a caller of `ready` hears it too
    worker.on('message', (m: WorkerMessage) => this.receive(worker, m))
    worker.on('error', (err) => (failure = err))
    worker.on('exit', (code) => this.exited(worker, code, failure, ready))
    worker.unref()
    this.worker = worker
    return worker
  }

  private receive(worker: Worker, m: WorkerMessage): void {
    if (m.type === 'ready') return
    if (m.type === 'inc') {
      this.metrics.inc(m.name, m.labels, m.by)
      return
    }
    const job = this.inProgress.get(m.id)
    if (!job) return
    if (m.type === 'spend') {
      job.onSpend(m.usd)
      return
    }
    this.inProgress.delete(m.id)
    if (this.inProgress.size === 0) worker.unref()
    if (m.type === 'done') job.resolve(m.result)
    else job.reject(new JudgeThreadError('judge_failed', m.message))
  }

  private exited(worker: Worker, code: number, failure: Error | undefined, wasReady: boolean): void {
    if (this.worker === worker) this.worker = undefined
    if (this.closed && this.inProgress.size === 0) return
    this.metrics.inc('worker_crashes')
    // Up to a minute between attempts while the thread keeps failing to start (a broken install, say).
    this.failedStarts = wasReady ? 0 : this.failedStarts + 1
    this.retryAt = wasReady ? 0 : Date.now() + backoffDelay(this.failedStarts - 1, { baseMs: 1000, maxMs: 60_000 })
    const why = failure ? failure.message : `exit code ${code}`
    const next = wasReady
      ? 'the next trace starts a new thread'
      : `traces are skipped until ${new Date(this.retryAt).toISOString()}, then a new thread is tried`
    console.error(`judge: the judge's worker thread stopped (${why}); ${this.inProgress.size} trace(s) in progress are skipped, ${next}`)
    for (const job of this.inProgress.values()) job.reject(new JudgeThreadError('worker_crash', `the judge's worker thread stopped (${why})`))
    this.inProgress.clear()
  }
}
