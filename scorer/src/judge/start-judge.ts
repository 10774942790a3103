import type { Config } from '@sieve/core'
import type { Registry } from 'prom-client'
import type { TraceScore } from '../score-trace.js'
import type { ScoreSink } from '../scores/score-sink.js'
import { loadJudgeConfig } from './config.js'
import { JudgeMetrics } from './metrics.js'
import { loadRubrics } from './rubric.js'
import { JudgeStage } from './stage.js'

export interface JudgeRuntime {
  stage: JudgeStage
  /** For the scorer's `onScored`: offers every scored trace to the judge; returns at once. */
  onScored(score: TraceScore): void
  /** Waits for judging in progress to finish (and its scores to be stored). */
  drain(): Promise<void>
  /** Skips what still waits for the judge, finishes what is in progress. */
  stop(): Promise<void>
}

/**
 * The judge stage as configured (JUDGE_* variables and the `judge` section), storing through the
 * scorer's score sink, its calls on a worker thread; undefined when no judge model is configured.
 */
export function createJudge(config: Config, sink: ScoreSink, registry?: Registry): JudgeRuntime | undefined {
  const judge = loadJudgeConfig(config)
  if (!judge) return undefined
  const metrics = new JudgeMetrics(registry)
  const stage = new JudgeStage({ config: judge, rubrics: loadRubrics(judge.rubricsDir), sink, metrics })
  // The worker thread loads now, not when the first sampled trace waits for it; a failure is reported by the stage.
  stage.ready().catch(() => {})
  return {
    stage,
    onScored(score) {
      // The deterministic path must never fail because of the judge.
      try {
        stage.offer({ trace: score.trace, checks: score.results.filter((r) => !r.error) })
      } catch (err) {
        metrics.inc('offer_errors')
        console.error(`judge: could not consider trace ${score.trace.traceId}: ${(err as Error).message}`)
      }
    },
    drain: () => stage.drain(),
    stop: () => stage.close(),
  }
}
