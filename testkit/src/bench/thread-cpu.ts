import { readFileSync, readdirSync } from 'node:fs'
import { processCpuSeconds } from '../bench-stats.js'

/**
 * CPU seconds a process used so far, per kind of thread, from /proc (Linux). The engine names its
 * own threads (MergeMutate..., ThreadPool, ChunkParser, ...). Node's other threads are libuv's pool,
 * where chDB runs each statement (and gzip, file reads), and V8's helpers (garbage collection,
 * compilation) with Node's idle signal and inspector threads.
 */
export type ThreadGroup = 'js main thread' | 'libuv pool' | 'V8 helpers' | 'engine worker threads' | 'engine merges'
export const THREAD_GROUPS: readonly ThreadGroup[] = ['js main thread', 'libuv pool', 'V8 helpers', 'engine worker threads', 'engine merges']

/** Names Node gives its threads from Node 24, by group (Linux cuts names at 15 characters). */
const NODE_THREAD_GROUPS: Record<string, ThreadGroup> = {
  'libuv-worker': 'libuv pool',
  V8Worker: 'V8 helpers',
  DelayedTaskSche: 'V8 helpers',
  SignalInspector: 'V8 helpers',
  Watchdog: 'V8 helpers',
  TraceEventWorke: 'V8 helpers',
  WorkerThread: 'V8 helpers',
}

/**
 * Before Node 24 every thread of Node is named `node`, so they are told apart by the order Node
 * starts them (thread ids rise): at start, V8's platform workers (`--v8-pool-size`, 4 by default),
 * their delayed-task scheduler and the inspector's signal thread; libuv's pool only when first used.
 */
function startupHelpers(pid: number): number {
  const poolSize = /--v8-pool-size=(\d+)/.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1]
  return Number(poolSize ?? 4) + 2
}

function groupsOf(pid: number, threads: readonly { tid: string; name: string }[]): ThreadGroup[] {
  const unnamed = threads.filter((t) => t.name === 'node' && t.tid !== String(pid)).map((t) => Number(t.tid))
  const helpers = new Set(unnamed.sort((a, b) => a - b).slice(0, unnamed.length > 0 ? startupHelpers(pid) : 0))
  return threads.map(({ tid, name }) => {
    if (tid === String(pid)) return 'js main thread'
    if (name === 'node') return helpers.has(Number(tid)) ? 'V8 helpers' : 'libuv pool'
    return NODE_THREAD_GROUPS[name] ?? (name.startsWith('MergeMutate') ? 'engine merges' : 'engine worker threads')
  })
}

/** The fields of a /proc stat file after the command name: state is [0], utime [11], stime [12], cutime [13], cstime [14]. */
const statFields = (statFile: string): string[] => readFileSync(statFile, 'utf8').split(') ')[1]!.split(' ')

/** utime + stime of a /proc stat file, in seconds (clock ticks of 1/100 s). */
function statCpuSeconds(statFile: string): number {
  const fields = statFields(statFile)
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** CPU seconds this process's children used, those that have exited and been waited for (cutime + cstime). */
export function childrenCpuSeconds(): number {
  const fields = statFields('/proc/self/stat')
  return (Number(fields[13]) + Number(fields[14])) / 100
}

/** CPU seconds process `pid` used so far, all its threads. */
export function cpuSecondsOf(pid: number): number {
  return statCpuSeconds(`/proc/${pid}/stat`)
}

export function threadCpu(pid: number): Record<ThreadGroup, number> {
  const seconds = Object.fromEntries(THREAD_GROUPS.map((g) => [g, 0])) as Record<ThreadGroup, number>
  const threads: { tid: string; name: string; cpu: number }[] = []
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      threads.push({ tid, name, cpu: statCpuSeconds(`/proc/${pid}/task/${tid}/stat`) })
    } catch {
      // The thread ended between listing and reading.
    }
  }
  const groups = groupsOf(pid, threads)
  threads.forEach((t, i) => {
    seconds[groups[i]!] += t.cpu
  })
  return seconds
}

/**
 * CPU time of this process's main thread, in ms: the thread that runs the JS being measured, without
 * worker threads or V8's helpers. Linux's per-thread schedstat (ns); elsewhere the whole process's
 * time, which then also counts the other threads (`perThread` says which).
 */
const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`

function readSchedstat(): number | undefined {
  try {
    return Number(readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return undefined
  }
}

export const perThread = readSchedstat() !== undefined

export function mainThreadCpuMs(): number {
  return readSchedstat() ?? processCpuMs()
}

export function processCpuMs(): number {
  return processCpuSeconds() * 1000
}
