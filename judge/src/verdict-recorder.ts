import type { Storage, Trace } from '@sieve/core'
import { scoreCard, scorecardRecord, storedScoresSeen, traceFields, type Scorecard, type ScoreRecord, type ScoreSeen, type ScoreSink } from '@sieve/scoring'
import type { BudgetLedger } from './budget.js'
import type { JudgeRunner } from './judge-job.js'
import { JudgeThreadError } from './judge-thread.js'
import type { JudgeMetrics, Rubric } from '@sieve/judging'

/** The agent's scorecard and the check scores it read: the judge's verdict is added to them. */
export interface PendingScorecard {
  card: Scorecard
  checks: readonly ScoreSeen[]
}

/** A trace the stage took, with what it reserved for it. */
export interface Job {
  trace: Trace
  rubric: Rubric
  slice: string
  calls: number
  scorecard: PendingScorecard | undefined
}

export interface VerdictRecorderDeps {
  runner: JudgeRunner
  sink: ScoreSink
  metrics: JudgeMetrics
  ledger: Pick<BudgetLedger, 'addSpend' | 'release'>
  /** Where the check scores of a trace the scorer did not hand over are read (`scorecardFor`). */
  storage?: Storage | undefined
  scorecardFor?: ((trace: Trace) => Scorecard | undefined) | undefined
  log: (message: string) => void
}

/**
 * What happens to a job once the stage took it: judged (on the runner), spend reported to the
 * budget as it happens, the verdict rows stored with the trace's scorecard again, every outcome
 * counted. Nothing here decides whether a trace is judged; that is the stage's.
 */
export class VerdictRecorder {
  constructor(private readonly deps: VerdictRecorderDeps) {}

  async run(job: Job): Promise<void> {
    const { runner, ledger, metrics, log } = this.deps
    let judged: Awaited<ReturnType<typeof runner.judge>>
    try {
      judged = await runner.judge(job, (usd) => ledger.addSpend(job.slice, usd))
    } catch (err) {
      // No verdict is not a low verdict: nothing is stored for the trace; its calls stay spent.
      metrics.inc('skipped', { slice: job.slice, reason: err instanceof JudgeThreadError ? err.reason : 'judge_failed' })
      log(`judge: trace ${job.trace.traceId} was not judged: ${(err as Error).message}`)
      return
    }
    if (judged.skipped) {
      ledger.release(job.slice, job.calls)
      metrics.inc('skipped', { slice: job.slice, reason: judged.skipped })
      return
    }
    for (const code of judged.errors) metrics.inc('dimension_errors', { code })
    for (const dimension of judged.needsReview) metrics.inc('needs_review', { dimension })
    try {
      await this.deps.sink.write(await this.withScorecard(job, judged.records))
      metrics.inc('traces_judged')
    } catch (err) {
      metrics.inc('write_errors')
      log(`judge: storing scores of trace ${job.trace.traceId} failed: ${(err as Error).message}`)
    }
  }

  /**
   * The judge's rows, and the trace's scorecard verdict again with the judge's items in it (the
   * scorer wrote it on the checks alone; this row replaces that one). A scorecard that cannot be
   * read is no reason to lose the judge's scores: they are stored without it.
   */
  private async withScorecard(job: Job, records: ScoreRecord[]): Promise<ScoreRecord[]> {
    try {
      const pending = job.scorecard ?? (await this.storedScorecard(job.trace))
      if (!pending) return records
      const judged: ScoreSeen[] = records.map((r) => ({ name: r.scorerName, value: r.value, passed: r.passed, ...(r.error ? { error: r.error } : {}) }))
      const result = scoreCard(pending.card, [...pending.checks, ...judged])
      return result ? [...records, scorecardRecord(result, traceFields(job.trace))] : records
    } catch (err) {
      this.deps.metrics.inc('lookup_errors')
      this.deps.log(`judge: the scorecard of trace ${job.trace.traceId} was not updated: ${(err as Error).message}`)
      return records
    }
  }

  private async storedScorecard(trace: Trace): Promise<PendingScorecard | undefined> {
    const card = this.deps.scorecardFor?.(trace)
    if (!card || !this.deps.storage) return undefined
    return { card, checks: await storedScoresSeen(this.deps.storage, trace.projectId, trace.traceId, 'deterministic') }
  }
}
