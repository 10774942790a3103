import type { ContentPolicy } from '../content.js'

/**
 * Conversions of request objects an agent sends again and again (the tool list, the messages of a
 * growing conversation), remembered per object so each is converted once, not on every call.
 * A request object changed in place after it was sent is not seen again; agents append instead.
 * `compute` gets the key rather than closing over it, so no closure is made per lookup.
 */
const memo = new WeakMap<object, { policy: ContentPolicy; value: unknown }>()

export function once<K, T>(key: K, policy: ContentPolicy, compute: (policy: ContentPolicy, key: K) => T): T {
  if (key === null || typeof key !== 'object') return compute(policy, key)
  const hit = memo.get(key)
  if (hit && hit.policy === policy) return hit.value as T
  const value = compute(policy, key)
  memo.set(key, { policy, value })
  return value
}
