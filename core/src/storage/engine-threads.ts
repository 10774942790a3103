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
 * engine starts threads as it needs them, so they are looked for again `intervalMs` after a scan
 * that found a new one or followed a statement's start or end (`engineStatement`), then less and
 * less often, at most `maxIntervalMs` apart while a statement runs, and not at all once that has
 * passed with no statement and no new thread: the next statement starts the scans again. A
 * thread the engine starts from one already lowered inherits the value.
 * Once per process (the engine is the process's, whichever store opened it), for as long as it
 * runs; on a system without /proc/self/task it does nothing.
 */
export function lowerEngineThreads(nice: number, intervalMs = 1000, maxIntervalMs = 4000): void {
  if (lowering) return
  lowering = true
  const own = nameOf(readStat(process.pid))
  if (own === undefined) return
  // Node's threads stay Node's: read once, not every scan. Reading two files of every thread each
  // second cost an idle process 0.45 ms of main-thread CPU a second (25 threads); the engine's stat
  // alone, 0.17. Forgotten when they end, as a thread id may be reused.
  const nodeThreads = new Set<number>([process.pid])
  const engineThreads = new Set<number>()
  const scan = () => {
    scans++
    let tids: string[]
    try {
      tids = readdirSync('/proc/self/task')
    } catch {
      return
    }
    const live = new Set<number>()
    let started = false
    for (const entry of tids) {
      const tid = Number(entry)
      live.add(tid)
      if (!nodeThreads.has(tid) && !engineThreads.has(tid)) started = true
      if (nodeThreads.has(tid)) continue
      // Read each time for the engine's threads: with CAP_SYS_NICE ClickHouse puts a thread back to 0
      // after a statement, and a pool thread takes the name of the job it runs.
      const stat = readStat(tid)
      const name = nameOf(stat)
      if (stat === undefined || name === undefined) continue
      if (name === own || NODE_THREAD_NAMES.has(name)) {
        nodeThreads.add(tid)
        continue
      }
      engineThreads.add(tid)
      // Only threads at the default are lowered: with CAP_SYS_NICE the engine raises a few of its own
      // on purpose (MemoryWorker at -20).
      if (niceOf(stat) !== 0) continue
      try {
        setPriority(tid, nice)
      } catch {
        // Ended since it was listed: nothing to lower.
      }
    }
    for (const known of [nodeThreads, engineThreads]) for (const tid of known) if (!live.has(tid)) known.delete(tid)
    // Threads start when the engine gets work: scanned again soon then, less and less often while
    // none starts, and not at all while no statement runs (every second, this scan was half an
    // idle process's JavaScript; every 4 s, still a fifth).
    wait = started || worked ? intervalMs : wait * 2
    worked = false
    if (wait <= maxIntervalMs) scheduleIn(wait)
    else if (statements > 0) scheduleIn(maxIntervalMs)
  }
  let wait = intervalMs
  let worked = false
  let timer: NodeJS.Timeout | undefined
  let dueAt = 0
  const scheduleIn = (ms: number) => {
    clearTimeout(timer)
    dueAt = performance.now() + ms
    timer = setTimeout(() => {
      timer = undefined
      scan()
    }, ms).unref()
  }
  atWork = () => {
    worked = true
    if (timer === undefined || dueAt > performance.now() + intervalMs) scheduleIn(intervalMs)
  }
  scan()
}

let lowering = false
let atWork: (() => void) | undefined
let scans = 0
/** Statements the engine runs now. */
let statements = 0

/** How many times this process has looked for the engine's threads (for tests). */
export function engineThreadScans(): number {
  return scans
}

/**
 * Says the engine was given a statement; call what it returns once the statement has ended. The
 * engine's threads are scanned within `intervalMs` of either (see `lowerEngineThreads`), and on
 * while it runs. Cheap enough for every statement; nothing before the engine is opened.
 */
export function engineStatement(): () => void {
  statements++
  atWork?.()
  let ended = false
  return () => {
    if (ended) return
    ended = true
    statements--
    atWork?.()
  }
}

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

/** A thread's name, as its stat gives it between parentheses (the name may hold spaces and parentheses). */
function nameOf(stat: string | undefined): string | undefined {
  return stat === undefined ? undefined : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
}

function readStat(tid: number): string | undefined {
  try {
    return readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
  } catch {
    return undefined
  }
}
