import assert from 'node:assert/strict'
import { once } from 'node:events'
import http from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { test } from 'node:test'
import { skipUnreadBody } from '../src/receiver/skip-unread-body.js'

/**
 * `/refuse` answers 429 before reading and skips the body, counting the chunks that still reach
 * JavaScript; `/echo` reads its body and answers its length.
 */
async function server() {
  const refused: number[] = []
  const srv = http.createServer((req, res) => {
    if (req.url === '/refuse') {
      skipUnreadBody(req)
      let chunks = 0
      req.on('data', () => chunks++)
      req.on('end', () => refused.push(chunks))
      res.writeHead(429, { 'Retry-After': '1', 'Content-Length': 0 }).end()
      return
    }
    let length = 0
    req.on('data', (chunk: Buffer) => (length += chunk.length))
    req.on('end', () => res.end(String(length)))
  })
  srv.listen(0, '127.0.0.1')
  await once(srv, 'listening')
  const { port } = srv.address() as AddressInfo
  const connections = () => new Promise<number>((resolve, reject) => srv.getConnections((err, n) => (err ? reject(err) : resolve(n))))
  return { port, refused, connections, close: () => new Promise((resolve) => srv.close(resolve)) }
}

/** A POST of `bytes`, with Content-Length or, `chunked`, in two chunks without it. */
function post(port: number, path: string, bytes: number, agent: http.Agent, chunked = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = chunked ? {} : { 'Content-Length': bytes }
    const req = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, body }))
    })
    req.on('error', reject)
    if (chunked) req.write(Buffer.alloc(bytes / 2, 1))
    req.end(Buffer.alloc(chunked ? bytes / 2 : bytes, 1))
  })
}

test("a body answered before it is read goes by without reaching JavaScript, and the connection's next request reads its own", async () => {
  const { port, refused, close } = await server()
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  try {
    for (const chunked of [false, true, false]) {
      assert.equal((await post(port, '/refuse', 2_000_000, agent, chunked)).status, 429)
      assert.deepEqual(await post(port, '/echo', 300_000, agent, chunked), { status: 200, body: '300000' })
    }
    assert.deepEqual(refused, [0, 0, 0], 'chunks of the refused bodies that reached JavaScript')
  } finally {
    agent.destroy()
    await close()
  }
})

test('a sender that gives up in the middle of a skipped body leaves the pooled parser reading bodies again', async () => {
  const { port, connections, close } = await server()
  try {
    const socket = connect(port, '127.0.0.1')
    await once(socket, 'connect')
    socket.write(`POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n`)
    socket.write(Buffer.alloc(100_000, 1))
    const [answer] = (await once(socket, 'data')) as [Buffer]
    assert.match(answer.toString('latin1'), /^HTTP\/1\.1 429 /)
    socket.destroy()
    while ((await connections()) > 0) await new Promise((resolve) => setTimeout(resolve, 10))
    // Node hands a closed connection's parser to the next one: each of these would read no body.
    for (let i = 0; i < 3; i++) {
      const agent = new http.Agent({ keepAlive: false })
      assert.deepEqual(await post(port, '/echo', 200_000, agent), { status: 200, body: '200000' })
    }
  } finally {
    await close()
  }
})
