/**
 * Loaded into a role under a benchmark (`NODE_OPTIONS=--import <this file>`, see `stallRecorderEnv`):
 * appends each event-loop stall longer than SIEVE_BENCH_STALL_MS (default 100) to the file
 * SIEVE_BENCH_STALL_LOG, one line `<from µs> <to µs>` on the monotonic clock V8's CPU profiles use,
 * so a profile's samples can be read stall by stall. Plain JavaScript: it loads before the role's
 * TypeScript loader does.
 */
import { appendFileSync } from 'node:fs'

const file = process.env.SIEVE_BENCH_STALL_LOG
const thresholdNs = BigInt(Number(process.env.SIEVE_BENCH_STALL_MS ?? 100) * 1e6)
const everyMs = 5
if (file) {
  let due = process.hrtime.bigint() + BigInt(everyMs * 1e6)
  setInterval(() => {
    const now = process.hrtime.bigint()
    if (now - due > thresholdNs) appendFileSync(file, `${due / 1000n} ${now / 1000n}\n`)
    due = now + BigInt(everyMs * 1e6)
  }, everyMs).unref()
}
