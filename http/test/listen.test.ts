import assert from 'node:assert/strict'
import http from 'node:http'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import express from 'express'
import { KEEP_ALIVE_TIMEOUT_MS, listen } from '../src/index.js'

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

test('a kept-alive connection left idle for longer than an OpenTelemetry export interval is still open for the next request', async () => {
  const app = express().get('/ping', (_req, res) => {
    res.send('pong')
  })
  const server = await listen(app, '127.0.0.1', 0)
  // Like Go's transport or Python's urllib3: the sender keeps its idle connections and ignores the
  // Keep-Alive hint, so the server must not be the one that closes them between two exports.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const get = () =>
    new Promise<{ status: number; reused: boolean; keepAlive: unknown }>((resolve, reject) => {
      const req = http.get(`${server.url}/ping`, { agent }, (res) => {
        res.resume()
        res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket, keepAlive: res.headers['keep-alive'] }))
      })
      req.on('error', reject)
    })
  try {
    const first = await get()
    assert.deepEqual(first, { status: 200, reused: false, keepAlive: `timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}` })
    // Past Node's default (5 s, and its 1 s margin), which closed the connection here.
    await sleep(7_000)
    assert.deepEqual(await get(), { status: 200, reused: true, keepAlive: `timeout=${KEEP_ALIVE_TIMEOUT_MS / 1000}` })
  } finally {
    agent.destroy()
    await server.stop()
  }
})
