import assert from 'node:assert/strict'
import { test } from 'node:test'
// @ts-expect-error snappyjs ships no type declarations.
import snappyjs from 'snappyjs'
import { snappyCodec } from '../src/snappy-codec.js'

const js = snappyjs as { compress(b: Buffer): Buffer; uncompress(b: Buffer): Buffer }
const codec = snappyCodec()
const records = Buffer.from(
  JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ span: i, name: 'chat gpt-4o', content: 'Where is my order? '.repeat(i % 7) }))),
)

test('batches are raw Snappy, as the pure-JS codec wrote and reads them, both ways', async () => {
  const compressed = await codec.compress({ buffer: records })
  assert.ok(compressed.length < records.length / 3, `${compressed.length} of ${records.length} bytes`)
  assert.deepEqual(js.uncompress(compressed), records)
  assert.deepEqual(await codec.decompress(js.compress(records)), records)
})

test('xerial-framed Snappy, as Java clients write it, reads block by block', async () => {
  const blocks = [records.subarray(0, 30_000), records.subarray(30_000)]
  const header = Buffer.from([130, 83, 78, 65, 80, 80, 89, 0, 0, 0, 0, 1, 0, 0, 0, 1])
  const framed = Buffer.concat([
    header,
    ...blocks.flatMap((block) => {
      const compressed = js.compress(block)
      const size = Buffer.alloc(4)
      size.writeUInt32BE(compressed.length)
      return [size, compressed]
    }),
  ])
  assert.deepEqual(await codec.decompress(framed), records)
})
