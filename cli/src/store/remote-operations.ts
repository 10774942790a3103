import type { StoreOwner } from './owner.js'
import { OperationError, type StoreOperations } from './operations.js'

/** How long one operation may take on the owner (an export of many traces scrubs every one). */
const TIMEOUT_MS = 10 * 60_000

/**
 * The operations of the `sieve up` that owns the store, over its /ops routes: the work runs there,
 * with its configuration. An error it reports keeps its code, so a command answers as it would
 * have locally (exit 2 for an invalid dataset file, say).
 */
export function remoteOperations(owner: StoreOwner): StoreOperations {
  const call = async <T>(path: string, body?: unknown): Promise<T> => {
    let res: Response
    try {
      res = await fetch(`${owner.url}/ops/${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${owner.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      })
    } catch (err) {
      throw new OperationError('OWNER_UNREACHABLE', `the running Sieve (pid ${owner.pid}) owns the store but does not answer at ${owner.url}: ${(err as Error).message}`, 503)
    }
    const answer = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } }
    if (!res.ok) throw new OperationError(answer.error?.code ?? 'OWNER_FAILED', answer.error?.message ?? `HTTP ${res.status} from ${owner.url}`, res.status)
    return answer as T
  }
  const config = owner.configFile ? `config ${owner.configFile}` : 'no config file'
  return {
    origin: `through the running Sieve (pid ${owner.pid}, ${owner.url}, ${config}): it owns the store`,
    export: (request) => call('export', request),
    score: async (request) => (await call<{ outcome: Awaited<ReturnType<StoreOperations['score']>> | null }>('score', request)).outcome ?? undefined,
    checks: async (agent) => (await call<{ text: string }>(`checks${agent ? `?agent=${encodeURIComponent(agent)}` : ''}`)).text,
    migrate: () => call('migrate', {}),
    calibrate: (request) => call('calibrate', request),
    close: async () => {},
  }
}
