import OpenAI, { APIConnectionError, APIError } from 'openai'
import type { JudgeConfig } from './config.js'
import { backoffDelay, parseRetryAfter } from './backoff.js'
import { costUsd } from '../pricing.js'
import { keepAliveFetch } from './http-fetch.js'
import { JudgeError } from './judge-error.js'
import type { JudgeMetrics } from './metrics.js'
import { buildJudgePrompt } from './prompt.js'
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

export type DimensionOutcome = (
  /** `unverified`: a quote of its evidence is not in the turn it cites, asked twice. */
  | { ok: true; verdict: JudgeVerdict; unverified?: string }
  | { ok: false; error: JudgeError }
) & { judge: JudgeRef; usage: TokenUsage; costUsd: number }

export type AskJudge = (judge: JudgeRef, rubric: Rubric, dimension: RubricDimension, transcript: Transcript) => Promise<DimensionOutcome>

export type JudgeClientOptions = Pick<JudgeConfig, 'baseUrl' | 'apiKey' | 'timeoutMs' | 'maxRetries' | 'backoff' | 'prices'> & {
  sleep?: (ms: number) => Promise<void>
  random?: () => number
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function retryable(err: unknown): boolean {
  if (err instanceof APIConnectionError) return true
  return err instanceof APIError && (err.status === 429 || (err.status !== undefined && err.status >= 500))
}

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
    // The SDK's own retries are off: ours are counted and honour the configured backoff.
    this.openai = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, maxRetries: 0, timeout: options.timeoutMs, fetch: keepAliveFetch })
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
    this.metrics.inc('judge_errors', { code: 'INVALID_ANSWER' })
    return done({ ok: false, error: new JudgeError('INVALID_ANSWER', `the judge's answer was not a valid verdict, twice: ${problem}`) })
  }

  /** One completion, retried on 429 / 5xx / connection errors; throws a JudgeError. */
  private async call(judge: JudgeRef, system: string, user: string, dimension: string) {
    for (let attempt = 0; ; attempt++) {
      try {
        this.metrics.inc('calls', { model: judge.model })
        return await this.openai.chat.completions.create({
          model: judge.model,
          temperature: 0,
          seed: judge.seed,
          messages: [
            { role: 'system', content: system },
            { role: 'user', content: user },
          ],
          response_format: { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: VERDICT_JSON_SCHEMA } },
        })
      } catch (err) {
        const status = err instanceof APIError ? err.status : undefined
        if (err instanceof SyntaxError) throw err
        if (!retryable(err)) {
          this.metrics.inc('judge_errors', { code: 'REQUEST_REJECTED' })
          throw new JudgeError('REQUEST_REJECTED', `judge endpoint refused the request for '${dimension}' (HTTP ${status ?? '?'}): ${(err as Error).message}`)
        }
        if (attempt >= this.options.maxRetries) {
          this.metrics.inc('judge_errors', { code: 'PROVIDER_UNAVAILABLE' })
          throw new JudgeError('PROVIDER_UNAVAILABLE', `judge endpoint still failing after ${attempt + 1} attempts (last: ${status ? `HTTP ${status}` : (err as Error).message})`)
        }
        this.metrics.inc('retries', { status: String(status ?? 'network') })
        const retryAfter = err instanceof APIError ? parseRetryAfter(err.headers?.get('retry-after')) : 0
        await this.sleep(backoffDelay(attempt, this.options.backoff, retryAfter, this.random))
      }
    }
  }
}
