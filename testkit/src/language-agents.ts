import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { prerequisite } from './prerequisite.js'

/*
 * Agents in other languages, traced by their own OpenTelemetry SDKs (testkit/agents/go, /java), for
 * tests of what real clients send. Each is built once into .cache/agents, under a hash of its
 * sources, from modules the Go proxy and Maven Central serve; a machine without the toolchain
 * skips its tests, saying what is missing (under CI it fails them). A build that fails is an error, never a skip.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const CACHE = join(ROOT, '.cache/agents')

export interface LanguageAgent {
  /** Why this machine cannot run it, or false. */
  skip: string | false
  /** The command that runs one traced agent turn (it prints the trace id), built the first time. */
  command(): string[]
}

/** A hash of every file under `dir` (names and contents), so any edit means a rebuild. */
function sourceHash(dir: string): string {
  const hash = createHash('sha256')
  const walk = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else hash.update(`${relative(dir, path)}\0`).update(readFileSync(path))
    }
  }
  walk(dir)
  return hash.digest('hex').slice(0, 12)
}

const missing = (tool: string, args: string[]): boolean => spawnSync(tool, args).error !== undefined

function build(what: string, cwd: string, command: string, args: string[]): void {
  const done = spawnSync(command, args, { cwd, encoding: 'utf8' })
  if (done.status !== 0)
    throw new Error(`building the ${what} failed (${command} ${args.join(' ')}, ${done.status ?? done.signal}):\n${done.stdout}${done.stderr}`.slice(-4000))
}

/** testkit/agents/go: the OpenTelemetry Go SDK with its OTLP/HTTP exporter. */
export function goAgent(): LanguageAgent {
  const skip = prerequisite(missing('go', ['version']) && '`go` is not on PATH (the Go agent is built from the Go module proxy)')
  return {
    skip,
    command() {
      const source = join(ROOT, 'testkit/agents/go')
      const binary = join(CACHE, `go-agent-${sourceHash(source)}`)
      if (!existsSync(binary)) {
        mkdirSync(CACHE, { recursive: true })
        build('Go agent', source, 'go', ['build', '-trimpath', '-buildvcs=false', '-o', `${binary}.part`, '.'])
        renameSync(`${binary}.part`, binary)
      }
      return [binary]
    },
  }
}

/** testkit/agents/java: the OpenTelemetry Java SDK with its OTLP/HTTP exporter, on the JDK's java. */
export function javaAgent(): LanguageAgent {
  const skip = prerequisite((missing('mvn', ['--version']) || missing('javac', ['-version'])) && 'no JDK and Maven (`javac`, `mvn`) on PATH for the Java agent')
  return {
    skip,
    command() {
      const source = join(ROOT, 'testkit/agents/java')
      const dir = join(CACHE, `java-agent-${sourceHash(source)}`)
      const classpath = join(dir, 'target/classpath.txt')
      if (!existsSync(classpath)) {
        rmSync(dir, { recursive: true, force: true })
        cpSync(source, dir, { recursive: true })
        build('Java agent', dir, 'mvn', ['-q', '-B', 'compile', 'dependency:build-classpath', `-Dmdep.outputFile=${classpath}.part`])
        renameSync(`${classpath}.part`, classpath)
      }
      return ['java', '-cp', `${join(dir, 'target/classes')}:${readFileSync(classpath, 'utf8').trim()}`, 'sieve.agent.Main']
    },
  }
}
