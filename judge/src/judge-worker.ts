/**
 * The judge's worker thread: the openai client, HTTP, answer parsing and validation, transcripts
 * and score rows, all off the scoring thread. Started by `JudgeThread`; speaks `judge-worker-protocol.ts`.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { JudgeClient, type JudgeCounter } from '@sieve/judging'
import { boundedAsk, judgeTrace } from './judge-job.js'
import type { JobMessage, JudgeWorkerInit, WorkerMessage } from './judge-worker-protocol.js'

const port = parentPort!
const init = workerData as JudgeWorkerInit
const send = (message: WorkerMessage) => port.postMessage(message)
const counters = { inc: (name: JudgeCounter, labels: Record<string, string> = {}, by = 1) => send({ type: 'inc', name, labels, by }) }
const ask = boundedAsk(new JudgeClient(init.client, counters), init.concurrency)
const rubrics = new Map(init.rubrics.map((r) => [r.id, r]))

port.on('message', (job: JobMessage) => {
  const rubric = rubrics.get(job.rubricId)
  if (!rubric) return send({ type: 'failed', id: job.id, message: `rubric '${job.rubricId}' is not loaded in the judge's worker thread` })
  judgeTrace(ask, init.judges, { trace: job.trace, rubric, slice: job.slice }, (usd) => send({ type: 'spend', id: job.id, usd })).then(
    (result) => send({ type: 'done', id: job.id, result }),
    (err: Error) => send({ type: 'failed', id: job.id, message: err.message }),
  )
})
send({ type: 'ready' })
