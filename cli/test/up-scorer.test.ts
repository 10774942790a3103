import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'

const root = fileURLToPath(new URL('../../', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'sieve-up-scorer-'))
after(() => rmSync(dataDir, { recursive: true, force: true }))

const metric = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line ? Number(line.slice(series.length + 1)) : 0
}

test('sieve up scores what it receives: the failing check shows in /metrics seconds after the trace ends', async () => {
  const configFile = join(dataDir, 'sieve.yaml')
  writeFileSync(configFile, JSON.stringify({ checks: checksSection, scorer: { quietPeriodMs: 300, tickMs: 50 } }))
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', 'up'], {
    cwd: root,
    env: { ...process.env, SIEVE_PORT: '0', SIEVE_DATA_DIR: dataDir, SIEVE_CONFIG_FILE: configFile, SIEVE_API_KEYS: '', KAFKA_BROKERS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (c) => {
    output += c
  })
  child.stderr.on('data', (c) => {
    output += c
  })
  try {
    while (!/Sieve is up/.test(output)) {
      if (child.exitCode !== null) throw new Error(`sieve up exited ${child.exitCode}:\n${output}`)
      await Promise.race([once(child.stdout, 'data'), once(child, 'exit')])
    }
    const url = /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/.exec(output)?.[1]
    assert.ok(url, output)
    const sent = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: scenarios.refundOutsidePolicy().otlpProtobuf(),
    })
    assert.equal(sent.status, 200, await sent.text())
    // A documented path in another method names the ones it takes (allowedMethods, wired in cli/src/parts.ts).
    const wrongMethod = await fetch(`${url}/v1/traces`, { method: 'DELETE' })
    assert.deepEqual([wrongMethod.status, wrongMethod.headers.get('allow')], [405, 'POST'])

    let text = ''
    for (let i = 0; i < 200 && metric(text, 'sieve_scored_traces_total{complete="true",rescore="false"}') < 1; i++) {
      await new Promise((r) => setTimeout(r, 100))
      text = await (await fetch(`${url}/metrics`)).text()
    }
    assert.equal(metric(text, 'sieve_scored_traces_total{complete="true",rescore="false"}'), 1, text)
    assert.equal(metric(text, 'sieve_check_results_total{check="prohibited_tools",outcome="failed"}'), 1)
    assert.equal(metric(text, 'sieve_check_results_total{check="required_tools",outcome="passed"}'), 1)
    assert.equal(metric(text, 'sieve_scoring_latency_seconds_count'), 1)
    // The score write counts in the insert figures, beside the spans': one insert of a row per check result.
    for (let i = 0; i < 50 && metric(text, 'sieve_insert_duration_seconds_count{table="scores"}') < 1; i++) {
      await new Promise((r) => setTimeout(r, 100))
      text = await (await fetch(`${url}/metrics`)).text()
    }
    const results = text
      .split('\n')
      .filter((l) => l.startsWith('sieve_check_results_total{'))
      .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0)
    assert.ok(results >= 2, text)
    assert.equal(metric(text, 'sieve_insert_rows_total{table="scores"}'), results, text)
    assert.equal(metric(text, 'sieve_insert_duration_seconds_count{table="scores"}'), 1, text)
    // The embedded engine's memory, read by the scrapes above: the term of the memory bound V8's figures leave out.
    assert.ok(metric(text, 'sieve_engine_memory_bytes') > 0, text)

    // A call whose messages came as log records (/v1/logs), its span without content: the scorer
    // joins them before the checks run, so the e-mail the answer gives away fails pii_echo.
    const piiFailed = metric(text, 'sieve_check_results_total{check="pii_echo",outcome="failed"}')
    const traceId = 'ab'.repeat(16)
    const spanId = 'cd'.repeat(8)
    const now = BigInt(Date.now()) * 1_000_000n
    const kv = (key: string, value: string) => ({ key, value: { stringValue: value } })
    const record = (eventName: string, body: unknown) => ({ eventName, traceId, spanId, timeUnixNano: String(now), body })
    const logs = await fetch(`${url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceLogs: [
          {
            scopeLogs: [
              {
                logRecords: [
                  record('gen_ai.user.message', { kvlistValue: { values: [kv('content', 'Who handles refunds?')] } }),
                  record('gen_ai.choice', {
                    kvlistValue: {
                      values: [
                        {
                          key: 'message',
                          value: { kvlistValue: { values: [kv('role', 'assistant'), kv('content', 'Write to ann.lee@example.com, she decides.')] } },
                        },
                      ],
                    },
                  }),
                ],
              },
            ],
          },
        ],
      }),
    })
    assert.equal(logs.status, 200, await logs.text())
    const span = {
      traceId,
      spanId,
      name: 'chat gpt-4o-mini',
      kind: 3,
      startTimeUnixNano: String(now),
      endTimeUnixNano: String(now + 1_000_000n),
      attributes: [kv('gen_ai.operation.name', 'chat')],
    }
    const spans = await fetch(`${url}/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [span] }] }] }),
    })
    assert.equal(spans.status, 200, await spans.text())
    for (let i = 0; i < 200 && metric(text, 'sieve_scored_traces_total{complete="true",rescore="false"}') < 2; i++) {
      await new Promise((r) => setTimeout(r, 100))
      text = await (await fetch(`${url}/metrics`)).text()
    }
    assert.equal(metric(text, 'sieve_scored_traces_total{complete="true",rescore="false"}'), 2, text)
    assert.equal(metric(text, 'sieve_check_results_total{check="pii_echo",outcome="failed"}'), piiFailed + 1, text)
  } finally {
    child.kill('SIGTERM')
    if (child.exitCode === null) await once(child, 'exit')
  }
  assert.equal(child.exitCode, 0, output)
})
