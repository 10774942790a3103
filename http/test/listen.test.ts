import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import express from 'express'
import { listen } from '../src/index.js'

test('a port in use or an address the machine lacks is refused in words that name it', async () => {
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  const { port } = taken.address() as AddressInfo
  try {
    await assert.rejects(listen(express(), '127.0.0.1', port), {
      message: `cannot listen on 127.0.0.1:${port}: the address is in use (another Sieve, or another server on that port)`,
    })
  } finally {
    taken.close()
  }
  // TEST-NET-1 (RFC 5737): never a local interface.
  await assert.rejects(listen(express(), '192.0.2.1', 0), { message: 'cannot listen on 192.0.2.1:0: no network interface of this machine has that address' })
})
