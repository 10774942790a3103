import type { Trace } from '@sieve/core'
import {
  type AskJudge,
  buildTranscript,
  type JudgeClient,
  type JudgeConfig,
  judgeDimension,
  type JudgeRef,
  judgesFor,
  type Rubric,
  Semaphore,
  toScoreRecords,
} from '@sieve/judging'
import type { ScoreRecord } from '@sieve/scoring'

/** One sampled trace to judge against a rubric, and the slice it was sampled for. */
export interface JudgeJob {
  trace: Trace
  rubric: Rubric
  slice: string
}

/** What judging a trace produced: its score rows, and what the stage counts about it. */
export interface JudgedTrace {
  records: ScoreRecord[]
  /** Error code of every dimension that got no verdict. */
  errors: string[]
  /** `<rubric>.<dimension>` of every dimension whose panel disagreed. */
  needsReview: string[]
  /** Why the trace was not judged at all: it holds no conversation to judge. */
  skipped?: 'no_content'
}

/** Who judges: the configured judge, and the panel risky dimensions go to. */
export interface Judges {
  judge: JudgeRef
  panel: JudgeRef[] | undefined
  /** Count verdicts on incomplete conversations in means (`judge.includeTruncated`). */
  includeTruncated?: boolean
}

export function judgesOf(config: Pick<JudgeConfig, 'model' | 'seed' | 'panel'> & { includeTruncated?: boolean }): Judges {
  return {
    judge: { model: config.model, seed: config.seed },
    panel: config.panel?.judges.map((j) => ({ model: j.model ?? config.model, seed: j.seed ?? config.seed })),
    includeTruncated: config.includeTruncated ?? false,
  }
}

/** Where the judge calls of a trace run: this thread, or the judge's worker thread. */
export interface JudgeRunner {
  /**
   * Judges a trace whole. `onSpend` hears the cost of every answer as it arrives, so the spend
   * budget is exact even for a trace that never finishes. Rejects only when judging itself broke
   * (the worker thread died); an unreachable or confused judge comes back as error rows.
   */
  judge(job: JudgeJob, onSpend: (usd: number) => void): Promise<JudgedTrace>
  /** Resolves once judge calls can start at once (the worker thread has loaded). */
  ready(): Promise<void>
  /** Called once nothing is in progress any more. */
  close(): Promise<void>
}

/** The client's calls, at most `concurrency` at once over every trace in progress. */
export function boundedAsk(client: JudgeClient, concurrency: number): AskJudge {
  const slots = new Semaphore(concurrency)
  return (judge, rubric, dimension, transcript) => slots.run(() => client.judgeDimension(judge, rubric, dimension, transcript))
}

/** Transcript, one call per dimension and judge, score rows: everything judging a trace takes. */
export async function judgeTrace(ask: AskJudge, judges: Judges, job: JudgeJob, onSpend: (usd: number) => void): Promise<JudgedTrace> {
  const { trace, rubric, slice } = job
  const transcript = buildTranscript(trace)
  // Tool spans alone, or content capture off: a verdict on nothing would be stored as a pass.
  if (transcript.contentMissing) return { records: [], errors: [], needsReview: [], skipped: 'no_content' }
  const spending: AskJudge = async (j, r, d, t) => {
    const outcome = await ask(j, r, d, t)
    onSpend(outcome.costUsd)
    return outcome
  }
  const results = await Promise.all(rubric.dimensions.map((d) => judgeDimension(spending, judgesFor(d, judges.judge, judges.panel), rubric, d, transcript)))
  return {
    records: toScoreRecords(
      { trace, rubric, sampleReason: slice, truncation: transcript.truncation, includeTruncated: judges.includeTruncated ?? false },
      results,
    ),
    errors: results.flatMap((r) => (r.error ? [r.error.code] : [])),
    needsReview: results.flatMap((r) => (r.needsReview ? [`${rubric.id}.${r.dimension.id}`] : [])),
  }
}

/** Judge calls on this thread, through a client the caller made (tools, tests with a scripted clock). */
export function inThreadRunner(client: JudgeClient, judges: Judges, concurrency: number): JudgeRunner {
  const ask = boundedAsk(client, concurrency)
  return { judge: (job, onSpend) => judgeTrace(ask, judges, job, onSpend), ready: async () => {}, close: async () => {} }
}
