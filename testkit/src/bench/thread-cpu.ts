import { readFileSync, readdirSync } from 'node:fs'
import { processCpuSeconds } from '../bench-stats.js'

/**
 * CPU seconds a process used so far, per kind of thread, from /proc (Linux). Threads are told
 * apart by name: the engine names its own (MergeMutate..., ThreadPool, ChunkParser, ...); the
 * threads named `node` besides the main one are libuv's pool, where chDB runs each statement,
 * and V8's helpers (garbage collection, compilation).
 */
export type ThreadGroup = 'js main thread' | 'libuv pool and V8 helpers' | 'engine worker threads' | 'engine merges'
export const THREAD_GROUPS: readonly ThreadGroup[] = ['js main thread', 'libuv pool and V8 helpers', 'engine worker threads', 'engine merges']

function groupOf(pid: number, tid: string, name: string): ThreadGroup {
  if (tid === String(pid)) return 'js main thread'
  if (name.startsWith('node')) return 'libuv pool and V8 helpers'
  return name.startsWith('MergeMutate') ? 'engine merges' : 'engine worker threads'
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
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()
      seconds[groupOf(pid, tid, name)] += statCpuSeconds(`/proc/${pid}/task/${tid}/stat`)
    } catch {
      // The thread ended between listing and reading.
    }
  }
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
