import { encodeJsonRequest } from '@sieve/otlp'
import type { Span, Trace } from '@sieve/core'
import { OTHER, SIMULATION_ATTR, SIMULATION_ENVIRONMENT } from '@sieve/protocol'

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

/**
 * A run's traces were not stored. `setup`: Sieve cannot be reached, or refused the key or the path,
 * so no run will be; otherwise this run alone (Sieve busy, or refusing what the run holds).
 */
export class ForwardError extends Error {
  constructor(
    message: string,
    readonly setup: boolean,
  ) {
    super(message)
  }
}

const ATTEMPTS = 3
const TIMEOUT_MS = 30_000
const SETUP_STATUSES = new Set([401, 403, 404, 405])

/**
 * Sends a run's traces to a Sieve as OTLP/JSON, one request a trace, every span tagged
 * `sieve.simulation.*` and in the environment `simulation` (deployment.environment.name, whatever
 * the agent set), so the run is stored, scored and judged there like production traffic and can be
 * told apart from it: a project's dashboards leave that environment out unless asked. A 429 or 503
 * is retried after its Retry-After (at most 5 s), twice; anything else but 200, or no answer within
 * 30 s, is a ForwardError. Resolves to the spans sent.
 */
export async function forwardRun(target: ForwardTarget, traces: readonly Trace[], tags: RunTags): Promise<number> {
  const url = `${target.endpoint.replace(/\/+$/, '')}/v1/traces`
  const tagged = tagAttributes(tags)
  let sent = 0
  for (const trace of traces) {
    const spans: Span[] = trace.spans.map((span) => ({
      ...span,
      resource: { ...span.resource, [OTHER.environment]: SIMULATION_ENVIRONMENT },
      attributes: { ...span.attributes, ...tagged },
    }))
    if (spans.length) await post(url, target.apiKey, spans)
    sent += spans.length
  }
  return sent
}

async function post(url: string, apiKey: string | undefined, spans: Span[]): Promise<void> {
  const body = JSON.stringify(encodeJsonRequest(spans))
  for (let attempt = 1; ; attempt++) {
    let response: Response
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code
      throw new ForwardError(`${url}: ${cause ?? (err as Error).message}`, (err as Error).name !== 'TimeoutError')
    }
    const text = await response.text()
    if (response.status === 200) {
      const rejected = Number((JSON.parse(text || '{}') as { partialSuccess?: { rejectedSpans?: string | number } }).partialSuccess?.rejectedSpans ?? 0)
      if (rejected) throw new ForwardError(`${url} kept ${spans.length - rejected} of ${spans.length} spans`, false)
      return
    }
    if ((response.status === 429 || response.status === 503) && attempt < ATTEMPTS) {
      const wait = Math.min(5, Number(response.headers.get('retry-after')) || 1)
      await new Promise((r) => setTimeout(r, wait * 1000))
      continue
    }
    throw new ForwardError(`${url} answered ${response.status}: ${text.slice(0, 200)}`, SETUP_STATUSES.has(response.status))
  }
}

function tagAttributes(tags: RunTags): Record<string, string | number> {
  return {
    [SIMULATION_ATTR.runId]: tags.runId,
    [SIMULATION_ATTR.scenario]: tags.scenario,
    [SIMULATION_ATTR.scenarioVersion]: tags.scenarioVersion,
    [SIMULATION_ATTR.template]: tags.template,
    [SIMULATION_ATTR.run]: tags.run,
    // Over an environment the agent put on its spans, which would win over the resource's.
    [OTHER.environment]: SIMULATION_ENVIRONMENT,
  }
}
