import assert from 'node:assert/strict'
import { test } from 'node:test'
import { nextTurn, TimeSlice } from '../src/time-slice.js'

/**
 * Counts passes of the event loop: an immediate that queues itself again runs once in each check
 * phase (where, among the turns of that phase, depends on when it was queued).
 */
function passCounter(): { readonly pass: number; stop(): void } {
  let pass = 0
  let running = true
  const tick = () => {
    pass++
    if (running) setImmediate(tick)
  }
  setImmediate(tick)
  return {
    get pass() {
      return pass
    },
    stop: () => void (running = false),
  }
}

function busyFor(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

/** Runs `tasks` sliced loops of `slices` slices at once, each slice busy for `sliceMs`; returns the pass of every slice. */
async function turnsOf(tasks: string[], slices: number, sliceMs: number): Promise<{ who: string; pass: number }[]> {
  const loop = passCounter()
  const turns: { who: string; pass: number }[] = []
  const sliced = async (who: string) => {
    // A zero budget: every yield waits for a turn, as a loop past its 20 ms does.
    const slice = new TimeSlice(0)
    for (let i = 0; i < slices; i++) {
      await slice.yield()
      turns.push({ who, pass: loop.pass })
      busyFor(sliceMs)
    }
  }
  await Promise.all(tasks.map(sliced))
  loop.stop()
  return turns
}

function mostInOnePass(turns: { pass: number }[]): number {
  const perPass = new Map<number, number>()
  for (const { pass } of turns) perPass.set(pass, (perPass.get(pass) ?? 0) + 1)
  return Math.max(...perPass.values())
}

test('turns are given first come, first served, whoever asks', async () => {
  const turns: string[] = []
  const decode = async () => {
    await nextTurn()
    turns.push('decode')
  }
  const sliced = async (who: string) => {
    await new TimeSlice(0).yield()
    turns.push(who)
  }
  await Promise.all([sliced('insert'), sliced('scores'), decode(), sliced('scorer')])
  assert.deepEqual(turns, ['insert', 'scores', 'decode', 'scorer'])
})

test('a pass gives turns only until they have run for its budget: long slices of many loops are spread over passes', async () => {
  const turns = await turnsOf(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], 2, 15)
  assert.equal(turns.length, 20)
  // 40 ms a pass: its turns start at 0, 15 and 30 ms at the latest; the one at 45 waits. The counter
  // may tick amid a pass, so between two ticks come the end of one pass and the start of the next.
  assert.ok(mostInOnePass(turns) <= 6, `at most 3 turns of 15 ms a pass: ${JSON.stringify(turns)}`)
})

test('short turns share a pass: the work behind them is not held to one turn a pass', async () => {
  const turns = await turnsOf(['a', 'b', 'c', 'd'], 3, 0)
  assert.ok(mostInOnePass(turns) >= 4, `several short turns in one pass: ${JSON.stringify(turns)}`)
})
