import type { Span } from '@opentelemetry/api'
import { guard } from '../log.js'
import { endWithError } from '../span-run.js'
import { state } from '../state.js'
import { GEN_AI } from '@sieve/protocol'
import type { ResponseFacts, StreamAccumulator } from './adapter.js'

/**
 * Observes a streamed answer as the caller reads it: every chunk passes through unchanged, the
 * accumulator sees it, and the span ends when the stream ends, fails or the caller stops early.
 * Works on the openai package's Stream (its `iterator` factory, which `tee()` also uses) and on
 * any async iterable. Returns false when the value cannot be observed.
 */
export function traceStream(stream: any, acc: StreamAccumulator, span: Span, startedAt: number, onFacts: (facts: ResponseFacts) => void): boolean {
  const key: 'iterator' | typeof Symbol.asyncIterator | undefined =
    typeof stream?.iterator === 'function' ? 'iterator' : typeof stream?.[Symbol.asyncIterator] === 'function' ? Symbol.asyncIterator : undefined
  if (!key) return false
  const original = stream[key]
  let firstChunk = true
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    guard('stream end', () => onFacts(acc.finish(state.policy)), undefined)
    span.end()
  }
  const fail = (err: unknown) => {
    if (ended) return
    ended = true
    guard('stream end', () => onFacts(acc.finish(state.policy)), undefined)
    endWithError(span, err)
  }
  stream[key] = function (this: unknown) {
    const it: AsyncIterator<unknown> = original.call(this)
    return {
      async next(...args: [] | [unknown]) {
        let result: IteratorResult<unknown>
        try {
          result = await it.next(...args)
        } catch (err) {
          fail(err)
          throw err
        }
        if (result.done) end()
        else {
          if (firstChunk) {
            firstChunk = false
            guard('stream chunk', () => span.setAttribute(GEN_AI.responseTimeToFirstChunk, (performance.now() - startedAt) / 1000), undefined)
          }
          guard('stream chunk', () => acc.add(result.value), undefined)
        }
        return result
      },
      async return(value?: unknown) {
        end()
        return it.return ? it.return(value) : { done: true as const, value }
      },
      async throw(err?: unknown) {
        fail(err)
        if (it.throw) return it.throw(err)
        throw err
      },
      [Symbol.asyncIterator]() {
        return this
      },
    }
  }
  return true
}
