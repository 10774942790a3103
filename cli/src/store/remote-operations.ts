import { OperationError, type StoreOperations } from './operations.js'

/** How long one operation may take there (an export of many traces scrubs every one). */
const TIMEOUT_MS = 10 * 60_000

/** A Sieve serving /ops: the owner of the local store, or one named by SIEVE_URL. */
export interface OpsEndpoint {
  url: string
  token: string
  /** Which Sieve this is, for the one line a command says (`the running Sieve (pid 42, ...)`). */
  name: string
}

/**
 * The operations of another Sieve process, over its /ops routes: the work runs there, with its
 * store and its configuration. An error it reports keeps its code, so a command answers as it
 * would have locally (exit 2 for an invalid dataset file, say).
 */
export function remoteOperations(endpoint: OpsEndpoint, origin: string): StoreOperations {
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    let res: Response
    try {
      res = await fetch(`${endpoint.url}/ops/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${endpoint.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
    } catch (err) {
      throw new OperationError('SIEVE_UNREACHABLE', `${endpoint.name} does not answer at ${endpoint.url}: ${(err as Error).message}`, 503)
    }
    const answer = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }
    if (!res.ok) throw new OperationError(answer.error?.code ?? 'SIEVE_FAILED', answer.error?.message ?? `HTTP ${res.status} from ${endpoint.url}`, res.status)
    return answer as T
  }
  return {
    origin,
    export: (request) => call('export', request),
    score: async (request) => (await call<{ outcome: Awaited<ReturnType<StoreOperations['score']>> | null }>('score', request)).outcome ?? undefined,
    checks: async (agent) => (await call<{ text: string }>(`checks${agent ? `?agent=${encodeURIComponent(agent)}` : ''}`)).text,
    migrate: () => call('migrate', {}),
    calibrate: (request) => call('calibrate', request),
    close: async () => {},
  }
}
