import type { ContentPolicy } from '../content.js'

/**
 * Conversions of request objects an agent sends again and again (the tool list, the messages of a
 * growing conversation), remembered per object so each is converted once, not on every call.
 * A request object changed in place after it was sent is not seen again; agents append instead.
 */
const memo = new WeakMap<object, { policy: ContentPolicy; value: unknown }>()

export function once<T>(key: unknown, policy: ContentPolicy, compute: () => T): T {
  if (key === null || typeof key !== 'object') return compute()
  const hit = memo.get(key)
  if (hit && hit.policy === policy) return hit.value as T
  const value = compute()
  memo.set(key, { policy, value })
  return value
}
