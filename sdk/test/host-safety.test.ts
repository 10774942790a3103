import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, afterEach, before, describe, test } from 'node:test'
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import OpenAI from 'openai'
import { callTools, probePoolingWindow, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { exportStats, flush, init, shutdown, traceAgent, traceTool, wrapOpenAI, type SdkOptions } from '@sieve/sdk'

/** A collector that misbehaves: answers only after 10 s, or answers with an error status. */
async function brokenCollector(mode: { hang: true } | { status: number; retryAfter?: string }) {
  let received = 0
  let answered = 0
  const server: Server = createServer((req, res) => {
    received++
    req.resume()
    if ('hang' in mode) {
      setTimeout(() => {
        if (res.destroyed) return
        res.writeHead(200).end()
        answered++
      }, 10_000).unref()
      return
    }
    // Answer once the body is read, as a collector does: Node announces a client request to the
    // probe when its body is sent, and an answer before that would pass the probe by.
    req.on('end', () => {
      res.writeHead(mode.status, mode.retryAfter ? { 'retry-after': mode.retryAfter } : {})
      res.end()
      answered++
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ received, answered }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

let model: FakeOpenAI
const warnings: string[] = []
const originalWarn = console.warn

before(async () => {
  model = await startFakeOpenAI({
    script: (req) =>
      req.body.messages?.at(-1)?.role === 'tool' ? say('Store credit issued.') : callTools([{ name: 'create_store_credit', arguments: { amount: 20 } }]),
  })
  console.warn = (...args: unknown[]) => void warnings.push(args.join(' '))
})
after(async () => {
  console.warn = originalWarn
  await model.close()
})
afterEach(() => shutdown(500))

/** The same agent turn with or without the SDK: two LLM calls and a tool. */
async function turn(client: OpenAI, tool: (args: { amount: number }) => Promise<string>) {
  const messages: any[] = [{ role: 'user', content: 'I want a refund' }]
  const first = await client.chat.completions.create({ model: 'm', messages })
  const call = first.choices[0]!.message.tool_calls![0]!
  const result = await tool(JSON.parse(call.type === 'function' ? call.function.arguments : '{}'))
  messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: result })
  const second = await client.chat.completions.create({ model: 'm', messages })
  return second.choices[0]!.message.content
}

const credit = async ({ amount }: { amount: number }) => `credit of ${amount} issued`

async function tracedTurns(options: SdkOptions, n: number) {
  const result = init({ serviceName: 'safety', scheduledDelayMillis: 5, exportTimeoutMillis: 1000, ...options })
  assert.equal(result.ok, true)
  const client = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 }))
  const tool = traceTool('create_store_credit', credit)
  const answers: unknown[] = []
  for (let i = 0; i < n; i++) answers.push(await traceAgent('refund', { sessionId: `s${i}` }, () => turn(client, tool)))
  return answers
}

describe('the SDK never harms the host', () => {
  test('collector down: answers are unchanged, nothing throws, the failure is counted and logged once', async () => {
    const down = await brokenCollector({ status: 200 })
    await down.close()
    warnings.length = 0
    const answers = await tracedTurns({ endpoint: down.url }, 5)
    assert.deepEqual(answers, Array(5).fill('Store credit issued.'))
    await flush()
    const stats = exportStats()
    assert.ok(stats.failed > 0, JSON.stringify(stats))
    assert.equal(stats.exported, 0)
    assert.equal(warnings.filter((w) => w.includes('could not send spans')).length, 1, warnings.join('\n'))
  })

  test('collector slow (answers after 10 s): agent calls complete while every export is still waiting', async () => {
    const slow = await brokenCollector({ hang: true })
    try {
      const answers = await tracedTurns({ endpoint: slow.url, exportTimeoutMillis: 10_000 }, 3)
      assert.deepEqual(answers, Array(3).fill('Store credit issued.'))
      // Wait (bounded) for the batch to reach the collector, then check the agent finished with the export still hanging.
      for (let waited = 0; slow.counts().received === 0 && waited < 10_000; waited += 50) await flush(50)
      assert.ok(slow.counts().received >= 1)
      assert.equal(slow.counts().answered, 0)
      // flush and shutdown are bounded even when the collector never answers.
      await flush(50)
      await shutdown(50)
    } finally {
      await slow.close()
    }
  })

  for (const [status, retryAfter] of [
    [500, undefined],
    [429, '1'],
  ] as const) {
    test(`collector answering ${status}: answers unchanged, spans counted as failed`, async () => {
      const failing = await brokenCollector({ status, retryAfter })
      try {
        const answers = await tracedTurns({ endpoint: failing.url, exportTimeoutMillis: 300 }, 3)
        assert.deepEqual(answers, Array(3).fill('Store credit issued.'))
        await flush(2000)
        assert.ok(failing.counts().received >= 1)
        assert.equal(exportStats().exported, 0)
      } finally {
        // After a 429 the exporter's retry is already scheduled past the bounded shutdown: let it be
        // answered, so that it does not run into the next test.
        await shutdown(500)
        if (retryAfter) await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000 + 300))
        await failing.close()
      }
    })
  }

  test("a connection error while Node pools the exporter's socket is not thrown into the host", async () => {
    const collector = await brokenCollector({ status: 200 })
    const probe = probePoolingWindow()
    try {
      // A generous export timeout: on a loaded machine the 1 s default of these tests can end the
      // export before its response, and then there is no pooling window to probe.
      const answers = await tracedTurns({ endpoint: collector.url, exportTimeoutMillis: 10_000 }, 2)
      assert.deepEqual(answers, Array(2).fill('Store credit issued.'))
      for (let waited = 0; exportStats().exported === 0 && waited < 10_000; waited += 50) await flush(50)
      assert.ok(probe.raised() >= 1, `no export reached the collector: ${JSON.stringify({ stats: exportStats(), received: collector.counts() })}`)
      assert.deepEqual(probe.escaped, [])
      assert.ok(exportStats().exported > 0, JSON.stringify(exportStats()))
    } finally {
      probe.stop()
      await shutdown(500)
      await collector.close()
    }
  })

  test('the queue is bounded: spans beyond it are dropped and counted, the agent never waits', async () => {
    const slow = await brokenCollector({ hang: true })
    try {
      warnings.length = 0
      await tracedTurns({ endpoint: slow.url, maxQueueSize: 8, maxExportBatchSize: 4 }, 10)
      const stats = exportStats()
      assert.equal(stats.pending, 8)
      assert.equal(stats.dropped, 10 * 4 - 8)
      assert.equal(warnings.filter((w) => w.includes('span queue full')).length, 1)
    } finally {
      await shutdown(50)
      await slow.close()
    }
  })

  test('a redaction hook that throws records a marker instead of content; the call is unaffected', async () => {
    const memory = new InMemorySpanExporter()
    const answers = await tracedTurns(
      {
        exporter: memory,
        captureContent: true,
        redact: () => {
          throw new Error('bad hook')
        },
      },
      1,
    )
    assert.deepEqual(answers, ['Store credit issued.'])
    await flush()
    const tool = memory.getFinishedSpans().find((s) => s.name === 'execute_tool create_store_credit')
    assert.equal(tool?.attributes['gen_ai.tool.call.arguments'], '[redaction failed]')
    assert.equal(tool?.attributes['gen_ai.tool.call.result'], '[redaction failed]')
  })

  test('bad values and misuse never throw into the agent', async () => {
    const result = init({ endpoint: 'not a url', maxQueueSize: -1 as never })
    assert.equal(result.ok, false)
    assert.ok(!result.ok && result.error.problems.some((p) => p.includes('endpoint')))
    assert.equal(await traceAgent('x', { attributes: { weird: { nested: true } as never, fn: (() => 1) as never } }, async () => 'fine'), 'fine')
    const notAClient = { chat: null, responses: 42 }
    assert.equal(wrapOpenAI(notAClient), notAClient)
    const boom = traceTool('boom', () => {
      throw new TypeError('tool failed')
    })
    assert.throws(() => boom(), TypeError)
    assert.equal(traceTool('sync', (a: number, b: number) => a + b)(2, 3), 5)
    await flush()
  })
})
