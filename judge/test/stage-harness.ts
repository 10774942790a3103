import type { Storage } from '@sieve/core'
import type { ScoreRecord } from '@sieve/scoring'
import { JudgeStage } from '../src/stage.js'
import { BUILTIN_RUBRICS_DIR, JudgeClient, JudgeMetrics, loadJudgeConfig, loadRubricDir } from '@sieve/judging'
import type { FakeOpenAI, ModelRequest, Step } from '@sieve/testkit'

const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)

export interface StageHarnessOptions {
  now?: () => number
  /** Judge calls through a client on the test's thread instead of the stage's worker thread. */
  inThread?: boolean
  /** Storage for the stage: with a daily limit, its budgets are kept there (shared with other stages on it). */
  storage?: Storage
  budgetSync?: { flushMs?: number; refreshMs?: number }
}

/**
 * A judge stage against the local OpenAI-compatible server answering with `script`: the `judge`
 * config section is `section` over short backoffs, two retries and a price for the judge model;
 * scores go to `records`.
 */
export function judgeStage(
  server: FakeOpenAI,
  section: Record<string, unknown>,
  script: (r: ModelRequest) => Step | Promise<Step>,
  options: StageHarnessOptions = {},
) {
  server.requests.length = 0
  server.setScript(script)
  const config = loadJudgeConfig({
    judge: { baseUrl: server.baseURL, apiKey: 'k', model: 'judge-2025-01-01', allowModelAlias: false },
    sections: { judge: { backoff: { baseMs: 1, maxMs: 2 }, maxRetries: 2, prices: { 'judge-2025-01-01': { input: 1, output: 2 } }, ...section } },
  })!
  const metrics = new JudgeMetrics()
  const records: ScoreRecord[] = []
  const stage = new JudgeStage({
    config,
    ...(options.inThread ? { client: new JudgeClient(config, metrics) } : {}),
    rubrics,
    metrics,
    sink: { write: async (r) => void records.push(...r) },
    ...(options.now ? { now: options.now } : {}),
    ...(options.storage ? { storage: options.storage } : {}),
    ...(options.budgetSync ? { budgetSync: options.budgetSync } : {}),
  })
  return { stage, records, metrics }
}
