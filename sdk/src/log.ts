/**
 * The SDK talks to the host's stderr rarely: each distinct problem is reported once per process,
 * so a collector outage cannot flood the application's logs.
 */
const said = new Set<string>()

export function warnOnce(key: string, message: string): void {
  if (said.has(key)) return
  said.add(key)
  try {
    console.warn(`[sieve] ${message}`)
  } catch {
    // a broken console must not reach the agent
  }
}

/** Runs instrumentation code; a bug in it is reported once and never reaches the agent. */
export function guard<T>(where: string, fn: () => T, fallback: T): T {
  try {
    return fn()
  } catch (err) {
    reportBug(where, err)
    return fallback
  }
}

export function reportBug(where: string, err: unknown): void {
  warnOnce(`bug:${where}`, `instrumentation error in ${where} (the traced call is unaffected): ${(err as Error)?.message ?? err}`)
}
