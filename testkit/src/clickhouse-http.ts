import { spawn, type ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

/*
 * A test-only stand-in for ClickHouse's HTTP interface, so that Sieve's server path
 * (`CLICKHOUSE_URL`: `@clickhouse/client` over HTTP) runs in tests on a machine where no ClickHouse
 * server can be installed. It is NOT a ClickHouse server: it is the transport only. Each statement
 * is executed by chDB, the ClickHouse engine Sieve embeds, on a data directory of its own; what the
 * engine answers (rows, errors, types, formats) is the real engine's. What this module does is what a
 * server's HTTP handler does around the engine, for the subset `@clickhouse/client` uses (see
 * testkit/DESIGN.md, "What it implements", for what is and is not implemented).
 */

type ChdbModule = typeof import('chdb')
type Session = InstanceType<ChdbModule['Session']>

// chdb is CommonJS with a native addon: loaded on start only, so importing this module loads nothing.
const requireFromHere = createRequire(import.meta.url)

export interface ClickHouseHttpOptions {
  /** The chDB data directory. chDB binds one directory per process: a test that also opens the embedded engine must use the same one. */
  path: string
  host?: string
  /** 0 (the default) for an ephemeral port. */
  port?: number
  /**
   * Credentials to require (HTTP Basic, `X-ClickHouse-User`/`X-ClickHouse-Key`, or `user`/`password`
   * parameters), refused with ClickHouse's 516 AUTHENTICATION_FAILED; a user given `readonly` runs every
   * statement as a server runs a user whose profile sets it (1: reads only, no setting changed; 2: reads
   * and settings). Unset: any credentials pass, with every right.
   */
  users?: Record<string, string | { password: string; readonly?: 1 | 2 }>
  /** Statements executed at once; the rest wait their turn. 1 runs every statement alone. */
  concurrency?: number
}

export interface ClickHouseHttp {
  /** `http://127.0.0.1:<port>`: what `CLICKHOUSE_URL` takes. */
  url: string
  /** Requests answered so far and how many of them were ClickHouse exceptions. */
  stats(): { requests: number; statements: number; exceptions: number }
  /** Stops accepting, waits for the statements running to end, releases the engine's connections. */
  close(): Promise<void>
}

/** Parameters the HTTP handler reads itself; every other URL parameter is a setting (`SET name = value`). */
const HANDLER_PARAMS = new Set([
  'query',
  'database',
  'query_id',
  'user',
  'password',
  'quota_key',
  'role',
  'buffer_size',
  'wait_end_of_query',
  'session_id',
  'session_timeout',
  'session_check',
  'close_session',
  'compress',
  'decompress',
  'stacktrace',
  'client_protocol_version',
  'default_format',
])

/**
 * Settings a server's HTTP layer acts on that the stand-in applies itself instead of handing them to
 * the engine. `enable_http_compression` and `http_zlib_compression_level` decide the response's
 * compression here. The progress ones are accepted and ignored (no `X-ClickHouse-Progress` headers are
 * sent); `http_wait_end_of_query` / `wait_end_of_query` are what the stand-in always does: it answers
 * once the statement has ended, with the whole result.
 */
const HTTP_LAYER_SETTINGS = new Set([
  'enable_http_compression',
  'http_zlib_compression_level',
  'send_progress_in_http_headers',
  'http_headers_progress_interval_ms',
  'http_wait_end_of_query',
  'http_response_buffer_size',
])

/** ClickHouse's `exceptionCodeToHTTPStatus` (src/Server/HTTP), by error name; the codes are read from the engine. */
const STATUS_BY_NAME: [number, string[]][] = [
  [401, ['REQUIRED_PASSWORD']],
  [403, ['UNKNOWN_USER', 'WRONG_PASSWORD', 'AUTHENTICATION_FAILED', 'SET_NON_GRANTED_ROLE', 'ACCESS_DENIED']],
  [
    400,
    [
      'BAD_ARGUMENTS',
      'CANNOT_COMPILE_REGEXP',
      'CANNOT_PARSE_TEXT',
      'CANNOT_PARSE_ESCAPE_SEQUENCE',
      'CANNOT_PARSE_QUOTED_STRING',
      'CANNOT_PARSE_DATE',
      'CANNOT_PARSE_DATETIME',
      'CANNOT_PARSE_NUMBER',
      'CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING',
      'CANNOT_PARSE_IPV4',
      'CANNOT_PARSE_IPV6',
      'CANNOT_PARSE_INPUT_ASSERTION_FAILED',
      'CANNOT_PARSE_UUID',
      'DUPLICATE_COLUMN',
      'ILLEGAL_COLUMN',
      'UNKNOWN_ELEMENT_IN_AST',
      'UNKNOWN_TYPE_OF_AST_NODE',
      'THERE_IS_NO_COLUMN',
      'TOO_DEEP_AST',
      'TOO_BIG_AST',
      'UNEXPECTED_AST_STRUCTURE',
      'SYNTAX_ERROR',
      'INCORRECT_DATA',
      'TYPE_MISMATCH',
      'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE',
    ],
  ],
  [
    404,
    [
      'UNKNOWN_TABLE',
      'UNKNOWN_FUNCTION',
      'UNKNOWN_IDENTIFIER',
      'UNKNOWN_TYPE',
      'UNKNOWN_STORAGE',
      'UNKNOWN_DATABASE',
      'UNKNOWN_SETTING',
      'UNKNOWN_DIRECTION_OF_SORTING',
      'UNKNOWN_AGGREGATE_FUNCTION',
      'UNKNOWN_FORMAT',
      'UNKNOWN_DATABASE_ENGINE',
      'UNKNOWN_TYPE_OF_QUERY',
      'UNKNOWN_ROLE',
    ],
  ],
  [413, ['QUERY_IS_TOO_LARGE']],
  [501, ['NOT_IMPLEMENTED']],
  [503, ['SOCKET_TIMEOUT', 'CANNOT_OPEN_FILE', 'CANNOT_SCHEDULE_TASK']],
  [411, ['HTTP_LENGTH_REQUIRED']],
  [408, ['TIMEOUT_EXCEEDED']],
  [415, ['UNSUPPORTED_MEDIA_TYPE']],
]

/** An error the stand-in raises itself, shaped as the engine's. */
class HttpException extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(`Code: ${code}. DB::Exception: ${message}. (${type})`)
  }
}

// Codes the stand-in raises itself (ClickHouse's numbers for these names).
const SYNTAX_ERROR = 62
const NOT_IMPLEMENTED = 48
const AUTHENTICATION_FAILED = 516
const UNKNOWN_EXCEPTION = 1002

const notImplemented = (what: string) =>
  new HttpException(NOT_IMPLEMENTED, 'NOT_IMPLEMENTED', `${what} is not implemented by the testkit ClickHouse HTTP stand-in`)

/** A SQL string literal whose content is exactly `text` (backslash escapes, as ClickHouse reads them). */
const sqlString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`
const quoteIdentifier = (name: string): string => `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

// --- The statement ---------------------------------------------------------------------------

interface Statement {
  /** What is executed: the statement, and for `INSERT ... FORMAT` the data after it. */
  text: string
  insert: boolean
  /** The output format named by a trailing `FORMAT x` (not an INSERT's input format). */
  format?: string
  /** An `INSERT ... FORMAT x` whose data is empty. */
  noData: boolean
}

/**
 * Reads what ClickHouse's parser would need to know about the request's query: one statement or
 * several (a server runs one statement per request and refuses more: SYNTAX_ERROR "Multi-statements
 * are not allowed"), whether it inserts, and the format it answers in. A tokenizer of quotes and
 * comments, not a parser: the engine parses the statement itself.
 */
export function readStatement(text: string): Statement {
  let i = 0
  const n = text.length
  let first: string | undefined
  let previousWord: string | undefined
  let format: string | undefined
  let formatAt = -1
  let lastWordEnd = 0
  let dataStart = -1
  while (i < n) {
    const c = text[i]!
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++
      continue
    }
    if ((c === '-' && text[i + 1] === '-') || c === '#') {
      while (i < n && text[i] !== '\n') i++
      continue
    }
    if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? n : end + 2
      continue
    }
    if (c === "'" || c === '"' || c === '`') {
      i++
      while (i < n) {
        if (text[i] === '\\') {
          i += 2
          continue
        }
        if (text[i] === c) {
          if (text[i + 1] === c) {
            i += 2
            continue
          }
          break
        }
        i++
      }
      i++
      previousWord = undefined
      continue
    }
    if (/[A-Za-z_]/.test(c)) {
      const start = i
      while (i < n && /[A-Za-z0-9_]/.test(text[i]!)) i++
      const word = text.slice(start, i)
      first ??= word.toUpperCase()
      if (previousWord?.toUpperCase() === 'FORMAT') {
        format = word
        formatAt = start
      }
      previousWord = word
      lastWordEnd = i
      // An INSERT's data starts after its format's name: it is not SQL.
      if (first === 'INSERT' && format !== undefined && formatAt === start) {
        dataStart = i
        break
      }
      continue
    }
    if (c === ';') {
      if (!onlyComments(text.slice(i + 1))) {
        throw new HttpException(SYNTAX_ERROR, 'SYNTAX_ERROR', 'Multi-statements are not allowed')
      }
      return {
        text: text.slice(0, i),
        insert: first === 'INSERT',
        ...(first !== 'INSERT' && format && formatAt >= 0 && lastWordEnd === formatAt + format.length ? { format } : {}),
        noData: false,
      }
    }
    previousWord = undefined
    i++
  }
  if (first === 'INSERT' && dataStart >= 0) {
    return { text, insert: true, noData: text.slice(dataStart).trim() === '' }
  }
  const trailingFormat = format !== undefined && lastWordEnd === formatAt + format.length && first !== 'INSERT'
  return { text, insert: first === 'INSERT', ...(trailingFormat ? { format } : {}), noData: false }
}

function onlyComments(text: string): boolean {
  return text.replace(/--[^\n]*|#[^\n]*|\/\*[\s\S]*?\*\//g, '').trim() === ''
}

// --- The request -----------------------------------------------------------------------------

interface Request {
  query: string
  database?: string
  queryId: string
  settings: [string, string][]
  params: [string, string][]
  /** ClickHouse's `readonly`: 2 for GET, the user's when it has one. */
  readonly?: 1 | 2
  /** Codec for the answer (Accept-Encoding, when enable_http_compression=1). */
  encoding?: 'gzip' | 'deflate' | 'br' | 'zstd'
  level?: number
  defaultFormat?: string
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  const body = Buffer.concat(chunks)
  const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase()
  if (encoding === '' || encoding === 'identity') return body
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.gunzipSync(body)
    if (encoding === 'deflate') return zlib.inflateSync(body)
    if (encoding === 'br') return zlib.brotliDecompressSync(body)
    if (encoding === 'zstd' && 'zstdDecompressSync' in zlib) return (zlib as unknown as { zstdDecompressSync(b: Buffer): Buffer }).zstdDecompressSync(body)
  } catch (err) {
    throw new HttpException(354, 'CANNOT_DECOMPRESS', `Cannot decompress the request body (${encoding}): ${(err as Error).message}`)
  }
  throw new HttpException(95, 'UNKNOWN_COMPRESSION_METHOD', `Unknown compression method: ${encoding}`)
}

/** The parts of a multipart/form-data body: `query` and `param_*` (the client's `use_multipart_params`). */
function multipartParts(body: Buffer, contentType: string): Map<string, string> {
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType)
  if (!boundary) throw new HttpException(SYNTAX_ERROR, 'SYNTAX_ERROR', 'multipart/form-data without a boundary')
  const delimiter = `--${boundary[1] ?? boundary[2]}`
  const parts = new Map<string, string>()
  for (const raw of body.toString('utf8').split(delimiter).slice(1)) {
    if (raw.startsWith('--')) break
    const headerEnd = raw.indexOf('\r\n\r\n')
    if (headerEnd < 0) continue
    const headers = raw.slice(0, headerEnd)
    const name = /name="([^"]*)"/i.exec(headers)?.[1]
    if (name === undefined) continue
    if (/filename=/i.test(headers)) throw notImplemented('An external table (a multipart file part)')
    parts.set(name, raw.slice(headerEnd + 4).replace(/\r\n$/, ''))
  }
  return parts
}

function credentials(req: IncomingMessage, url: URL): { user: string; password: string } {
  const basic = /^Basic (.+)$/i.exec(String(req.headers.authorization ?? ''))
  if (basic) {
    const text = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = text.indexOf(':')
    return { user: text.slice(0, colon < 0 ? undefined : colon), password: colon < 0 ? '' : text.slice(colon + 1) }
  }
  const header = (name: string) => (req.headers[name] === undefined ? undefined : String(req.headers[name]))
  return {
    user: header('x-clickhouse-user') ?? url.searchParams.get('user') ?? 'default',
    password: header('x-clickhouse-key') ?? url.searchParams.get('password') ?? '',
  }
}

function acceptedEncoding(req: IncomingMessage): Request['encoding'] {
  const accepted = String(req.headers['accept-encoding'] ?? '')
    .toLowerCase()
    .split(',')
    .map((s) => s.trim().split(';')[0])
  for (const codec of ['gzip', 'zstd', 'br', 'deflate'] as const) {
    if (codec === 'zstd' && !('zstdCompressSync' in zlib)) continue
    if (accepted.includes(codec)) return codec
  }
  return undefined
}

async function readRequest(req: IncomingMessage, url: URL, users: ClickHouseHttpOptions['users']): Promise<Request> {
  const search = url.searchParams
  let readonly: 1 | 2 | undefined = req.method === 'GET' ? 2 : undefined
  if (users) {
    const { user, password } = credentials(req, url)
    const known = Object.hasOwn(users, user) ? users[user] : undefined
    const expected = typeof known === 'string' ? { password: known } : known
    if (expected === undefined || expected.password !== password) {
      throw new HttpException(
        AUTHENTICATION_FAILED,
        'AUTHENTICATION_FAILED',
        `${user}: Authentication failed: password is incorrect, or there is no user with such name`,
      )
    }
    if (expected.readonly) readonly = Math.min(expected.readonly, readonly ?? 2) as 1 | 2
  }
  if (search.has('session_id')) throw notImplemented('An HTTP session (session_id)')
  if (search.get('compress') === '1' || search.get('decompress') === '1') throw notImplemented("ClickHouse's own compression format (compress/decompress)")
  const body = req.method === 'POST' ? await readBody(req) : Buffer.alloc(0)
  const params: [string, string][] = []
  const settings: [string, string][] = []
  let query = search.get('query') ?? ''
  const contentType = String(req.headers['content-type'] ?? '')
  let bodyText = body.toString('utf8')
  if (/^multipart\/form-data/i.test(contentType)) {
    const parts = multipartParts(body, contentType)
    bodyText = ''
    for (const [name, value] of parts) {
      if (name === 'query') query = query ? `${query}\n${value}` : value
      else if (name.startsWith('param_')) params.push([name.slice(6), value])
    }
  }
  // As a server does: the `query` parameter, then the body (an INSERT's data, or the rest of the query).
  if (bodyText !== '') query = query ? `${query}\n${bodyText}` : bodyText
  let enableCompression = false
  let level: number | undefined
  for (const [name, value] of search) {
    if (name.startsWith('param_')) params.push([name.slice(6), value])
    else if (name === 'enable_http_compression') enableCompression = value === '1' || value === 'true'
    else if (name === 'http_zlib_compression_level') level = Number(value)
    else if (!HANDLER_PARAMS.has(name) && !HTTP_LAYER_SETTINGS.has(name)) settings.push([name, value])
  }
  const database = String(req.headers['x-clickhouse-database'] ?? '') || search.get('database') || undefined
  const defaultFormat = search.get('default_format') ?? (req.headers['x-clickhouse-format'] ? String(req.headers['x-clickhouse-format']) : undefined)
  const encoding = enableCompression ? acceptedEncoding(req) : undefined
  return {
    query,
    ...(database ? { database } : {}),
    queryId: search.get('query_id') || randomUUID(),
    settings,
    params,
    ...(readonly ? { readonly } : {}),
    ...(encoding ? { encoding } : {}),
    ...(level !== undefined && Number.isFinite(level) ? { level } : {}),
    ...(defaultFormat ? { defaultFormat } : {}),
  }
}

// --- The answer ------------------------------------------------------------------------------

const CONTENT_TYPES: [RegExp, string][] = [
  [
    /^(JSONEachRow|JSONStringsEachRow|JSONCompactEachRow\w*|JSONCompactStringsEachRow\w*|JSONLines|NDJSON|JSONObjectEachRow)$/,
    'application/x-ndjson; charset=UTF-8',
  ],
  [/^JSON/, 'application/json; charset=UTF-8'],
  [/^(TabSeparated\w*|TSV\w*)$/, 'text/tab-separated-values; charset=UTF-8'],
  [/^CSV/, 'text/csv; charset=UTF-8; header=absent'],
]

const contentType = (format: string): string => CONTENT_TYPES.find(([re]) => re.test(format))?.[1] ?? 'text/plain; charset=UTF-8'

function compress(body: Buffer, encoding: Request['encoding'], level?: number): Buffer {
  switch (encoding) {
    case 'gzip':
      return zlib.gzipSync(body, level === undefined ? {} : { level })
    case 'deflate':
      return zlib.deflateSync(body, level === undefined ? {} : { level })
    case 'br':
      return zlib.brotliCompressSync(body)
    case 'zstd':
      return (zlib as unknown as { zstdCompressSync(b: Buffer): Buffer }).zstdCompressSync(body)
    default:
      return body
  }
}

/** `Code: N. DB::Exception: ... (NAME) (version V)`, as a server words it, with chDB's nesting of the same exception taken off. */
function exceptionText(message: string, version: string): { code: number; type: string; text: string } {
  let text = message.trim()
  for (;;) {
    const nested = /^Code: (\d+)\. DB::Exception: (Code: \1\. DB::Exception: [\s\S]*?) \(version [^)]*\)\. \(\w+\)$/.exec(text)
    if (!nested) break
    text = nested[2]!
  }
  const head = /^Code: (\d+)\. DB::Exception: /.exec(text)
  if (!head) text = `Code: ${UNKNOWN_EXCEPTION}. DB::Exception: ${text}. (UNKNOWN_EXCEPTION)`
  const code = Number(/^Code: (\d+)\./.exec(text)![1])
  const type = /\((\w+)\)(?: \(version [^)]*\))?$/.exec(text)?.[1] ?? 'UNKNOWN_EXCEPTION'
  if (!/\(version [^)]*\)$/.test(text)) text = `${text} (version ${version})`
  return { code, type, text: `${text}\n` }
}

// --- The server ------------------------------------------------------------------------------

/** Counts slots so that at most `limit` statements run in the engine at once. */
class Slots {
  private running = 0
  private readonly waiting: (() => void)[] = []
  constructor(private readonly limit: number) {}
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((r) => this.waiting.push(r))
    this.running++
    try {
      return await work()
    } finally {
      this.running--
      this.waiting.shift()?.()
    }
  }
}

/**
 * Starts the stand-in in this process on `127.0.0.1` (an ephemeral port unless `port` is given),
 * executing statements with chDB on the data directory `path`.
 *
 * Every request gets a chDB connection of its own (a session, as an HTTP request without
 * `session_id` gets on a server): the database, the settings and the query parameters it carries are
 * set on that connection (`USE`, `SET name = value`, `SET param_name = value`, so the engine parses
 * each parameter from the text the client sent, as a server does), then the statement runs alone.
 * Connections to one directory run side by side in the engine, as a server's queries do; at most
 * `concurrency` (4) at once.
 */
export async function startClickHouseHttp(options: ClickHouseHttpOptions): Promise<ClickHouseHttp> {
  const chdb = requireFromHere('chdb') as ChdbModule
  const path = resolve(options.path)
  // Held open until close(): with no connection open, chDB shuts the engine down, and the next
  // connection would start it again (about 100 ms, reading every table's metadata).
  const admin = new chdb.Session(path)
  let about: { v: string; tz: string }
  let codes: { code: number; name: string }[]
  try {
    about = (await admin.queryAsync('SELECT version() AS v, timezone() AS tz', { format: 'JSONEachRow' })).json<{ v: string; tz: string }>()
    const names = new Set(STATUS_BY_NAME.flatMap(([, n]) => n))
    codes = (
      await admin.queryAsync(
        `SELECT number AS code, errorCodeToName(number) AS name FROM numbers(2000) WHERE name IN (${[...names].map(sqlString).join(', ')})`,
        { format: 'JSONEachRow' },
      )
    )
      .text()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { code: number; name: string })
  } catch (err) {
    admin.close()
    throw err
  }
  const statusOf = new Map<number, number>()
  for (const { code, name } of codes) statusOf.set(Number(code), STATUS_BY_NAME.find(([, n]) => n.includes(name))![0])

  const slots = new Slots(Math.max(1, options.concurrency ?? 4))
  const counters = { requests: 0, statements: 0, exceptions: 0 }
  const baseHeaders = {
    'X-ClickHouse-Server-Display-Name': 'sieve-testkit-clickhouse-http',
    'X-ClickHouse-Timezone': about.tz,
  }

  async function execute(request: Request, statement: Statement, format: string): Promise<{ body: Buffer; summary: Record<string, string> }> {
    if (statement.noData) {
      return { body: Buffer.alloc(0), summary: summary(0, 0, 0, true) }
    }
    return slots.run(async () => {
      const session: Session = new chdb.Session(path)
      try {
        // Parameters are no settings: set before `readonly`, which would refuse them. The request's
        // settings after it, so that readonly = 1 refuses them as a server does.
        const prelude: string[] = []
        if (request.database) prelude.push(`USE ${quoteIdentifier(request.database)}`)
        for (const [name, value] of request.params) {
          if (!NAME.test(name)) throw new HttpException(456, 'UNKNOWN_QUERY_PARAMETER', `Invalid query parameter name '${name}'`)
          prelude.push(`SET param_${name} = ${sqlString(value)}`)
        }
        if (request.readonly) prelude.push(`SET readonly = ${request.readonly}`)
        for (const [name, value] of request.settings) {
          if (!NAME.test(name)) throw new HttpException(115, 'UNKNOWN_SETTING', `Unknown setting '${name}'`)
          prelude.push(`SET ${name} = ${sqlString(value)}`)
        }
        if (prelude.length) await session.queryAsync(prelude.join('; '), { format: 'TabSeparated' })
        counters.statements++
        const result = await session.queryAsync(statement.text, { format })
        return { body: Buffer.from(result.bytes()), summary: summary(result.rowsRead, result.bytesRead, result.elapsed, statement.insert) }
      } finally {
        session.close()
      }
    })
  }

  function summary(rows: number, bytes: number, elapsedSeconds: number, insert: boolean): Record<string, string> {
    const r = String(rows || 0)
    const b = String(bytes || 0)
    return {
      read_rows: r,
      read_bytes: b,
      written_rows: insert ? r : '0',
      written_bytes: insert ? b : '0',
      total_rows_to_read: '0',
      result_rows: insert ? '0' : r,
      result_bytes: insert ? '0' : b,
      elapsed_ns: String(Math.max(0, Math.round((elapsedSeconds || 0) * 1e9))),
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    counters.requests++
    const url = new URL(req.url ?? '/', 'http://stand-in')
    if (url.pathname === '/ping' || (url.pathname === '/' && req.method === 'GET' && !url.searchParams.has('query'))) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n')
      return
    }
    let request: Request | undefined
    const queryId = url.searchParams.get('query_id') || randomUUID()
    try {
      if (url.pathname !== '/') throw new HttpException(NOT_IMPLEMENTED, 'NOT_IMPLEMENTED', `There is no handle ${url.pathname}`)
      if (req.method !== 'GET' && req.method !== 'POST') throw new HttpException(NOT_IMPLEMENTED, 'NOT_IMPLEMENTED', `HTTP method ${req.method} is not allowed`)
      request = await readRequest(req, url, options.users)
      if (request.query.trim() === '') throw new HttpException(SYNTAX_ERROR, 'SYNTAX_ERROR', 'Empty query')
      const statement = readStatement(request.query)
      const format = statement.format ?? request.defaultFormat ?? 'TabSeparated'
      const { body, summary } = await execute(request, statement, format)
      const encoded = compress(body, request.encoding, request.level)
      res.writeHead(200, {
        ...baseHeaders,
        'Content-Type': contentType(format),
        'X-ClickHouse-Query-Id': request.queryId,
        'X-ClickHouse-Format': format,
        'X-ClickHouse-Summary': JSON.stringify(summary),
        ...(request.encoding ? { 'Content-Encoding': request.encoding } : {}),
        'Content-Length': encoded.length,
      })
      res.end(encoded)
    } catch (err) {
      counters.exceptions++
      const { code, text } = exceptionText(err instanceof Error ? err.message : String(err), about.v)
      const encoded = compress(Buffer.from(text), request?.encoding, request?.level)
      if (res.headersSent) {
        res.destroy()
        return
      }
      res.writeHead(statusOf.get(code) ?? 500, {
        ...baseHeaders,
        'Content-Type': 'text/plain; charset=UTF-8',
        'X-ClickHouse-Query-Id': request?.queryId ?? queryId,
        'X-ClickHouse-Exception-Code': String(code),
        'X-ClickHouse-Format': request?.defaultFormat ?? 'TabSeparated',
        ...(request?.encoding ? { 'Content-Encoding': request.encoding } : {}),
        'Content-Length': encoded.length,
      })
      res.end(encoded)
    }
  }

  const inFlight = new Set<Promise<void>>()
  // A server takes URLs up to http_max_uri_size (1 MiB): query parameters travel in the URL.
  const server = createServer({ maxHeaderSize: (1 << 20) + (64 << 10), keepAliveTimeout: 10_000 }, (req, res) => {
    const done = handle(req, res).catch(() => {
      res.destroy()
    })
    inFlight.add(done)
    void done.finally(() => inFlight.delete(done))
  })
  server.listen(options.port ?? 0, options.host ?? '127.0.0.1')
  await once(server, 'listening')
  const { address, port } = server.address() as AddressInfo
  const host = address.includes(':') ? `[${address}]` : address
  return {
    url: `http://${host}:${port}`,
    stats: () => ({ ...counters }),
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()))
      server.closeIdleConnections()
      while (inFlight.size) await Promise.allSettled([...inFlight])
      server.closeAllConnections()
      await closed
      admin.close()
      // Connections close() released while statements still ran are torn down once those end.
      await chdb.drainPending()
    },
  }
}

// --- As a child process ----------------------------------------------------------------------

const MAIN = fileURLToPath(new URL('./clickhouse-http-main.ts', import.meta.url))
const REPO = fileURLToPath(new URL('../../', import.meta.url))

export interface ClickHouseHttpProcess extends ClickHouseHttp {
  child: ChildProcess
  /** What the process printed (stdout and stderr). */
  output(): string
}

/**
 * The stand-in in a child process of its own (`testkit/src/clickhouse-http-main.ts`), for tests
 * where the processes using the store are children too: chDB lets one process open a data
 * directory, and the stand-in is then that process. `close()` stops it with SIGTERM and waits for
 * its exit (it ends its statements and releases the engine first); should this process end first,
 * the child sees its stdin close and stops too. `stats()` is not kept across the process boundary
 * and reads zeros.
 */
export async function spawnClickHouseHttp(options: ClickHouseHttpOptions & { env?: Record<string, string> }): Promise<ClickHouseHttpProcess> {
  const args = ['--conditions=sieve-source', '--import', 'tsx', MAIN, '--path', resolve(options.path)]
  if (options.port !== undefined) args.push('--port', String(options.port))
  if (options.concurrency !== undefined) args.push('--concurrency', String(options.concurrency))
  const child = spawn(process.execPath, args, { cwd: REPO, env: { ...process.env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  const url = await new Promise<string>((resolveUrl, reject) => {
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(output)
      if (m) {
        cleanup()
        resolveUrl(m[1]!)
      }
    }
    const exit = (code: number | null) => {
      cleanup()
      reject(new Error(`the ClickHouse HTTP stand-in exited ${code}:\n${output}`))
    }
    const cleanup = () => {
      child.stdout!.off('data', check)
      child.off('exit', exit)
    }
    child.stdout!.on('data', check)
    child.on('exit', exit)
  })
  return {
    url,
    child,
    output: () => output,
    stats: () => ({ requests: 0, statements: 0, exceptions: 0 }),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      await once(child, 'exit')
    },
  }
}

// --- Storage for a test ----------------------------------------------------------------------

/** How tests reach storage: `embedded` (chDB in process, the default) or `http` (`SIEVE_TEST_STORAGE=http`: the server path, over the stand-in). */
export type TestStorageKind = 'embedded' | 'http'

export function testStorageKind(): TestStorageKind {
  const kind = process.env.SIEVE_TEST_STORAGE ?? 'embedded'
  if (kind !== 'embedded' && kind !== 'http') throw new Error(`SIEVE_TEST_STORAGE must be embedded or http (got ${kind})`)
  return kind
}

export interface TestStorage {
  kind: TestStorageKind
  storage: import('@sieve/core').Storage
  /** What `createStorage` was given: `{ kind: 'server', url, database }` over HTTP. */
  config: import('@sieve/core').Config['clickhouse']
  /** The stand-in, over HTTP. */
  server?: ClickHouseHttp
  /** Closes the client, then the stand-in. */
  close(): Promise<void>
}

/**
 * Storage for a test on the data directory `path`, opened as production opens it (`createStorage`):
 * embedded, or over HTTP to a stand-in started in this process on the same directory (chDB binds
 * one directory per process, so both may be open at once on it). `kind` defaults to
 * `SIEVE_TEST_STORAGE`, so a test written against this runs over either path.
 */
export async function openTestStorage({
  path,
  database = 'sieve',
  kind = testStorageKind(),
}: {
  path: string
  database?: string
  kind?: TestStorageKind
}): Promise<TestStorage> {
  const { createStorage } = await import('@sieve/core')
  if (kind === 'embedded') {
    const config = { kind: 'embedded' as const, path, database }
    const storage = await createStorage(config)
    return { kind, storage, config, close: () => storage.close() }
  }
  const server = await startClickHouseHttp({ path })
  const config = { kind: 'server' as const, url: server.url, database }
  try {
    const storage = await createStorage(config)
    return {
      kind,
      storage,
      config,
      server,
      async close() {
        await storage.close()
        await server.close()
      },
    }
  } catch (err) {
    await server.close()
    throw err
  }
}
