import OpenAI, { APIConnectionError, APIError } from 'openai'
import { backoffDelay, parseRetryAfter, type BackoffRange } from '@sieve/core'
import { keepAliveFetch } from './http-fetch.js'
import { JudgeError } from './judge-error.js'

/**
 * The HTTP rules of every model Sieve itself calls (the judge, `sieve simulate`'s simulated user):
 * any OpenAI-compatible endpoint, the SDK's own retries off so ours are counted and honour the
 * configured backoff, 429 / 5xx / connection errors retried with jittered backoff and Retry-After,
 * any other refusal final at once.
 */
export interface RetryRules {
  maxRetries: number
  backoff: BackoffRange
  sleep?: (ms: number) => Promise<void>
  random?: () => number
}

/** What the caller counts: each request sent, each retry, the error a call ends in. */
export interface CompletionHooks {
  onCall?: () => void
  onRetry?: (status: string) => void
  onFail?: (code: 'REQUEST_REJECTED' | 'PROVIDER_UNAVAILABLE') => void
}

export function modelClient(o: { baseUrl: string; apiKey: string; timeoutMs: number }): OpenAI {
  return new OpenAI({ baseURL: o.baseUrl, apiKey: o.apiKey, maxRetries: 0, timeout: o.timeoutMs, fetch: keepAliveFetch })
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

function retryable(err: unknown): boolean {
  if (err instanceof APIConnectionError) return true
  return err instanceof APIError && (err.status === 429 || (err.status !== undefined && err.status >= 500))
}

/**
 * One chat completion under the rules above. Throws a JudgeError (REQUEST_REJECTED or
 * PROVIDER_UNAVAILABLE) naming `who` ("judge", "simulator") and `what` was asked, or the
 * SyntaxError of a 200 whose body is not JSON, which callers treat as an invalid answer.
 */
export async function completeWithRetries(
  client: OpenAI,
  body: OpenAI.ChatCompletionCreateParamsNonStreaming,
  rules: RetryRules,
  who: { endpoint: string; what: string },
  hooks: CompletionHooks = {},
): Promise<OpenAI.ChatCompletion> {
  for (let attempt = 0; ; attempt++) {
    try {
      hooks.onCall?.()
      return await client.chat.completions.create(body)
    } catch (err) {
      const status = err instanceof APIError ? err.status : undefined
      if (err instanceof SyntaxError) throw err
      if (!retryable(err)) {
        hooks.onFail?.('REQUEST_REJECTED')
        throw new JudgeError(
          'REQUEST_REJECTED',
          `${who.endpoint} endpoint refused the request for ${who.what} (HTTP ${status ?? '?'}): ${(err as Error).message}`,
        )
      }
      if (attempt >= rules.maxRetries) {
        hooks.onFail?.('PROVIDER_UNAVAILABLE')
        throw new JudgeError(
          'PROVIDER_UNAVAILABLE',
          `${who.endpoint} endpoint still failing after ${attempt + 1} attempts (last: ${status ? `HTTP ${status}` : (err as Error).message})`,
        )
      }
      hooks.onRetry?.(String(status ?? 'network'))
      const retryAfter = err instanceof APIError ? parseRetryAfter(err.headers?.get('retry-after')) : 0
      await (rules.sleep ?? defaultSleep)(backoffDelay(attempt, rules.backoff, { jitter: true, retryAfterMs: retryAfter, random: rules.random }))
    }
  }
}
