import type { Trace } from '@sieve/core'
import type { GoldenExample } from '@sieve/dataset'
import { callAgentTurn, withReceivers } from './agent-turn.js'
import { GateConfigError } from './gate-config-error.js'
import type { ExampleResult, GateOptions } from './gate-report.js'
import type { ReplayJudge, RunJudgement } from './replay-judge.js'
import { replayScorecard } from './replay-scorecard.js'
import { replaySession, turnInput, userTurnCount } from './replay-turns.js'
import { runFigures, runResult, type RunResult } from './run-verdict.js'
import { scoreReplay } from './score-replay.js'
import type { SeenVersions } from './seen-versions.js'
import type { SpanReceiver } from './span-receiver.js'

/** What one run of the gate carries from one run of an example to the next. */
interface Replay {
  readonly o: GateOptions
  readonly receiver: SpanReceiver
  readonly seen: SeenVersions
  judgeReached: boolean
  judgeCost: number
}

/**
 * Replays the examples through the agent, in dataset order, scoring each run (the judge too when
 * given), what the runs' traces ran with counted in `seen`; in rounds: `rounds` calls `round(to)`
 * to bring every example to `to` runs, as many times as it decides (repeatRounds).
 */
export async function replayExamples(
  o: GateOptions,
  examples: readonly GoldenExample[],
  seen: SeenVersions,
  rounds: (round: (to: number) => Promise<void>, results: () => ExampleResult[], judgeCost: () => number) => Promise<void>,
): Promise<{ value: ExampleResult[]; warnings: string[] }> {
  const log = o.log ?? (() => {})
  return withReceivers(
    o,
    1,
    (m) => new GateConfigError(m),
    async ([receiver]) => {
      const replay: Replay = { o, receiver: receiver!, seen, judgeReached: false, judgeCost: 0 }
      const runs: RunResult[][] = examples.map(() => [])
      const results = () => examples.map((example, i): ExampleResult => ({ id: example.id, bucket: example.bucket, runs: runs[i]!, ...runFigures(runs[i]!) }))
      const round = async (to: number) => {
        for (const [index, example] of examples.entries()) {
          const mine = runs[index]!
          if (mine.length >= to) continue
          while (mine.length < to) mine.push(await replayRun(replay, example, mine.length, index === 0 && mine.length === 0))
          log(progressLine({ id: example.id, bucket: example.bucket, runs: mine, ...runFigures(mine) }))
        }
      }
      await rounds(round, results, () => replay.judgeCost)
      return results()
    },
  )
}

function progressLine(result: ExampleResult): string {
  const judged = result.judge?.mean !== undefined ? `  judge ${result.judge.mean} (pass rate ${result.judge.passRate})` : ''
  const crashed = result.errored ? `  errored ${result.errored} of ${result.runs.length}` : ''
  return `${result.id}  ${result.status.padEnd(8)} mean ${result.mean}  pass rate ${result.passRate}${judged}${crashed}`
}

/** One run of an example: its turns through the agent, scored, judged while the cost ceiling allows. */
async function replayRun(replay: Replay, example: GoldenExample, repeat: number, firstOfGate: boolean): Promise<RunResult> {
  const { o } = replay
  const { traces, error } = await agentTurns(replay, example, repeat, firstOfGate)
  const trace = replaySession(traces)
  const score = scoreReplay(trace, example.expected, o.checks)
  replay.seen.addTrace(trace, score.model)
  const overBudget = o.maxCostUsd !== undefined && replay.judgeCost >= o.maxCostUsd
  const judgeable = o.judge && trace && !error ? o.judge : undefined
  const judge = judgeable && !overBudget ? await judgeRun(replay, judgeable, traces, trace!, example) : undefined
  const card = trace && !error ? o.scorecardFor?.(trace) : undefined
  return runResult(score, judge, error, Boolean(judgeable && overBudget), card ? replayScorecard(card, score.checks, judge) : undefined)
}

/** One agent call per user turn; each sees the conversation so far with its own earlier answers. */
async function agentTurns(
  replay: Replay,
  example: GoldenExample,
  repeat: number,
  firstOfGate: boolean,
): Promise<{ traces: Trace[]; error: string | undefined }> {
  const { o, receiver } = replay
  const turns = userTurnCount(example.input.messages)
  const traces: Trace[] = []
  const answers: string[] = []
  let error: string | undefined
  for (let turn = 0; turn < turns && !error; turn++) {
    const messages = turnInput(example.input.messages, answers, turn)
    const call = await callAgentTurn(
      o,
      { exampleId: example.id, messages, turn: turn + 1, turns, sessionId: `${example.id}-${repeat + 1}`, ...(o.now ? { now: o.now } : {}) },
      receiver,
    )
    if (firstOfGate && turn === 0 && call.cannotStart) throw new GateConfigError(`cannot run the agent '${o.agent}': ${call.cannotStart}`)
    if (call.trace) traces.push(call.trace)
    answers.push(call.answer)
    if (call.error) error = turns > 1 ? `turn ${turn + 1} of ${turns}: ${call.error}` : call.error
  }
  return { traces, error }
}

/** The judge's verdict on a run, its cost and rubric counted. */
async function judgeRun(replay: Replay, judge: ReplayJudge, traces: readonly Trace[], trace: Trace, example: GoldenExample): Promise<RunJudgement> {
  const expected = example.expected.judge
  const verdict = await judge.judgeRun(traces, judge.rubricFor(trace, expected?.rubric), expected?.floors)
  replay.judgeCost += verdict.costUsd
  replay.seen.rubrics.add(`${verdict.rubric}@${verdict.rubricVersion}`)
  if (verdict.unreachable && !replay.judgeReached) {
    // Not one verdict yet and the endpoint is unreachable or refuses us: a setup problem, not a result.
    throw new GateConfigError(`the judge cannot be reached: ${verdict.error}; check JUDGE_BASE_URL, JUDGE_API_KEY and JUDGE_MODEL, or run with --no-judge`)
  }
  if (!verdict.unreachable) replay.judgeReached = true
  return verdict
}
