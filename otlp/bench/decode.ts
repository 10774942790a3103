import { Session } from 'node:inspector/promises'
import { jsonBatch, protobufBatch } from '@sieve/testkit/bench'
import { decodeJsonRequest, decodeProtobufRequest } from '../src/index.js'

/*
 * Decode speed of the OTLP receiver's two formats on realistic GenAI batches (512 spans), with
 * plain JSON.parse of the same JSON body as the baseline measured in the same run, and the bytes
 * each allocates per span (V8's sampling heap profiler, garbage included): what the garbage
 * collector has to clear after it, on the main thread and on V8's helpers.
 * Run: npm run bench:decode (or -w @sieve/otlp)
 */

const BATCH = 512
const RUNS = 15
const REPEAT = 20

function medianSpansPerSecond(work: () => void): number {
  for (let i = 0; i < REPEAT; i++) work() // warm-up
  const rates: number[] = []
  for (let run = 0; run < RUNS; run++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < REPEAT; i++) work()
    const seconds = Number(process.hrtime.bigint() - start) / 1e9
    rates.push((BATCH * REPEAT) / seconds)
  }
  rates.sort((a, b) => a - b)
  return rates[Math.floor(RUNS / 2)]!
}

const protobuf = protobufBatch(BATCH)
const json = jsonBatch(BATCH)
const jsonText = json.toString('utf8')

const results = {
  'protobuf decode': medianSpansPerSecond(() => decodeProtobufRequest(protobuf, 'bench')),
  'JSON decode': medianSpansPerSecond(() => decodeJsonRequest(json, 'bench')),
  'JSON.parse only (baseline)': medianSpansPerSecond(() => JSON.parse(jsonText)),
}

/** Bytes `work` allocates per span, collected ones included, sampled every KiB. */
async function allocatedPerSpan(work: () => void): Promise<number> {
  const session = new Session()
  session.connect()
  try {
    await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
    for (let i = 0; i < REPEAT; i++) work()
    const { profile } = await session.post('HeapProfiler.stopSampling')
    type Node = (typeof profile)['head']
    const total = (node: Node): number => node.selfSize + node.children.reduce((sum, child) => sum + total(child), 0)
    return total(profile.head) / (BATCH * REPEAT)
  } finally {
    session.disconnect()
  }
}

const work: Record<keyof typeof results, () => void> = {
  'protobuf decode': () => decodeProtobufRequest(protobuf, 'bench'),
  'JSON decode': () => decodeJsonRequest(json, 'bench'),
  'JSON.parse only (baseline)': () => JSON.parse(jsonText),
}
const baseline = results['JSON.parse only (baseline)']
console.log(`batch: ${BATCH} spans, protobuf ${(protobuf.length / 1024).toFixed(0)} KiB, JSON ${(json.length / 1024).toFixed(0)} KiB; median of ${RUNS} runs`)
for (const [name, rate] of Object.entries(results)) {
  const allocated = await allocatedPerSpan(work[name as keyof typeof results])
  console.log(
    `${name.padEnd(28)} ${Math.round(rate).toLocaleString('en-US').padStart(10)} spans/s  ${(rate / baseline).toFixed(2)}x baseline  ${Math.round(allocated).toLocaleString('en-US').padStart(6)} B allocated a span`,
  )
}
