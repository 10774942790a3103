import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { until } from '../until.js'
import type { SieveUp } from './sieve-up.js'

/**
 * CPU profiles of a role's main thread, taken while a benchmark runs (SIGUSR2 starts V8's sampling
 * profiler in the role and writes what it sampled, see cli/src/cpu-profile.ts), and read two ways:
 * the self time of each pipeline stage (`stagesOf`, bench:pipeline), and what the main thread did
 * during each event-loop stall (`stallParts`, the soak's `--profile`).
 */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string }; children?: number[] }[]
  /** µs on the monotonic clock of `process.hrtime`. */
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

/** Source files by stage, first match wins; self time elsewhere is `other JS`. */
export const PIPELINE_STAGES: [string, RegExp][] = [
  [
    'receive + decode',
    /(collector|http)\/src\/(receiver\/|http-app)|otlp\/src\/|node_modules\/(express|router|body-parser|raw-body)\/|node:_http|node:net|node:stream/,
  ],
  ['queue', /queue\/src\//],
  // create-storage: the embedded connection's insertRows; insert-compact-rows encodes its rows (and the score rows' too).
  ['span insert (JS)', /core\/src\/storage\/(insert-spans|span-rows?|create-storage|insert-compact-rows)|core\/src\/span-values|@clickhouse\/client|chdb\//],
  ['rollup + progress', /ingester\/src\/|core\/src\/storage\/(progress|trace-rollup)/],
  ['trace assembly', /scorer\/src\/assembler\//],
  ['trace view + conversation', /scoring\/src\/trace\/|core\/src\/(conversation|content|genai|conventions|json-value)/],
  ['checks', /scoring\/src\/checks\/|pii\/src\//],
  ['score records + write', /(scorer|scoring)\/src\/(scores|scorecard)\/|scoring\/src\/score-trace/],
  ['garbage collection', /^\(garbage collector\)$/],
]

/** Builtins (JSON.parse, RegExp, Buffer copies) have neither a file nor, often, a name. */
const sourceOf = (frame: { functionName: string; url: string }) => frame.url || frame.functionName || '(native code)'

/** The stage of a sampled frame, by its source file. */
const stageOfFrame = (frame: { functionName: string; url: string }) => PIPELINE_STAGES.find(([, re]) => re.test(sourceOf(frame)))?.[0] ?? 'other JS'

/** Each sample's duration in ms: the delta to the next sample. */
const sampleMs = (profile: CpuProfile, i: number) => (profile.timeDeltas[i + 1] ?? 0) / 1000

/** Main-thread CPU ms per stage in a profile (idle left out), from each sample's own duration; `unstaged`: per source file. */
export function stagesOf(profile: CpuProfile, unstaged: Map<string, number>): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const ms = new Map<string, number>()
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)!.callFrame
    if (frame.functionName === '(idle)' || frame.functionName === '(program)') return
    const stage = stageOfFrame(frame)
    const dt = sampleMs(profile, i)
    ms.set(stage, (ms.get(stage) ?? 0) + dt)
    if (stage === 'other JS') unstaged.set(sourceOf(frame), (unstaged.get(sourceOf(frame)) ?? 0) + dt)
  })
  return ms
}

/** The role's main thread profiled while `work` runs; `dir` is where the role writes profiles (`<data dir>/profiles`). */
export async function profileWindow(role: SieveUp, dir: string, work: () => Promise<void>): Promise<CpuProfile> {
  const before = new Set(existsSync(dir) ? readdirSync(dir) : [])
  role.child.kill('SIGUSR2')
  await sleep(300)
  await work()
  role.child.kill('SIGUSR2')
  let file: string | undefined
  await until('the cpu profile', async () => {
    file = existsSync(dir) ? readdirSync(dir).find((f) => !before.has(f)) : undefined
    return file !== undefined
  })
  await sleep(200)
  return JSON.parse(readFileSync(join(dir, file!), 'utf8')) as CpuProfile
}

/** The environment that makes a role record its stalls over `thresholdMs` into `file` (stall-recorder.mjs). */
export function stallRecorderEnv(file: string, thresholdMs = 100): Record<string, string> {
  const recorder = fileURLToPath(new URL('./stall-recorder.mjs', import.meta.url))
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${recorder}`.trim(),
    SIEVE_BENCH_STALL_LOG: file,
    SIEVE_BENCH_STALL_MS: String(thresholdMs),
  }
}

export interface Stall {
  /** µs on the profiles' clock. */
  fromUs: number
  toUs: number
}

export function readStalls(file: string): Stall[] {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [fromUs, toUs] = line.split(' ').map(Number) as [number, number]
      return { fromUs, toUs }
    })
}

/**
 * What the main thread did during each stall inside the profile, in ms by part: `garbage
 * collection`; `not running` (the profiler found the thread waiting for I/O although a timer was
 * overdue: it was not given a CPU); `native code` (outside JS: syscalls, the engine's calls made on
 * this thread); `requests: routing and answers` (parsing headers, the routers, writing answers,
 * refused requests included); else the pipeline stage of the sampled frame.
 */
export function stallParts(profile: CpuProfile, stalls: readonly Stall[]): { ms: number; parts: Map<string, number> }[] {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parentOf = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id)
  const partOfNode = new Map<number, string>()
  const partOf = (id: number): string => {
    const known = partOfNode.get(id)
    if (known) return known
    const leaf = byId.get(id)!.callFrame
    let part: string
    if (leaf.functionName === '(garbage collector)') part = 'garbage collection'
    else if (leaf.functionName === '(idle)') part = 'not running'
    else if (leaf.functionName === '(program)') part = 'native code'
    else {
      part = stageOfFrame(leaf)
      if (part === 'other JS' && leaf.url.startsWith('node:')) part = "Node's own JS (timers, streams, sockets)"
      for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
        if (byId.get(at)!.callFrame.functionName === 'parserOnHeadersComplete') part = 'requests: routing and answers'
      }
    }
    partOfNode.set(id, part)
    return part
  }
  // Sample i was taken at startTime + the deltas up to i; it stands for the time until the next one.
  const at: number[] = []
  let t = profile.startTime
  for (const d of profile.timeDeltas) at.push((t += d))
  return stalls
    .filter((s) => s.fromUs >= profile.startTime && s.toUs <= profile.endTime)
    .map((s) => {
      const parts = new Map<string, number>()
      profile.samples.forEach((id, i) => {
        // The sample stands for the time until the next one: only its overlap with the stall counts.
        const overlapUs = Math.min(s.toUs, at[i + 1] ?? at[i]!) - Math.max(s.fromUs, at[i]!)
        if (overlapUs <= 0) return
        const part = partOf(id)
        parts.set(part, (parts.get(part) ?? 0) + overlapUs / 1000)
      })
      return { ms: (s.toUs - s.fromUs) / 1000, parts }
    })
}
