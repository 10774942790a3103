import { OtlpDecodeError } from './otlp-error.js'

/**
 * A cursor over protobuf wire format, just what OTLP trace messages need. Bounds are checked
 * against the end of the enclosing message so a truncated or lying length prefix is reported
 * instead of read past.
 */
export class WireReader {
  pos = 0

  constructor(readonly buf: Buffer) {}

  fail(what: string): never {
    throw new OtlpDecodeError('PROTOBUF_MALFORMED', `malformed protobuf: ${what} at byte ${this.pos} of ${this.buf.length}`)
  }

  /** A varint that fits 32 bits (tags, lengths, enums, counts); wider values keep their low 32 bits. */
  uint32(end: number): number {
    const buf = this.buf
    let pos = this.pos
    let b = buf[pos++]!
    let value = b & 0x7f
    if (b >= 0x80) {
      b = buf[pos++]!
      value |= (b & 0x7f) << 7
      if (b >= 0x80) {
        b = buf[pos++]!
        value |= (b & 0x7f) << 14
        if (b >= 0x80) {
          b = buf[pos++]!
          value |= (b & 0x7f) << 21
          if (b >= 0x80) {
            b = buf[pos++]!
            value += (b & 0x0f) * 0x10000000
            // Bytes 6..10 of a 64-bit varint carry bits this reader does not keep.
            let extra = 0
            while (b >= 0x80 && extra++ < 5) b = buf[pos++]!
            if (b >= 0x80) this.fail('varint longer than 10 bytes')
            value >>>= 0
          }
        }
      }
    }
    if (pos > end) this.fail('truncated varint')
    this.pos = pos
    return value >>> 0
  }

  /** A 64-bit varint as a two's-complement int64, exact: a number when safe, else a decimal string. */
  int64(end: number): number | string {
    const buf = this.buf
    let lo = 0
    let hi = 0
    let shift = 0
    let pos = this.pos
    let b: number
    // Low 28 bits, then 4 bits straddling the halves, then the high bits.
    do {
      if (pos >= end) this.fail('truncated varint')
      b = buf[pos++]!
      if (shift < 28) lo |= (b & 0x7f) << shift
      else if (shift === 28) {
        lo |= (b & 0x0f) << 28
        hi |= (b & 0x7f) >> 4
      } else if (shift < 64) hi |= (b & 0x7f) << (shift - 32)
      else this.fail('varint longer than 10 bytes')
      shift += 7
    } while (b >= 0x80)
    this.pos = pos
    lo >>>= 0
    if (hi === 0) return lo
    if (hi > 0 && hi < 0x200000) return hi * 0x100000000 + lo
    const big = BigInt.asIntN(64, (BigInt(hi >>> 0) << 32n) | BigInt(lo))
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString()
  }

  fixed32(end: number): number {
    if (this.pos + 4 > end) this.fail('truncated fixed32')
    const v = this.buf.readUInt32LE(this.pos)
    this.pos += 4
    return v
  }

  /** An unsigned fixed64 as an exact decimal string (nanosecond timestamps exceed 2^53). */
  fixed64Decimal(end: number): string {
    if (this.pos + 8 > end) this.fail('truncated fixed64')
    const lo = this.buf.readUInt32LE(this.pos)
    const hi = this.buf.readUInt32LE(this.pos + 4)
    this.pos += 8
    if (hi < 0x200000) return String(hi * 0x100000000 + lo)
    return this.buf.readBigUInt64LE(this.pos - 8).toString()
  }

  double(end: number): number {
    if (this.pos + 8 > end) this.fail('truncated fixed64')
    const v = this.buf.readDoubleLE(this.pos)
    this.pos += 8
    return v
  }

  /** Reads a length prefix and returns where the delimited field ends (it starts at `pos`). */
  delimitedEnd(end: number): number {
    const len = this.uint32(end)
    const fieldEnd = this.pos + len
    if (fieldEnd > end) this.fail(`length ${len} runs past the end of its message`)
    return fieldEnd
  }

  string(end: number): string {
    const fieldEnd = this.delimitedEnd(end)
    const start = this.pos
    this.pos = fieldEnd
    return utf8(this.buf, start, fieldEnd)
  }

  /**
   * An attribute key. Keys repeat from span to span, and an object property set with a string
   * V8 has seen before is much cheaper than one with a fresh string, so keys are interned.
   */
  key(end: number): string {
    const fieldEnd = this.delimitedEnd(end)
    const start = this.pos
    this.pos = fieldEnd
    const len = fieldEnd - start
    if (len === 0 || len > 64) return utf8(this.buf, start, fieldEnd)
    const buf = this.buf
    // A cheap slot from a few bytes; the full comparison below keeps collisions harmless.
    const slot = (len * 7 + buf[start]! * 31 + buf[start + (len >> 1)]! * 17 + buf[fieldEnd - 1]! * 3) & (KEY_SLOTS - 1)
    const cached = keyCache[slot]
    if (cached !== undefined && cached.bytes.length === len && sameBytes(cached.bytes, buf, start)) return cached.text
    const text = utf8(buf, start, fieldEnd)
    keyCache[slot] = { bytes: Uint8Array.prototype.slice.call(buf, start, fieldEnd), text }
    return text
  }

  /** Bytes as lower-case hex, the form ids take everywhere in Sieve. */
  hex(end: number): string {
    const fieldEnd = this.delimitedEnd(end)
    const out = (this.buf as SlicingBuffer).hexSlice(this.pos, fieldEnd)
    this.pos = fieldEnd
    return out
  }

  base64(end: number): string {
    const fieldEnd = this.delimitedEnd(end)
    const out = this.buf.toString('base64', this.pos, fieldEnd)
    this.pos = fieldEnd
    return out
  }

  /** Skips a field this decoder does not read, whatever its wire type. */
  skip(wireType: number, end: number): void {
    switch (wireType) {
      case 0:
        this.int64(end)
        return
      case 1:
        if (this.pos + 8 > end) this.fail('truncated fixed64')
        this.pos += 8
        return
      case 2:
        this.pos = this.delimitedEnd(end)
        return
      case 5:
        if (this.pos + 4 > end) this.fail('truncated fixed32')
        this.pos += 4
        return
      default:
        this.fail(`unsupported wire type ${wireType}`)
    }
  }
}

const KEY_SLOTS = 1024
const keyCache: ({ bytes: Uint8Array; text: string } | undefined)[] = new Array(KEY_SLOTS).fill(undefined)

function sameBytes(a: Uint8Array, buf: Buffer, start: number): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== buf[start + i]) return false
  return true
}

/**
 * The bindings `Buffer#toString` ends in, called without its argument checks, as protobufjs reads
 * strings. One string allocated per field: built in JS a character (or a hex pair) at a time, a
 * trace id left 16 intermediate strings behind, and the decoder allocated 4.7 KB a 1 KB span.
 */
interface SlicingBuffer extends Buffer {
  utf8Slice(start: number, end: number): string
  hexSlice(start: number, end: number): string
}

const utf8 = (buf: Buffer, start: number, end: number): string => (buf as SlicingBuffer).utf8Slice(start, end)
