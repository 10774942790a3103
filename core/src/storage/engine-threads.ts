import { readdirSync, readFileSync } from 'node:fs'
import { setPriority } from 'node:os'

/**
 * Keeps the embedded engine's threads at nice `nice`, in any process. ClickHouse's own
 * `os_thread_priority` acts only with CAP_SYS_NICE (root), because it also resets the value after
 * each statement; raising the nice value of one's own threads needs no privilege, so this does it
 * for the engine as a whole, in the image (user `node`) and under Helm (capabilities dropped) too.
 *
 * The engine's threads are told from Node's by name: the engine names each thread it starts
 * (ThreadPool, MergeMutate, BgSchPool...), and Node's own are in NODE_THREAD_NAMES. V8's helpers
 * (garbage collection among their work) and libuv's pool keep the main thread's priority. The
 * engine starts threads as it needs them, so they are looked for again every `intervalMs`; a thread
 * the engine starts from one already lowered inherits the value.
 * Once per process (the engine is the process's, whichever store opened it), for as long as it
 * runs; on a system without /proc/self/task it does nothing.
 */
export function lowerEngineThreads(nice: number, intervalMs = 1000): void {
  if (lowering) return
  lowering = true
  const own = readTask(process.pid, 'comm')
  if (own === undefined) return
  const scan = () => {
    let tids: string[]
    try {
      tids = readdirSync('/proc/self/task')
    } catch {
      return
    }
    for (const entry of tids) {
      const tid = Number(entry)
      const name = readTask(tid, 'comm')
      if (tid === process.pid || name === undefined || name === own || NODE_THREAD_NAMES.has(name)) continue
      // Read each time, not remembered: with CAP_SYS_NICE ClickHouse puts a thread back to 0 after a
      // statement. Only threads at the default are lowered: with it, the engine raises a few of its
      // own on purpose (MemoryWorker at -20).
      const stat = readTask(tid, 'stat')
      if (stat === undefined || niceOf(stat) !== 0) continue
      try {
        setPriority(tid, nice)
      } catch {
        // Ended since it was listed: nothing to lower.
      }
    }
  }
  scan()
  setInterval(scan, intervalMs).unref()
}

let lowering = false

/**
 * What Node names its own threads (Linux keeps 15 characters). Up to Node 22 every one keeps the
 * executable's name; from Node 24 (the image's): the main thread, libuv's pool, V8's helpers, worker
 * threads without a name of their own, and Node's helpers.
 */
export const NODE_THREAD_NAMES: ReadonlySet<string> = new Set([
  'node',
  'MainThread',
  'libuv-worker',
  'V8Worker',
  'WorkerThread',
  'DelayedTaskSche',
  'SignalInspector',
  'Watchdog',
  'TraceEventWorke',
])

/** A thread's nice value: the 19th field of its stat, counted after the name (which may hold spaces). */
export function niceOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
}

function readTask(tid: number, file: 'comm' | 'stat'): string | undefined {
  try {
    const text = readFileSync(`/proc/self/task/${tid}/${file}`, 'utf8')
    return file === 'comm' ? text.trimEnd() : text
  } catch {
    return undefined
  }
}
