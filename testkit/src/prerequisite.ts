/**
 * The `skip` of a test whose prerequisite (a Python venv, Go, a JDK, helm, the Kafka broker) may be
 * missing on a developer's machine. Under CI (`CI` set, as `.ci/run` sets it after installing every
 * prerequisite) a missing one is a broken set-up, not a reason to skip: it throws, so the test file
 * fails naming what is missing instead of passing green without running.
 */
export function prerequisite(missing: string | false, env: NodeJS.ProcessEnv = process.env): string | false {
  if (missing && env.CI && env.CI !== 'false') throw new Error(`CI is set and a test prerequisite is missing: ${missing}`)
  return missing
}
