import assert from 'node:assert/strict'
import { test } from 'node:test'
import { nextTurn, TimeSlice } from '../src/time-slice.js'

/** Counts passes of the event loop: an immediate that queues itself again runs once in each check phase. */
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

test('sliced loops and decodes running at once take one turn per pass of the event loop, in order', async () => {
  const loop = passCounter()
  const turns: { who: string; pass: number }[] = []
  const sliced = async (who: string) => {
    // A zero budget: every yield waits for a turn, as a loop past its 20 ms does.
    const slice = new TimeSlice(0)
    for (let i = 0; i < 4; i++) {
      await slice.yield()
      turns.push({ who, pass: loop.pass })
    }
  }
  const decode = async () => {
    await nextTurn()
    turns.push({ who: 'decode', pass: loop.pass })
  }
  await Promise.all([sliced('insert'), sliced('scores'), decode(), sliced('scorer')])
  loop.stop()
  assert.equal(turns.length, 13)
  const passes = turns.map((t) => t.pass)
  assert.equal(new Set(passes).size, passes.length, `no two turns in one pass: ${JSON.stringify(turns)}`)
  assert.deepEqual(
    turns.slice(0, 4).map((t) => t.who),
    ['insert', 'scores', 'decode', 'scorer'],
    'first come, first served',
  )
})
