import type { Trace } from '@sieve/core'
import type { JudgeClientOptions, JudgeCounter, Rubric } from '@sieve/judging'
import type { JudgedTrace, Judges } from './judge-job.js'

/** What the judge's worker thread starts with (its `workerData`): plain data, copied once. */
export interface JudgeWorkerInit {
  client: Omit<JudgeClientOptions, 'sleep' | 'random'>
  concurrency: number
  judges: Judges
  rubrics: Rubric[]
}

/** Scoring thread → worker: one trace to judge. The rubric travels by id (the worker has them all). */
export interface JobMessage {
  id: number
  trace: Trace
  rubricId: string
  slice: string
}

/** Worker → scoring thread. Counters and spend are sent as they happen, so a crash loses none. */
export type WorkerMessage =
  | { type: 'ready' }
  | { type: 'inc'; name: JudgeCounter; labels: Record<string, string>; by: number }
  | { type: 'spend'; id: number; usd: number }
  | { type: 'done'; id: number; result: JudgedTrace }
  | { type: 'failed'; id: number; message: string }
