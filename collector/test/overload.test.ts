import assert from 'node:assert/strict'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { createHttpApp, listen } from '../src/index.js'

/**
 * A client on a thread of its own, so it keeps sending while the server's thread is stalled: one
 * request on a kept-alive connection, then (told to) a second one on the same connection.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const get = () => new Promise((resolve) => {
  const req = http.get(workerData.url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(String(res.statusCode))) })
  req.on('error', (err) => resolve(err.code ?? err.message))
})
parentPort.on('message', async (what) => parentPort.postMessage(await get()))
`

describe('under overload every request gets an answer', () => {
  test('a request sent on a kept-alive connection while the event loop is stalled past the keep-alive timeout is answered', async () => {
    const app = createHttpApp({ name: 'test', notReady: async () => undefined, routers: [], log: () => {} })
    const server = await listen(app, '127.0.0.1', 0)
    const client = new Worker(CLIENT, { eval: true, workerData: { url: `${server.url}/healthz` } })
    try {
      client.postMessage('first')
      assert.equal((await once(client, 'message'))[0], '200')
      // The second request leaves while this thread is blocked for longer than the server keeps an
      // idle connection (5 s, and Node's 1 s margin): what a long decode or a major GC does to a
      // kept-alive sender under load. Node then runs the connection's idle timer before it reads
      // the request waiting on it, and used to close the connection under it (ECONNRESET).
      const answer = once(client, 'message')
      client.postMessage('second')
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_500)
      assert.equal((await answer)[0], '200')
    } finally {
      await client.terminate()
      await server.stop()
    }
  })
})
