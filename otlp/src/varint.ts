/** Bytes a protobuf varint of the unsigned 32-bit `n` takes. */
export const varintSize = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5)

/** Writes the unsigned 32-bit `n` as a protobuf varint at `pos`; returns the position after it. */
export function writeVarint(out: Buffer, pos: number, n: number): number {
  while (n >= 0x80) {
    out[pos++] = (n & 0x7f) | 0x80
    n >>>= 7
  }
  out[pos++] = n
  return pos
}

/** The unsigned 32-bit `n` as a protobuf varint of its own. */
export function varintBytes(n: number): Buffer {
  const out = Buffer.allocUnsafe(varintSize(n))
  writeVarint(out, 0, n)
  return out
}
