import { encodeJsonRequest } from '@sieve/collector'
import type { Span, Trace } from '@sieve/core'
import { SIMULATION_ATTR } from '@sieve/protocol'

/** A Sieve to store the runs in: its OTLP/HTTP base URL, and an API key (whose project the runs land in). */
export interface ForwardTarget {
  endpoint: string
  apiKey?: string
}

export interface RunTags {
  runId: string
  scenario: string
  scenarioVersion: string
  template: string
  run: number
}

/** Sieve answered, but not 200: the runs are not stored. */
export class ForwardError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message)
  }
}

const ATTEMPTS = 3

/**
 * Sends a run's traces to a Sieve as OTLP/JSON, every span tagged `sieve.simulation.*`, so the run is
 * stored, scored and judged there like production traffic and can be told apart from it. A 429 or
 * 503 is retried after its Retry-After (at most 5 s), twice; anything else but 200 is a ForwardError.
 */
export async function forwardRun(target: ForwardTarget, traces: readonly Trace[], tags: RunTags): Promise<number> {
  const spans: Span[] = traces.flatMap((t) => t.spans).map((span) => ({ ...span, attributes: { ...span.attributes, ...tagAttributes(tags) } }))
  if (!spans.length) return 0
  const body = JSON.stringify(encodeJsonRequest(spans))
  const url = `${target.endpoint.replace(/\/+$/, '')}/v1/traces`
  for (let attempt = 1; ; attempt++) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {}) },
      body,
    })
    const text = await response.text()
    if (response.status === 200) {
      const rejected = Number((JSON.parse(text || '{}') as { partialSuccess?: { rejectedSpans?: string | number } }).partialSuccess?.rejectedSpans ?? 0)
      if (rejected) throw new ForwardError(`${url} kept ${spans.length - rejected} of ${spans.length} spans`, 200)
      return spans.length
    }
    if ((response.status === 429 || response.status === 503) && attempt < ATTEMPTS) {
      const wait = Math.min(5, Number(response.headers.get('retry-after')) || 1)
      await new Promise((r) => setTimeout(r, wait * 1000))
      continue
    }
    throw new ForwardError(`${url} answered ${response.status}: ${text.slice(0, 200)}`, response.status)
  }
}

function tagAttributes(tags: RunTags): Record<string, string | number> {
  return {
    [SIMULATION_ATTR.runId]: tags.runId,
    [SIMULATION_ATTR.scenario]: tags.scenario,
    [SIMULATION_ATTR.scenarioVersion]: tags.scenarioVersion,
    [SIMULATION_ATTR.template]: tags.template,
    [SIMULATION_ATTR.run]: tags.run,
  }
}
