import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { counted, defineCheck } from './check.js'

function resultError(result: unknown): string {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return ''
  const error = (result as Record<string, unknown>).error
  if (error === undefined || error === null || error === false || error === '') return ''
  return typeof error === 'string' ? error : JSON.stringify(error)
}

/**
 * Tool calls that failed (error status, `error.type`, or a result carrying `error`) and the retries
 * they caused. An error recovered by a later successful call of the same tool passes, as long as
 * that tool was retried at most `maxRetries` times; an unrecovered error fails.
 */
export const toolErrors = defineCheck({
  name: 'tool_errors',
  version: '1',
  description: 'Tool calls do not end in errors; failed calls are recovered within the retry bound.',
  params: z.object({ maxRetries: z.number().int().min(0).default(2) }),
  evaluate(trace, { maxRetries }) {
    const calls = traceView(trace).toolCalls
    if (!calls.length) return { skipped: 'no tool calls' }
    // Start times parsed once per call, not twice per comparison.
    const starts = new Map(calls.map((c) => [c, BigInt(c.startTimeUnixNano)]))
    const ordered = [...calls].sort((a, b) => (starts.get(a)! < starts.get(b)! ? -1 : 1))
    const errors: { spanId: string; tool: string; error: string; recovered: boolean }[] = []
    const retries = new Map<string, number>()
    const failing = new Set<string>()
    for (const call of ordered) {
      if (failing.has(call.name)) retries.set(call.name, (retries.get(call.name) ?? 0) + 1)
      const error = call.error || resultError(call.result)
      if (error) {
        errors.push({ spanId: call.spanId, tool: call.name, error, recovered: false })
        failing.add(call.name)
      } else {
        if (failing.has(call.name)) for (const e of errors) if (e.tool === call.name) e.recovered = true
        failing.delete(call.name)
      }
    }
    const unrecovered = errors.filter((e) => !e.recovered)
    const overRetried = [...retries].filter(([, n]) => n > maxRetries).map(([tool, n]) => ({ tool, retries: n }))
    const passed = unrecovered.length === 0 && overRetried.length === 0
    const problems = [
      ...unrecovered.map((e) => `${e.tool} failed in span ${e.spanId} (${e.error}) and was not recovered`),
      ...overRetried.map((r) => `${r.tool} retried ${r.retries} times (max ${maxRetries})`),
    ]
    return {
      value: 1 - errors.length / calls.length,
      passed,
      detail: {
        message: problems.length
          ? problems.join('; ')
          : errors.length
            ? `${counted(errors.length, 'tool error')}, all recovered within ${counted(maxRetries, 'retry', 'retries')}`
            : `${counted(calls.length, 'tool call')}, no errors`,
        errors,
        retries: Object.fromEntries(retries),
      },
    }
  },
})
