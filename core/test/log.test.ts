import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger } from '../src/index.js'

const capture = (options: Parameters<typeof createLogger>[0] = {}) => {
  const lines: string[] = []
  return { lines, log: createLogger({ ...options, write: (line) => lines.push(line) }) }
}

test('JSON lines carry time, level, message and fields; a child adds its fields to every line', () => {
  const { lines, log } = capture({ json: true, fields: { role: 'up' } })
  log.child({ part: 'scorer' }).info('read back 5 traces', { traces: 5 })
  const line = JSON.parse(lines[0]!)
  assert.match(line.time, /^\d{4}-\d\d-\d\dT/)
  assert.deepEqual({ ...line, time: '' }, { time: '', level: 'info', msg: 'read back 5 traces', role: 'up', part: 'scorer', traces: 5 })
})

test('lines under SIEVE_LOG_LEVEL are dropped', () => {
  const { lines, log } = capture({ json: true, level: 'warn' })
  log.debug('d')
  log.info('i')
  log.warn('w')
  log.error('e')
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).msg),
    ['w', 'e'],
  )
})

test('values of fields named like secrets never reach a line; errors become their message', () => {
  const { lines, log } = capture({ json: true })
  log.error('request failed', {
    apiKey: 'k-123',
    authorization: 'Bearer t',
    CLICKHOUSE_PASSWORD: 'p',
    metricsToken: 'm',
    cause: new Error('boom'),
    project: 'shop',
  })
  const line = JSON.parse(lines[0]!)
  assert.deepEqual([line.apiKey, line.authorization, line.CLICKHOUSE_PASSWORD, line.metricsToken], Array(4).fill('[redacted]'))
  assert.equal(line.cause, 'boom')
  assert.equal(line.project, 'shop')
  assert.doesNotMatch(lines[0]!, /k-123|Bearer t|"p"|"m"/)
})

test('text lines for a terminal: time, level, message, then key=value', () => {
  const { lines, log } = capture({ json: false })
  log.warn('queue full', { project: 'shop', spans: 12, reason: 'two words' })
  assert.match(lines[0]!, /^\S+ warn {2}queue full project=shop spans=12 reason="two words"$/)
})
