import { context, SpanStatusCode, type Context, type Span } from '@opentelemetry/api'
import { OTHER } from '@sieve/protocol'

/** The low-cardinality `error.type` of the conventions: an HTTP status when there is one, else the error's class. */
export function errorType(err: unknown): string {
  const status = (err as { status?: unknown })?.status
  if (typeof status === 'number') return String(status)
  const name = (err as Error)?.constructor?.name ?? (err as Error)?.name
  return typeof name === 'string' && name && name !== 'Object' ? name : '_OTHER'
}

export function endWithError(span: Span, err: unknown): void {
  try {
    span.setAttribute(OTHER.errorType, errorType(err))
    if (err instanceof Error) span.recordException(err)
    span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) })
    span.end()
  } catch {
    // the caller's error is what matters; it is rethrown unchanged
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<unknown>).then === 'function'
}

/**
 * Runs `fn` inside `ctx` and ends `span` when it settles, calling `onValue` first to record the
 * result. The caller gets exactly what `fn` returned or threw: the same promise object, not a copy.
 */
export function runInSpan<T>(span: Span, ctx: Context, fn: () => T, onValue: (span: Span, value: unknown) => void): T {
  let result: T
  try {
    result = context.with(ctx, fn)
  } catch (err) {
    endWithError(span, err)
    throw err
  }
  const settle = (value: unknown) => {
    try {
      onValue(span, value)
    } finally {
      span.end()
    }
  }
  if (isThenable(result)) {
    result.then(
      (value) => {
        try {
          settle(value)
        } catch {
          // recording a result must never turn into an unhandled rejection
        }
      },
      (err) => endWithError(span, err),
    )
  } else {
    try {
      settle(result)
    } catch {
      // as above
    }
  }
  return result
}
