import { readFileSync } from 'node:fs'
import { processCpuSeconds } from '@sieve/testkit'

/**
 * CPU time of this process's main thread, in ms: the scoring thread, without the judge's worker
 * thread or V8's helper threads. Linux's per-thread schedstat (ns); elsewhere the whole process's
 * time, which then also counts the worker thread.
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
