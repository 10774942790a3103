import type { Trace } from '@sieve/core'
import { priceOf } from '@sieve/scoring'
import {
  buildTranscript,
  JudgeClient,
  judgeDimension,
  JudgeMetrics,
  judgesFor,
  rubricFor,
  Semaphore,
  toScoreRecords,
  type AskJudge,
  type JudgeConfig,
  type JudgeRef,
  type Rubric,
} from '@sieve/judging'

/** One dimension of one judged run, on the 0..1 scale every score uses. */
export interface DimensionJudgement {
  value?: number
  level?: number
  passed?: boolean
  /** `CODE: message` when no verdict could be had. */
  error?: string
}

/** The judge's verdict on one run: the rubric's weighted score, or why there is none. */
export interface RunJudgement {
  rubric: string
  rubricVersion: string
  passingThreshold: number
  /** Weighted over the dimensions; absent when any dimension has no verdict. */
  score?: number
  /** Score at or above the rubric's passing threshold and every floor met; absent on a judge error. */
  passed?: boolean
  dimensions: Record<string, DimensionJudgement>
  /** Dimensions below their floor: --judge-floor's or the example's, the stricter. */
  belowFloor: string[]
  /** The example's floor on the weighted score (`expected.judge.floors[rubric]`), when it has one; below it the run fails. */
  scoreFloor?: number
  /** The first judge error of the run; an error is never a low score. */
  error?: string
  /** Every call failed because the endpoint could not be reached or refused the requests. */
  unreachable: boolean
  calls: number
  inputTokens: number
  outputTokens: number
  costUsd: number
}

export interface ReplayJudgeOptions {
  config: JudgeConfig
  rubrics: ReadonlyMap<string, Rubric>
  /** Minimum normalised value per dimension, keyed `dimension` or `rubric.dimension`. */
  floors?: Readonly<Record<string, number>>
}

export class ReplayJudgeError extends Error {
  readonly code = 'EVAL_CONFIG'
}

const UNREACHABLE = new Set(['PROVIDER_UNAVAILABLE', 'REQUEST_REJECTED'])

/**
 * The scorer's judge for replays: the same client, prompt, panel and weighted score as online, but
 * every dimension of every run and no sampling or budgets, since the gate runs offline on a
 * dataset chosen to be judged.
 */
export class ReplayJudge {
  readonly metrics = new JudgeMetrics()
  private readonly client: JudgeClient
  private readonly slots: Semaphore
  private readonly judge: JudgeRef
  private readonly panel: JudgeRef[] | undefined

  constructor(private readonly o: ReplayJudgeOptions) {
    const { config } = o
    this.client = new JudgeClient(config, this.metrics)
    this.slots = new Semaphore(config.concurrency)
    this.judge = { model: config.model, seed: config.seed }
    this.panel = config.panel?.judges.map((j) => ({ model: j.model ?? config.model, seed: j.seed ?? config.seed }))
    for (const key of Object.keys(o.floors ?? {})) {
      const [rubricId, dimension] = key.includes('.') ? key.split('.', 2) : [undefined, key]
      const known = [...o.rubrics.values()].some((r) => (!rubricId || r.id === rubricId) && r.dimensions.some((d) => d.id === dimension))
      if (!known) throw new ReplayJudgeError(`--judge-floor ${key}: no loaded rubric has a dimension '${key}' (rubrics: ${[...o.rubrics.keys()].join(', ')})`)
    }
  }

  get model(): string {
    return this.judge.model
  }

  /** Whether judge.prices has a price for every judge model, so the cost reported is the whole cost. */
  get priced(): boolean {
    return [this.judge, ...(this.panel ?? [])].every((j) => priceOf(j.model, this.o.config.prices) !== undefined)
  }

  /** The rubric an example asks for, else the one the judge config picks for the trace. */
  rubricFor(trace: Trace, requested: string | undefined): Rubric {
    const rubric = requested ? this.o.rubrics.get(requested) : rubricFor(this.o.config.rubrics, this.o.rubrics, trace)
    if (!rubric) {
      const id = requested ?? this.o.config.rubrics.default
      throw new ReplayJudgeError(`rubric '${id}' is not loaded (known: ${[...this.o.rubrics.keys()].join(', ')}); add it to judge.rubricsDir`)
    }
    return rubric
  }

  /**
   * The floor a dimension must reach: the one given with --judge-floor (`rubric.dimension`, else
   * `dimension`) and the example's (`rubric.dimension`), the stricter winning.
   */
  private floorOf(rubric: Rubric, dimension: string, example: Readonly<Record<string, number>> | undefined): number | undefined {
    const floors = [this.o.floors?.[`${rubric.id}.${dimension}`] ?? this.o.floors?.[dimension], example?.[`${rubric.id}.${dimension}`]].filter(
      (x) => x !== undefined,
    )
    return floors.length ? Math.max(...floors) : undefined
  }

  /**
   * Judges one run: its trace, or the traces of its turns (a multi-turn replay) as one conversation.
   * `floors` are the example's (`expected.judge.floors`): `<rubric>` for the weighted score,
   * `<rubric>.<dimension>` for a dimension.
   */
  async judgeRun(traces: Trace | readonly Trace[], rubric: Rubric, floors?: Readonly<Record<string, number>>): Promise<RunJudgement> {
    const list: readonly Trace[] = Array.isArray(traces) ? traces : [traces as Trace]
    const trace = list[list.length - 1]!
    const transcript = buildTranscript(list)
    const scoreFloor = floors?.[rubric.id]
    const base = {
      rubric: rubric.id,
      rubricVersion: rubric.version,
      passingThreshold: rubric.passingThreshold,
      dimensions: {},
      belowFloor: [],
      ...(scoreFloor !== undefined ? { scoreFloor } : {}),
    }
    if (transcript.contentMissing) {
      return {
        ...base,
        error: 'NO_CONTENT: the run sent no conversation to judge (content capture off?)',
        unreachable: false,
        calls: 0,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
      }
    }
    const ask: AskJudge = (j, r, d, t) => this.slots.run(() => this.client.judgeDimension(j, r, d, t))
    const results = await Promise.all(rubric.dimensions.map((d) => judgeDimension(ask, judgesFor(d, this.judge, this.panel), rubric, d, transcript)))
    // The scorer's own score rows: the weighted score and pass are computed in one place.
    const records = toScoreRecords(
      { trace, rubric, sampleReason: 'eval', truncation: transcript.truncation, includeTruncated: this.o.config.includeTruncated },
      results,
    )
    const overall = records.find((r) => r.scorerName === rubric.id)
    const dimensions: Record<string, DimensionJudgement> = {}
    const belowFloor: string[] = []
    for (const r of results) {
      const row = records.find((x) => x.scorerName === `${rubric.id}.${r.dimension.id}`)!
      if (r.error || r.level === undefined || row.error) {
        // No verdict, or one kept out of means (unverified evidence, a truncated conversation).
        dimensions[r.dimension.id] = { ...(r.level !== undefined && !r.error ? { level: r.level } : {}), error: row.error || 'no verdict' }
        continue
      }
      dimensions[r.dimension.id] = { value: row.value, level: r.level, passed: row.passed }
      const floor = this.floorOf(rubric, r.dimension.id, floors)
      if (floor !== undefined && row.value < floor) belowFloor.push(r.dimension.id)
    }
    const outcomes = results.flatMap((r) => r.outcomes)
    const errors = results.flatMap((r) => (r.error ? [r.error] : []))
    const firstError = errors.length ? `${errors[0]!.code}: ${errors[0]!.message}` : records.find((r) => r.error)?.error
    return {
      ...base,
      ...(overall ? { score: overall.value, passed: overall.passed && belowFloor.length === 0 && !(overall.value < (scoreFloor ?? 0)) } : {}),
      dimensions,
      belowFloor,
      ...(firstError ? { error: firstError } : {}),
      unreachable: errors.length === results.length && errors.every((e) => UNREACHABLE.has(e.code)),
      calls: outcomes.length,
      inputTokens: outcomes.reduce((n, x) => n + x.usage.inputTokens, 0),
      outputTokens: outcomes.reduce((n, x) => n + x.usage.outputTokens, 0),
      costUsd: outcomes.reduce((n, x) => n + x.costUsd, 0),
    }
  }
}
