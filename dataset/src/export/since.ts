/** `7d`, `12h`, `30m` before `now`, or an ISO date/time, as Unix nanoseconds; undefined when unreadable. */
export function sinceUnixNano(value: string, now = Date.now()): string | undefined {
  const relative = /^(\d+)\s*([dhm])$/.exec(value.trim())
  let millis: number
  if (relative) {
    const unit = { d: 86_400_000, h: 3_600_000, m: 60_000 }[relative[2] as 'd' | 'h' | 'm']
    millis = now - Number(relative[1]) * unit
  } else {
    if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return undefined
    millis = Date.parse(value)
    if (Number.isNaN(millis)) return undefined
  }
  return (BigInt(Math.max(0, millis)) * 1_000_000n).toString()
}
