import { createRequire } from 'node:module'

/**
 * Snappy for kafkajs: the native library (the `snappy` package's prebuilt binary) where it is
 * installed, else snappyjs. The pure-JS codec was a fifth of the collector's main-thread CPU into
 * Kafka (a CPU profile of bench:ingest -- --kafka), and its decompression 3 ms of the ingester's
 * per 1,000 spans where the native library takes 0.4-1.4. The binary is an optional dependency of
 * `snappy`: an install with --omit=optional has none (deploy/runtime-tree.sh copies it into the
 * image), and then the Kafka roles compress in JS rather than failing to start.
 *
 * Batches are written as raw Snappy, as kafkajs-snappy wrote them and every client reads them.
 * Java clients write xerial-framed Snappy (a magic header, then length-prefixed blocks), which
 * decompress reads block by block.
 */
interface Snappy {
  compress(input: Buffer): Buffer
  uncompress(input: Buffer): Buffer
}

function loadSnappy(): Snappy {
  const require = createRequire(import.meta.url)
  try {
    const native = require('snappy') as { compressSync(b: Buffer): Buffer; uncompressSync(b: Buffer): Buffer | string }
    return { compress: native.compressSync, uncompress: (b) => native.uncompressSync(b) as Buffer }
  } catch {
    // snappyjs ships no type declarations: compress and uncompress, Buffer in, Buffer out.
    const js = require('snappyjs') as { compress(b: Buffer): Buffer; uncompress(b: Buffer): Buffer }
    return { compress: (b) => js.compress(b), uncompress: (b) => js.uncompress(b) }
  }
}

/** Loaded at the first batch: a process that never talks to Kafka (the embedded queue) loads neither. */
let loaded: Snappy | undefined
const snappy = (): Snappy => (loaded ??= loadSnappy())

const XERIAL_HEADER = Buffer.from([130, 83, 78, 65, 80, 80, 89, 0])
/** The header, then a version and a compatible version of 4 bytes each. */
const XERIAL_BLOCKS_AT = 16

function uncompressXerial(buffer: Buffer): Buffer {
  const blocks: Buffer[] = []
  for (let offset = XERIAL_BLOCKS_AT; offset + 4 <= buffer.length; ) {
    const size = buffer.readUInt32BE(offset)
    offset += 4
    blocks.push(snappy().uncompress(buffer.subarray(offset, offset + size)))
    offset += size
  }
  return Buffer.concat(blocks)
}

/** A kafkajs codec factory, as kafkajs.CompressionCodecs takes. */
export const snappyCodec = () => ({
  async compress(encoder: { buffer: Buffer }): Promise<Buffer> {
    return snappy().compress(encoder.buffer)
  },
  async decompress(buffer: Buffer): Promise<Buffer> {
    return buffer.subarray(0, 8).equals(XERIAL_HEADER) ? uncompressXerial(buffer) : snappy().uncompress(buffer)
  },
})
