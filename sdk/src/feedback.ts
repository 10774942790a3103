import { randomUUID } from 'node:crypto'
import { resolveConfig } from './config.js'
import { feedbackSchema, type FeedbackInput } from '@sieve/protocol'
import { state } from './state.js'

export type FeedbackResult =
  | { ok: true; feedbackId: string }
  | { ok: false; error: { code: 'FEEDBACK_INVALID' | 'FEEDBACK_REJECTED' | 'FEEDBACK_UNREACHABLE' | 'SDK_CONFIG_INVALID'; message: string } }

/**
 * Sends a user's judgement of a trace to the collector (`POST <endpoint>/v1/feedback`). Never
 * throws: the result says whether it was stored and, if not, why.
 */
export async function feedback(traceId: string, input: Omit<FeedbackInput, 'traceId'>): Promise<FeedbackResult> {
  const parsed = feedbackSchema.safeParse({ feedbackId: randomUUID(), ...input, traceId })
  if (!parsed.success) {
    return { ok: false, error: { code: 'FEEDBACK_INVALID', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') } }
  }
  let config = state.config
  try {
    config ??= resolveConfig()
  } catch (err) {
    return { ok: false, error: { code: 'SDK_CONFIG_INVALID', message: (err as Error).message } }
  }
  try {
    const res = await fetch(config.feedbackUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...config.headers },
      body: JSON.stringify(parsed.data),
      signal: AbortSignal.timeout(config.exportTimeoutMillis),
    })
    if (res.ok) return { ok: true, feedbackId: parsed.data.feedbackId! }
    const text = await res.text().catch(() => '')
    let message = text
    try {
      message = JSON.parse(text)?.message ?? JSON.parse(text)?.error?.message ?? text
    } catch {
      // not JSON: keep the text
    }
    return { ok: false, error: { code: 'FEEDBACK_REJECTED', message: `HTTP ${res.status}${message ? `: ${message}` : ''}` } }
  } catch (err) {
    return { ok: false, error: { code: 'FEEDBACK_UNREACHABLE', message: `${config.feedbackUrl}: ${(err as Error).message}` } }
  }
}
