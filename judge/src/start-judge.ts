import type { Storage, Config } from '@sieve/core'
import type { Registry } from 'prom-client'
import { ConfigError, type Trace } from '@sieve/core'
import { checksSeen, type TraceScore, judgeItemProblems, type Scorecards, traceView, type ScoreSink } from '@sieve/scoring'
import { JudgeMetrics, loadJudgeConfig } from '@sieve/judging'
import { pollFeedback } from './feedback-poller.js'
import { loadReviewSetup, registerTrustGauges } from '@sieve/review'
import { ReviewFiller } from './review/review-filler.js'
import { JudgeStage } from './stage.js'

export interface JudgeRuntime {
  stage: JudgeStage
  /** For the scorer's `onScored`: offers every scored trace to the judge; returns at once (storage lookups run behind). */
  onScored(score: TraceScore): void
  /** Reads the `feedback` table now rather than at the next poll (with storage; tests and tools). */
  readFeedback(): Promise<void>
  /** Fills the review queues from stored verdicts and recalibrates as labels arrive (with storage). */
  review: ReviewFiller | undefined
  /** Waits for judging in progress to finish (and its scores to be stored, and the review queues filled). */
  drain(): Promise<void>
  /** Skips what still waits for the judge, finishes what is in progress. */
  stop(): Promise<void>
}

export interface JudgeStorageOptions {
  /** How often the `feedback` table is read (ms); default 2000. */
  feedbackPollMs?: number
  log?: (message: string) => void
  /** The agents' scorecards: each judged trace's verdict is written again with the judge's items. */
  scorecards?: Scorecards
}

/**
 * The judge's settings, rubrics, the `review` section and the scorecards' judge items read and
 * checked, as createJudge needs them (a ConfigError naming each problem); undefined when no judge
 * model is configured. `sieve up` and `sieve scorer` call it before they open storage, so a bad
 * section stops them first.
 */
export function checkJudgeConfig(config: Config, scorecards?: Scorecards) {
  const judge = loadJudgeConfig(config)
  const review = loadReviewSetup(config)
  if (!judge) return undefined
  const { rubrics } = review
  const problems = scorecards ? judgeItemProblems(scorecards, rubrics) : []
  if (problems.length) throw new ConfigError(problems)
  return { judge, rubrics, review }
}

/**
 * The judge stage as configured (JUDGE_* variables and the `judge` section), storing through the
 * scorer's score sink, its calls on a worker thread; undefined when no judge model is configured.
 * Given storage, it also reads the `feedback` table (negative-feedback slice, late feedback
 * re-opening scored traces, labels recalibrating), counts users' traces there (new-user slice),
 * fills the review queues from its verdicts and, given a registry too, exports the trust in effect.
 */
export function createJudge(
  config: Config,
  sink: ScoreSink,
  registry?: Registry,
  storage?: Storage,
  options: JudgeStorageOptions = {},
): JudgeRuntime | undefined {
  const { scorecards } = options
  const checked = checkJudgeConfig(config, scorecards)
  if (!checked) return undefined
  const { judge, rubrics } = checked
  const metrics = new JudgeMetrics(registry)
  const log = options.log ?? ((message: string) => console.error(message))
  const review = storage && new ReviewFiller({ storage, setup: checked.review, metrics, log })
  if (storage && registry) {
    registerTrustGauges(registry, storage, (err) => {
      metrics.inc('review_errors', { op: 'metrics' })
      log(`review: reading the trust in effect for /metrics failed: ${err.message}`)
    })
  }
  const scorecardFor =
    scorecards &&
    ((trace: Trace) => {
      const view = traceView(trace)
      return scorecards.cardFor(view.agentName, view.serviceName)
    })
  const stage = new JudgeStage({
    config: judge,
    rubrics,
    sink: review ? review.wrap(sink) : sink,
    metrics,
    log,
    ...(storage ? { storage } : {}),
    ...(scorecardFor ? { scorecardFor } : {}),
  })
  // The worker thread loads now, not when the first sampled trace waits for it; a failure is reported by the stage.
  stage.ready().catch(() => {})
  const feedback =
    storage &&
    pollFeedback(storage, (rows) => stage.feedbackArrived(rows), {
      ...(options.feedbackPollMs ? { intervalMs: options.feedbackPollMs } : {}),
      onError: (err) => log(`judge: reading feedback failed, will read it again: ${err.message}`),
      onAnnotations: (projects) => Promise.all(projects.map((p) => review!.labelsArrived(p.projectId, p.rubrics))).then(() => undefined),
    })
  const fail = (traceId: string) => (err: Error) => {
    metrics.inc('offer_errors')
    log(`judge: could not consider trace ${traceId}: ${err.message}`)
  }
  return {
    stage,
    onScored(score) {
      // The deterministic path must never fail because of the judge.
      try {
        const card = scorecards?.cardFor(score.agentName, score.serviceName)
        const scorecard = card && { card, checks: checksSeen(score.results) }
        stage
          .consider({ trace: score.trace, checks: score.results.filter((r) => !r.error), ...(scorecard ? { scorecard } : {}) })
          .catch(fail(score.trace.traceId))
      } catch (err) {
        fail(score.trace.traceId)(err as Error)
      }
    },
    readFeedback: async () => {
      await feedback?.poll()
    },
    review,
    async drain() {
      await stage.drain()
      await review?.drain()
    },
    async stop() {
      feedback?.stop()
      await stage.close()
      await review?.drain()
    },
  }
}
