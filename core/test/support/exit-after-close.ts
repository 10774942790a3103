/**
 * What `sieve up` does when a stop is given up, in a process of its own: the embedded engine is
 * busy (a span insert on the insert connection, a read on the shared one) when storage is closed,
 * and the process exits 1 once close() resolved and the statements not yet in the engine were
 * refused. Prints how the two statements stood when close() resolved, how they ended, and what a
 * statement after close() gets. Argument: the data directory.
 */
import { createStorage, insertSpans, migrate, type Span } from '@sieve/core'

const storage = await createStorage({ kind: 'embedded', path: process.argv[2]!, database: 'sieve' })
await migrate(storage, { retentionDays: 30 })

const spans: Span[] = Array.from({ length: 10_000 }, (_, i) => ({
  projectId: 'p',
  traceId: (i >> 3).toString(16).padStart(32, '0'),
  spanId: i.toString(16).padStart(16, '0'),
  parentSpanId: i % 8 === 0 ? '' : (i & ~7).toString(16).padStart(16, '0'),
  traceState: '',
  name: 'chat',
  kind: 'CLIENT',
  startTimeUnixNano: `${1_764_400_000_000_000_000n + BigInt(i)}`,
  endTimeUnixNano: `${1_764_400_001_000_000_000n + BigInt(i)}`,
  status: { code: 'OK', message: '' },
  flags: 0,
  serviceName: 'agent',
  scope: { name: 'test', version: '', attributes: {} },
  attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': 'Where is my order? '.repeat(20) },
  resource: {},
  events: [],
  links: [],
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
}))

const running = [insertSpans(storage, spans), storage.query({ query: 'SELECT count() FROM spans', format: 'JSONEachRow' })]
const outcome = running.map(() => 'pending')
running.forEach((statement, i) =>
  statement.then(
    () => (outcome[i] = 'fulfilled'),
    (err: Error) => (outcome[i] = `refused: ${err.message}`),
  ),
)
await storage.close()
// What had ended by the time close() resolved and its callbacks ran: a statement the engine was
// running must be among them. One still pending is still being prepared in JS (rows are built in
// slices), and the closed connection must refuse it rather than run it.
await new Promise((resolve) => setImmediate(resolve))
const atClose = [...outcome]
const after = await storage.query({ query: 'SELECT 1' }).then(
  () => 'ran',
  (err: Error) => `refused: ${err.message}`,
)
await Promise.race([Promise.allSettled(running), new Promise((resolve) => setTimeout(resolve, 10_000))])
console.log(JSON.stringify({ atClose, final: outcome, after }))
process.exit(1)
