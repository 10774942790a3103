import type OpenAI from 'openai'
import type { JudgeConfig } from './config.js'
import { costUsd } from '@sieve/scoring'
import type { JudgeMetrics } from './metrics.js'
import { buildJudgePrompt } from './prompt.js'
import { completeWithRetries, JudgeError, modelClient } from '@sieve/llm'
import type { Rubric, RubricDimension } from './rubric.js'
import type { Transcript } from './transcript.js'
import { checkVerdict, VERDICT_JSON_SCHEMA, type JudgeVerdict } from './verdict.js'

export interface JudgeRef {
  model: string
  seed: number
}

export interface TokenUsage {
  inputTokens: number
  outputTokens: number
}

export type DimensionOutcome =
  /** `unverified`: a quote of its evidence is not in the turn it cites, asked twice. */
  ({ ok: true; verdict: JudgeVerdict; unverified?: string } | { ok: false; error: JudgeError }) & { judge: JudgeRef; usage: TokenUsage; costUsd: number }

export type AskJudge = (judge: JudgeRef, rubric: Rubric, dimension: RubricDimension, transcript: Transcript) => Promise<DimensionOutcome>

export type JudgeClientOptions = Pick<JudgeConfig, 'baseUrl' | 'apiKey' | 'timeoutMs' | 'maxRetries' | 'backoff' | 'prices'> & {
  sleep?: (ms: number) => Promise<void>
  random?: () => number
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * One judge call per rubric dimension against any OpenAI-compatible endpoint. Temperature 0 and a
 * seed; the answer must be a valid verdict (retried once if not). Rate limits and server errors are
 * retried with backoff; whatever fails in the end comes back as an error, never as a score.
 */
export class JudgeClient {
  private readonly openai: OpenAI
  private readonly sleep: (ms: number) => Promise<void>
  private readonly random: () => number

  constructor(
    private readonly options: JudgeClientOptions,
    private readonly metrics: Pick<JudgeMetrics, 'inc'>,
  ) {
    this.openai = modelClient(options)
    this.sleep = options.sleep ?? defaultSleep
    this.random = options.random ?? Math.random
  }

  async judgeDimension(judge: JudgeRef, rubric: Rubric, dimension: RubricDimension, transcript: Transcript): Promise<DimensionOutcome> {
    const prompt = buildJudgePrompt(rubric, dimension, transcript)
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0 }
    const done = (result: { ok: true; verdict: JudgeVerdict; unverified?: string } | { ok: false; error: JudgeError }): DimensionOutcome => {
      return { ...result, judge, usage, costUsd: costUsd(judge.model, usage.inputTokens, usage.outputTokens, this.options.prices) ?? 0 }
    }
    let problem = ''
    let unverified: { verdict: JudgeVerdict; unverified: string } | undefined
    for (let answerAttempt = 0; answerAttempt < 2; answerAttempt++) {
      if (answerAttempt > 0) this.metrics.inc(unverified ? 'unverified_evidence_retries' : 'invalid_answer_retries', { dimension: dimension.id })
      let content: string | null | undefined
      try {
        const completion = await this.call(judge, prompt.system, prompt.user, dimension.id)
        usage.inputTokens += completion.usage?.prompt_tokens ?? 0
        usage.outputTokens += completion.usage?.completion_tokens ?? 0
        content = completion.choices[0]?.message?.content
      } catch (err) {
        if (err instanceof JudgeError) return done({ ok: false, error: err })
        // An HTTP 200 whose body is not JSON (a truncating proxy): an invalid answer like any other.
        problem = `response body is not JSON: ${(err as Error).message}`
        continue
      }
      const checked = checkVerdict(content, dimension, transcript)
      if (checked.ok && !checked.unverified) return done(checked)
      // A verdict quoting what the transcript does not say is asked again once, then kept, marked.
      if (checked.ok) unverified = { verdict: checked.verdict, unverified: checked.unverified! }
      else problem = checked.problem
    }
    if (unverified) {
      this.metrics.inc('unverified_evidence', { dimension: dimension.id })
      return done({ ok: true, ...unverified })
    }
    this.metrics.inc('errors', { code: 'INVALID_ANSWER' })
    return done({ ok: false, error: new JudgeError('INVALID_ANSWER', `the judge's answer was not a valid verdict, twice: ${problem}`) })
  }

  /** One completion, retried on 429 / 5xx / connection errors; throws a JudgeError. */
  private call(judge: JudgeRef, system: string, user: string, dimension: string) {
    const body: OpenAI.ChatCompletionCreateParamsNonStreaming = {
      model: judge.model,
      temperature: 0,
      seed: judge.seed,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: VERDICT_JSON_SCHEMA } },
    }
    return completeWithRetries(
      this.openai,
      body,
      { ...this.options, sleep: this.sleep, random: this.random },
      { endpoint: 'judge', what: `'${dimension}'` },
      {
        onCall: () => this.metrics.inc('calls', { model: judge.model }),
        onRetry: (status) => this.metrics.inc('retries', { status }),
        onFail: (code) => this.metrics.inc('errors', { code }),
      },
    )
  }
}
