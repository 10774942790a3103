import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { after, before, describe, test } from 'node:test'
import { ClickHouseError, createClient, type ClickHouseClient } from '@clickhouse/client'
import { readStatement, spawnClickHouseHttp, startClickHouseHttp, type ClickHouseHttp } from '@sieve/testkit/clickhouse-http'

/*
 * The ClickHouse HTTP stand-in speaks what @clickhouse/client sends and answers what it expects:
 * these tests drive it with the real client (and raw HTTP where the client hides the wire).
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-ch-http-'))
let server: ClickHouseHttp
let client: ClickHouseClient
before(async () => {
  server = await startClickHouseHttp({ path: join(dir, 'engine'), users: { default: '', sieve: 's3cret', reader: { password: 'r', readonly: 1 } } })
  const admin = createClient({ url: server.url })
  await admin.command({ query: 'CREATE DATABASE IF NOT EXISTS proto' })
  await admin.close()
  client = createClient({ url: server.url, database: 'proto', compression: { request: true, response: true } })
  await client.command({ query: 'CREATE TABLE t (id UInt32, s String, at DateTime64(9)) ENGINE = MergeTree ORDER BY id' })
})
after(async () => {
  await client?.close()
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

const AWKWARD = ["it's", 'tab\there', 'new\nline', 'cr\r\nlf', 'back\\slash\\', '\\N', 'nul\u0000byte', '[1, "two"]', ';', 'ünï — 日本語 — 🦀', '']

/** Raw HTTP to the stand-in: the status, the ClickHouse headers and the body as text. */
async function raw(search: Record<string, string>, init: RequestInit = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${server.url}/?${new URLSearchParams(search)}`, init)
  return { status: res.status, headers: res.headers, text: await res.text() }
}

describe('the ClickHouse HTTP stand-in', () => {
  test('inserts and reads back through the client, request and response gzipped, awkward strings byte for byte', async () => {
    await client.insert({
      table: 't',
      format: 'JSONEachRow',
      values: AWKWARD.map((s, id) => ({ id, s, at: `1744712660.00000000${id % 10}` })),
    })
    await client.insert({
      table: 't',
      columns: ['id', 's', 'at'],
      format: 'JSONCompactEachRow',
      values: [[100, 'compact', '1744712660.5']],
      clickhouse_settings: { optimize_on_insert: 0 },
    })
    const rows = await (await client.query({ query: 'SELECT id, s, toString(at) AS at FROM t ORDER BY id', format: 'JSONEachRow' })).json<{
      id: number
      s: string
      at: string
    }>()
    assert.deepEqual(
      rows.map((r) => r.s),
      [...AWKWARD, 'compact'],
    )
    assert.equal(rows.at(-1)!.at, '2025-04-15 10:24:20.500000000')
    const json = await (await client.query({ query: 'SELECT toUInt32(count()) AS n FROM t', format: 'JSON' })).json<{ data: { n: number }[]; rows: number }>()
    assert.deepEqual([json.data, json.rows], [[{ n: AWKWARD.length + 1 }], 1])
    const tsv = await (await client.query({ query: 'SELECT s FROM t WHERE id IN (0, 1) ORDER BY id', format: 'TabSeparated' })).text()
    assert.equal(tsv, "it\\'s\ntab\\there\n")
    const csv = await (await client.query({ query: 'SELECT id, s FROM t WHERE id = 100', format: 'CSV' })).text()
    assert.equal(csv, '100,"compact"\n')
  })

  test('query parameters arrive as the client formats them: strings, arrays, numbers, in the URL or multipart', async () => {
    const multipart = createClient({ url: server.url, database: 'proto', use_multipart_params: true })
    try {
      for (const c of [client, multipart]) {
        for (const s of AWKWARD) {
          const [row] = await (
            await c.query({
              query: 'SELECT {s:String} AS s, {xs:Array(String)} AS xs, {n:Int64} AS n',
              query_params: { s, xs: [s, 'b'], n: -42 },
              format: 'JSONEachRow',
            })
          ).json<{ s: string; xs: string[]; n: number }>()
          assert.deepEqual(row, { s, xs: [s, 'b'], n: -42 }, JSON.stringify(s))
        }
      }
    } finally {
      await multipart.close()
    }
  })

  test('each request has its own settings, parameters and database: none leaks into the next', async () => {
    const setting = async (settings: Record<string, string | number> = {}) =>
      (
        await (
          await client.query({ query: "SELECT getSetting('max_block_size') AS v", clickhouse_settings: settings, format: 'JSONEachRow' })
        ).json<{ v: number }>()
      )[0]!.v
    const before = await setting()
    assert.equal(await setting({ max_block_size: 777 }), 777)
    assert.equal(await setting(), before)
    await client.query({ query: 'SELECT {p:String}', query_params: { p: 'once' } })
    await assert.rejects(client.query({ query: 'SELECT {p:String}' }), /Substitution `p` is not set|query parameter/i)
    const other = createClient({ url: server.url })
    try {
      const dbs = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? client : other).query({ query: 'SELECT currentDatabase() AS d', format: 'JSONEachRow' }).then((r) => r.json<{ d: string }>()),
        ),
      )
      assert.deepEqual(
        dbs.map((r) => r[0]!.d),
        Array.from({ length: 10 }, (_, i) => (i % 2 ? 'proto' : 'default')),
      )
    } finally {
      await other.close()
    }
  })

  test('requests at once each get their own parameters back', async () => {
    const got = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        client
          .query({ query: 'SELECT {i:UInt32} AS i, {s:String} AS s, sleep(0.01) AS z', query_params: { i, s: `v${i}` }, format: 'JSONEachRow' })
          .then((r) => r.json<{ i: number; s: string }>()),
      ),
    )
    assert.deepEqual(
      got.map((r) => [r[0]!.i, r[0]!.s]),
      Array.from({ length: 40 }, (_, i) => [i, `v${i}`]),
    )
  })

  test("errors reach the client as ClickHouseError with the engine's code and name", async () => {
    const refused = async (run: Promise<unknown>) => {
      const err = await run.then(
        () => undefined,
        (e: unknown) => e,
      )
      assert.ok(err instanceof ClickHouseError, String(err))
      return err
    }
    const unknown = await refused(client.query({ query: 'SELECT * FROM nope' }))
    assert.deepEqual([unknown.code, unknown.type], ['60', 'UNKNOWN_TABLE'])
    const multi = await refused(client.command({ query: 'CREATE TABLE a (x UInt8) ENGINE = Memory; DROP TABLE t' }))
    assert.deepEqual([multi.code, multi.type, multi.message.trim()], ['62', 'SYNTAX_ERROR', 'Multi-statements are not allowed.'])
    const exists = async (table: string) =>
      (await (await client.query({ query: `EXISTS TABLE ${table}`, format: 'JSONEachRow' })).json<{ result: number }>())[0]!.result
    assert.deepEqual([await exists('a'), await exists('t')], [0, 1], 'no statement of the refused request ran')
    const setting = await refused(client.query({ query: 'SELECT 1', clickhouse_settings: { no_such_setting: 1 } as never }))
    assert.deepEqual([setting.code, setting.type], ['115', 'UNKNOWN_SETTING'])
    const data = await refused(client.insert({ table: 't', values: [{ id: -1, s: 'x', at: '0' }], format: 'JSONEachRow' }))
    assert.equal(data.type, 'CANNOT_PARSE_NUMBER', data.message)
  })

  test('on the wire: status by error code, X-ClickHouse-Exception-Code, the exception text, gzip when asked', async () => {
    const missing = await raw({ query: 'SELECT * FROM proto.nope' })
    assert.equal(missing.status, 404)
    assert.equal(missing.headers.get('x-clickhouse-exception-code'), '60')
    assert.match(missing.text, /^Code: 60\. DB::Exception: .*\(UNKNOWN_TABLE\) \(version [\d.]+\)\n$/s)
    const syntax = await raw({ query: 'SELEC 1' })
    assert.deepEqual([syntax.status, syntax.headers.get('x-clickhouse-exception-code')], [400, '62'])
    const throwIf = await raw({ query: 'SELECT throwIf(1)' })
    assert.deepEqual([throwIf.status, throwIf.headers.get('x-clickhouse-exception-code')], [500, '395'])

    const ok = await raw({ query: 'SELECT 1 AS one FORMAT JSONEachRow', query_id: 'my-query' })
    assert.equal(ok.status, 200)
    assert.equal(ok.text, '{"one":1}\n')
    assert.equal(ok.headers.get('x-clickhouse-query-id'), 'my-query')
    assert.equal(ok.headers.get('x-clickhouse-format'), 'JSONEachRow')
    assert.ok(JSON.parse(ok.headers.get('x-clickhouse-summary')!).elapsed_ns)
    const plain = await raw({ query: 'SELECT 1, 2' })
    assert.deepEqual([plain.text, plain.headers.get('x-clickhouse-format')], ['1\t2\n', 'TabSeparated'])
    const byDefault = await raw({ query: 'SELECT 1 AS one', default_format: 'JSONCompactEachRow' })
    assert.equal(byDefault.text, '[1]\n')

    // The query in the body, gzipped; the answer gzipped when enable_http_compression=1 and the client accepts it.
    const res = await fetch(`${server.url}/?enable_http_compression=1`, {
      method: 'POST',
      body: gzipSync('SELECT 42 AS n FORMAT JSONEachRow'),
      headers: { 'content-encoding': 'gzip', 'accept-encoding': 'gzip' },
    })
    assert.equal(res.headers.get('content-encoding'), 'gzip')
    assert.equal(await res.text(), '{"n":42}\n')
    const wire = await new Promise<Buffer>((resolve, reject) => {
      import('node:http').then(({ request }) => {
        const req = request(`${server.url}/?enable_http_compression=1&query=SELECT%207`, { headers: { 'accept-encoding': 'gzip' } }, (r) => {
          const chunks: Buffer[] = []
          r.on('data', (c: Buffer) => chunks.push(c))
            .on('end', () => resolve(Buffer.concat(chunks)))
            .on('error', reject)
        })
        req.on('error', reject).end()
      }, reject)
    })
    assert.equal(gunzipSync(wire).toString(), '7\n')
  })

  test('INSERT with its data in the body after the query parameter, an empty body inserting nothing', async () => {
    const query = 'INSERT INTO proto.t (id, s, at) FORMAT JSONEachRow'
    const res = await raw({ query }, { method: 'POST', body: '{"id":200,"s":"body;one","at":"1"}\n{"id":201,"s":"two","at":"2"}' })
    assert.equal(res.status, 200, res.text)
    assert.equal((await raw({ query }, { method: 'POST', body: '' })).status, 200)
    const rows = await raw({ query: 'SELECT s FROM proto.t WHERE id >= 200 ORDER BY id' })
    assert.equal(rows.text, 'body;one\ntwo\n')
  })

  test('GET runs read-only; credentials are checked when users are configured, and a read-only user only reads', async () => {
    const write = await raw({ query: 'CREATE TABLE proto.g (x UInt8) ENGINE = Memory' })
    assert.equal(write.headers.get('x-clickhouse-exception-code'), '164', write.text)
    assert.equal(await fetch(`${server.url}/ping`).then((r) => r.text()), 'Ok.\n')
    const wrong = createClient({ url: server.url, username: 'sieve', password: 'nope' })
    const right = createClient({ url: server.url, username: 'sieve', password: 's3cret' })
    try {
      await assert.rejects(wrong.query({ query: 'SELECT 1' }), (e: ClickHouseError) => e.type === 'AUTHENTICATION_FAILED')
      assert.equal(await (await right.query({ query: 'SELECT 1 AS x', format: 'JSONEachRow' })).text(), '{"x":1}\n')
    } finally {
      await Promise.all([wrong.close(), right.close()])
    }
    const status = await fetch(`${server.url}/?query=SELECT%201`, { headers: { authorization: `Basic ${Buffer.from('sieve:nope').toString('base64')}` } })
    assert.equal(status.status, 403)
    // A user whose profile sets readonly = 1: reads with parameters, but neither writes nor changes a setting.
    const reader = createClient({ url: server.url, username: 'reader', password: 'r', database: 'proto' })
    try {
      assert.deepEqual(
        await (await reader.query({ query: 'SELECT {id:UInt32} + 1 AS n, count() >= 0 AS t FROM t', query_params: { id: 1 }, format: 'JSONEachRow' })).json(),
        [{ n: 2, t: 1 }],
      )
      await assert.rejects(reader.command({ query: 'CREATE TABLE r (x UInt8) ENGINE = Memory' }), (e: ClickHouseError) => e.type === 'READONLY')
      await assert.rejects(reader.query({ query: 'SELECT 1', clickhouse_settings: { max_threads: 1 } }), (e: ClickHouseError) => e.type === 'READONLY')
    } finally {
      await reader.close()
    }
  })

  test("readStatement: one statement or a refusal, the output format, where an insert's data starts", () => {
    assert.deepEqual(readStatement("SELECT ';' AS s -- ; not a statement\n \nFORMAT JSONEachRow"), {
      text: "SELECT ';' AS s -- ; not a statement\n \nFORMAT JSONEachRow",
      insert: false,
      format: 'JSONEachRow',
      noData: false,
    })
    assert.deepEqual(readStatement('SELECT 1;\n-- done\n'), { text: 'SELECT 1', insert: false, noData: false })
    assert.deepEqual(readStatement('SELECT format, `a;b` FROM t'), { text: 'SELECT format, `a;b` FROM t', insert: false, noData: false })
    assert.throws(() => readStatement('SELECT 1; SELECT 2'), /Multi-statements are not allowed/)
    assert.deepEqual(readStatement('INSERT INTO t FORMAT JSONEachRow\n{"s":"; DROP TABLE t"}'), {
      text: 'INSERT INTO t FORMAT JSONEachRow\n{"s":"; DROP TABLE t"}',
      insert: true,
      noData: false,
    })
    assert.deepEqual(readStatement('INSERT INTO t (a, b) FORMAT JSONCompactEachRow\n  \n'), {
      text: 'INSERT INTO t (a, b) FORMAT JSONCompactEachRow\n  \n',
      insert: true,
      noData: true,
    })
    assert.throws(() => readStatement("INSERT INTO t VALUES (';'); DROP TABLE t"), /Multi-statements/)
  })
})

test('as a child process: answers the client, and stops on close', async () => {
  const child = await spawnClickHouseHttp({ path: join(dir, 'child-engine') })
  const c = createClient({ url: child.url })
  try {
    assert.deepEqual(await (await c.query({ query: 'SELECT {x:String} AS x', query_params: { x: 'from a child' }, format: 'JSONEachRow' })).json(), [
      { x: 'from a child' },
    ])
  } finally {
    await c.close()
    await child.close()
  }
  assert.equal(child.child.exitCode, 0, child.output())
})
