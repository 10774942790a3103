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

/** Records a settled value on its span; `data` is what the caller passed to runInSpan along with it. */
export type OnValue<D> = (span: Span, value: unknown, data: D) => void

interface SpanRun {
  span: Span
  onValue: OnValue<unknown>
  data: unknown
}

function apply<A extends unknown[], R>(fn: (...args: A) => R, thisArg: unknown, args: A): R {
  return Reflect.apply(fn, thisArg, args)
}

function settle(run: SpanRun, value: unknown): void {
  try {
    try {
      run.onValue(run.span, value, run.data)
    } finally {
      run.span.end()
    }
  } catch {
    // recording a result must never reach the caller, nor turn into an unhandled rejection
  }
}

function fulfilled(this: SpanRun, value: unknown): void {
  settle(this, value)
}

function rejected(this: SpanRun, err: unknown): void {
  endWithError(this.span, err)
}

/**
 * Runs `fn` (with `thisArg` and `args`) inside `ctx` and ends `span` when it settles, calling
 * `onValue(span, value, data)` first to record the result. The caller gets exactly what `fn`
 * returned or threw: the same promise object, not a copy.
 *
 * Nothing here is a closure made per call: V8 keeps a closure's optimized code only while an
 * instance of it lives, so closures made per call lost theirs at each full GC that fell between
 * calls and were compiled again, each time with all they inlined (the recording of the result).
 */
export function runInSpan<T, D, A extends unknown[]>(
  span: Span,
  ctx: Context,
  fn: (...args: A) => T,
  thisArg: unknown,
  args: A,
  onValue: OnValue<D>,
  data: D,
): T {
  let result: T
  try {
    result = context.with(ctx, apply<A, T>, undefined, fn, thisArg, args)
  } catch (err) {
    endWithError(span, err)
    throw err
  }
  const run: SpanRun = { span, onValue: onValue as OnValue<unknown>, data }
  if (isThenable(result)) result.then(fulfilled.bind(run), rejected.bind(run))
  else settle(run, result)
  return result
}
