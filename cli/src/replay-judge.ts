import type { Config } from '@sieve/core'
import type { ReplayJudge } from '@sieve/replay'
import type { Scorecards } from '@sieve/scoring'
import { fractionOption, UsageError } from './command.js'

/*
 * The scorer's judge as `sieve eval` and `sieve simulate` run it on their runs: configured the
 * same way (JUDGE_* and the `judge` section), loaded inside a command's `run` only.
 */

/** `--judge-floor accuracy=0.75` (repeatable) → { accuracy: 0.75 }. */
export function judgeFloors(raw: unknown): Record<string, number> {
  const floors: Record<string, number> = {}
  for (const item of (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).map(String)) {
    const m = /^([a-z][a-z0-9-]*\.)?([a-z][a-z0-9_]*)=(.+)$/.exec(item)
    if (!m) throw new UsageError(`--judge-floor must be dimension=x or rubric.dimension=x (got '${item}')`)
    floors[`${m[1] ?? ''}${m[2]}`] = fractionOption('judge-floor', m[3])!
  }
  return floors
}

/** The scorer's judge as configured (JUDGE_* and the `judge` section); undefined when none is configured and none was asked for. */
export async function replayJudge(config: Config, asked: boolean, floors: Record<string, number>, scorecards: Scorecards): Promise<ReplayJudge | undefined> {
  const [{ ConfigError }, { ReplayJudge }, { judgeItemProblems }, { loadJudgeConfig, loadRubrics }] = await Promise.all([
    import('@sieve/core'),
    import('@sieve/replay'),
    import('@sieve/scoring'),
    import('@sieve/judging'),
  ])
  const judge = loadJudgeConfig(config)
  if (!judge) {
    if (asked) throw new UsageError('--judge needs a configured judge: set JUDGE_MODEL (a pinned version) and JUDGE_BASE_URL')
    if (Object.keys(floors).length) throw new UsageError('--judge-floor needs a configured judge: set JUDGE_MODEL and JUDGE_BASE_URL')
    return undefined
  }
  const rubrics = loadRubrics(judge.rubricsDir)
  // A scorecard item naming a rubric or dimension nobody judges would never score: a setup error.
  const problems = judgeItemProblems(scorecards, rubrics)
  if (problems.length) throw new ConfigError(problems)
  return new ReplayJudge({ config: judge, rubrics, floors })
}
