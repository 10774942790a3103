import { parseArgs } from 'node:util'
import { startClickHouseHttp } from './clickhouse-http.js'

/*
 * The ClickHouse HTTP stand-in as a process of its own (`spawnClickHouseHttp`):
 *   node --conditions=sieve-source --import tsx testkit/src/clickhouse-http-main.ts --path DIR [--port N] [--concurrency N]
 * Prints `listening on <url>` once it accepts requests; on SIGTERM or SIGINT, or once its stdin
 * closes (the process that started it is gone), it ends the statements running, releases the engine
 * and exits 0.
 */
const { values } = parseArgs({ options: { path: { type: 'string' }, port: { type: 'string' }, concurrency: { type: 'string' } } })
if (!values.path) {
  console.error('usage: clickhouse-http-main.ts --path DIR [--port N] [--concurrency N]')
  process.exit(2)
}
const server = await startClickHouseHttp({
  path: values.path,
  ...(values.port ? { port: Number(values.port) } : {}),
  ...(values.concurrency ? { concurrency: Number(values.concurrency) } : {}),
})
console.log(`ClickHouse HTTP stand-in (chDB on ${values.path}) listening on ${server.url}`)
const signal = await new Promise<string>((resolve) => {
  process.once('SIGTERM', () => resolve('SIGTERM'))
  process.once('SIGINT', () => resolve('SIGINT'))
  // spawnClickHouseHttp holds stdin open: it closing means the test process is gone, killed or not.
  if (!process.stdin.isTTY) process.stdin.on('end', () => resolve('stdin closed')).resume()
})
await server.close()
console.log(`stopped (${signal})`)
// Read to notice the parent going away; held open, it would keep this process alive.
process.stdin.destroy()
