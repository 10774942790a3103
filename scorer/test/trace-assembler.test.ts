import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TraceAssembler, type AssemblerOptions } from '../src/assembler/trace-assembler.js'
import { queued, span } from './support/spans.js'

function assembler(options: Partial<AssemblerOptions> = {}) {
  const clock = { ms: 1_000_000 }
  const a = new TraceAssembler({ quietPeriodMs: 3000, maxTraceAgeMs: 60_000, ...options }, () => clock.ms)
  return { a, clock }
}

const ids = (traces: { trace: { spans: { spanId: string }[] } }[]) => traces.map((t) => t.trace.spans.map((s) => s.spanId).sort())

test('a trace closes once its root has arrived and no span came for the quiet period', () => {
  const { a, clock } = assembler()
  a.add(queued([span('t1', 'c1', 'r'), span('t1', 'r')], 0))
  clock.ms += 2999
  assert.deepEqual(a.takeReady(), [])
  clock.ms += 1
  const ready = a.takeReady()
  assert.equal(ready.length, 1)
  assert.equal(ready[0]!.reason, 'complete')
  assert.equal(ready[0]!.trace.complete, true)
  assert.deepEqual(ids(ready), [['c1', 'r']])
})

test('spans out of order, with the root late, close once and complete', () => {
  const { a, clock } = assembler()
  a.add(queued([span('t1', 'c2', 'c1'), span('t1', 'c1', 'r')], 0))
  clock.ms += 10_000 // quiet, but no root yet: keeps waiting
  assert.deepEqual(a.takeReady(), [])
  a.add(queued([span('t1', 'c3', 'r')], 2))
  clock.ms += 10_000
  assert.deepEqual(a.takeReady(), [])
  a.add(queued([span('t1', 'r'), span('t1', 'c1', 'r')], 3)) // the root, and a re-delivered span
  clock.ms += 3000
  const ready = a.takeReady()
  assert.deepEqual(ids(ready), [['c1', 'c2', 'c3', 'r']])
  assert.equal(ready[0]!.trace.complete, true)
  a.finished(ready)
  clock.ms += 100_000
  assert.deepEqual(a.takeReady(), [])
})

test('a trace whose root never arrives closes as incomplete at its maximum age', () => {
  const { a, clock } = assembler()
  a.add(queued([span('t1', 'c1', 'r')], 0))
  clock.ms += 59_999
  assert.deepEqual(a.takeReady(), [])
  clock.ms += 1
  const [closed] = a.takeReady()
  assert.equal(closed?.reason, 'max_age')
  assert.equal(closed?.trace.complete, false)
})

test('past the open-trace limit the oldest trace is evicted as incomplete, and counted', () => {
  const { a } = assembler({ maxOpenTraces: 2 })
  a.add(queued([span('t1', 'a'), span('t2', 'b'), span('t3', 'c')], 0))
  assert.equal(a.openTraces, 2)
  assert.equal(a.evictions, 1)
  const ready = a.takeReady()
  assert.deepEqual(
    ready.map((r) => [r.trace.traceId, r.reason, r.trace.complete]),
    [['t1', 'evicted', false]],
  )
})

test('past the open-span limit traces are evicted until the spans fit', () => {
  const { a } = assembler({ maxOpenSpans: 3 })
  a.add(queued([span('t1', 'a', 'x'), span('t1', 'b', 'x'), span('t2', 'c', 'x'), span('t2', 'd', 'x')], 0))
  assert.equal(a.evictions, 1)
  assert.equal(a.openSpans, 2)
})

test('large spans are bounded by what they weighed: open traces evicted past maxOpenBytes, scored ones forgotten past rememberBytes', () => {
  const { a, clock } = assembler({ maxOpenBytes: 2500, rememberBytes: 2000 })
  const heavy = (spans: ReturnType<typeof span>[], first: number) => queued(spans, first).map((q) => ({ ...q, bytes: 1000 }))
  a.add(heavy([span('t1', 'r'), span('t1', 'c', 'r'), span('t2', 'r')], 0))
  assert.equal(a.evictions, 1, 'three spans of 1,000 bytes are past 2,500')
  assert.equal(a.openBytes, 1000)
  assert.equal(a.unscoredBytes, 2000)
  clock.ms += 3000
  const ready = a.takeReady()
  assert.deepEqual(
    ready.map((r) => r.trace.traceId),
    ['t1', 't2'],
  )
  assert.equal(a.unscoredBytes, 3000)
  a.finished(ready)
  assert.equal(a.unscoredBytes, 0)
  // t1 (2,000 bytes) and t2 (1,000) do not both fit in 2,000 remembered bytes: the older is forgotten.
  a.add(heavy([span('t1', 'late', 'r')], 3))
  a.add(heavy([span('t2', 'late', 'r')], 4))
  // The late t1 span starts a rootless trace, evicted at once: with reopened t2 it makes 3,000 open bytes.
  clock.ms += 3000
  const again = a.takeReady()
  assert.deepEqual(
    again.map((r) => [r.trace.traceId, r.trace.spans.length, r.rescore]),
    [
      ['t1', 1, false],
      ['t2', 2, true],
    ],
  )
})

test('offsets are committed only up to the oldest span of a trace not yet stored', () => {
  const { a, clock } = assembler()
  a.add(queued([span('tA', 'r'), span('tB', 'c', 'r'), span('tA', 'c', 'r')], 0)) // tA: 0, 2; tB: 1 (no root)
  assert.deepEqual([...a.commitPoints()], [[0, '0']])
  clock.ms += 3000
  const [closedA] = a.takeReady()
  assert.equal(closedA?.trace.traceId, 'tA')
  assert.deepEqual([...a.commitPoints()], []) // being scored: still holds offset 0
  a.failed([closedA!])
  assert.deepEqual([...a.commitPoints()], [])
  const [again] = a.takeReady()
  a.finished([again!])
  assert.deepEqual([...a.commitPoints()], [[0, '1']]) // tB, still open, starts at 1
  a.add(queued([span('tB', 'r')], 3))
  clock.ms += 3000
  a.finished(a.takeReady())
  assert.deepEqual([...a.commitPoints()], [[0, '4']])
})

test('a late span of a scored trace reopens it with all its spans, to be scored again', () => {
  const { a, clock } = assembler()
  a.add(queued([span('t1', 'r'), span('t1', 'c1', 'r')], 0))
  clock.ms += 3000
  const first = a.takeReady()
  a.finished(first)
  a.add(queued([span('t1', 'c1', 'r')], 2)) // re-delivered: ignored
  clock.ms += 3000
  assert.deepEqual(a.takeReady(), [])
  a.add(queued([span('t1', 'c2', 'r')], 3)) // late
  assert.equal(a.lateSpans, 1)
  clock.ms += 3000
  const second = a.takeReady()
  assert.equal(second[0]?.rescore, true)
  assert.deepEqual(ids(second), [['c1', 'c2', 'r']])
})

test('a span arriving while its trace is being scored reopens it with every span', () => {
  const { a, clock } = assembler()
  a.add(queued([span('t1', 'r')], 0))
  clock.ms += 3000
  const inFlight = a.takeReady()
  a.add(queued([span('t1', 'c1', 'r')], 1))
  a.finished(inFlight)
  assert.deepEqual([...a.commitPoints()], [[0, '1']])
  clock.ms += 3000
  const again = a.takeReady()
  assert.deepEqual(ids(again), [['c1', 'r']])
  assert.equal(again[0]!.trace.complete, true)
})

test('traces of different projects with the same trace id are kept apart', () => {
  const { a, clock } = assembler()
  a.add(queued([span('t1', 'r', '', 'p1'), span('t1', 'r', '', 'p2')], 0))
  clock.ms += 3000
  assert.deepEqual(
    a
      .takeReady()
      .map((r) => r.trace.projectId)
      .sort(),
    ['p1', 'p2'],
  )
})

const stored = (traceId: string, spans: ReturnType<typeof span>[]) => ({ projectId: 'p1', traceId, spans, complete: spans.some((s) => s.parentSpanId === '') })

test('traces restored from storage close by the usual rules, counted from when their spans arrived', () => {
  const { a, clock } = assembler()
  const now = clock.ms
  a.restore(stored('old', [span('old', 'c', 'r')]), now - 60_000, now - 50_000, false) // rootless, past its maximum age
  a.restore(stored('young', [span('young', 'c', 'r')]), now - 10_000, now - 5_000, false) // rootless, 50 s of age left
  a.restore(stored('done', [span('done', 'r'), span('done', 'c', 'r')]), now - 9_000, now - 4_000, true) // quiet period long past
  a.restore(stored('fresh', [span('fresh', 'r')]), now - 1_000, now - 1_000, false) // 2 s of quiet period left
  assert.equal(a.unfinishedTraces, 4)
  assert.equal(a.unfinishedSince(), now - 60_000)
  const first = a.takeReady()
  assert.deepEqual(
    first.map((c) => [c.trace.traceId, c.reason, c.trace.complete, c.rescore]),
    [
      ['done', 'complete', true, true],
      ['old', 'max_age', false, false],
    ],
  )
  a.finished(first)
  assert.equal(a.unfinishedSince(), now - 10_000)
  // The young trace's root arrives from the queue: it joins the restored spans and closes whole.
  a.add(queued([span('young', 'r')], 0))
  clock.ms += 3000
  const second = a.takeReady()
  assert.deepEqual(
    second.map((c) => [c.trace.traceId, c.reason]),
    [
      ['fresh', 'complete'],
      ['young', 'complete'],
    ],
  )
  assert.deepEqual(ids(second), [['r'], ['c', 'r']])
  a.finished(second)
  assert.equal(a.unfinishedSince(), undefined)
  // Only the span that came through the queue has an offset to commit.
  assert.deepEqual([...a.commitPoints()], [[0, '1']])
})

test('a restored trace holds the commit point of the queued spans that join it only', () => {
  const { a, clock } = assembler()
  a.restore(stored('t1', [span('t1', 'c', 'r')]), clock.ms, clock.ms, false)
  assert.deepEqual([...a.commitPoints()], [])
  a.add(queued([span('t2', 'r')], 0))
  a.add(queued([span('t1', 'c2', 'r')], 1))
  clock.ms += 3000
  a.finished(a.takeReady()) // t2; t1 is still rootless
  assert.deepEqual([...a.commitPoints()], [[0, '1']])
})
