/**
 * `npm run bench:insert`: which payload format makes the cheapest span insert into the embedded
 * engine. The same decoded spans (bench:ingest's GenAI traffic) are serialized as each text format
 * chDB's raw insert takes and inserted into `spans`, and into a Null-engine copy of it (parsing
 * only, nothing stored). Costs are CPU time, the engine's threads included, so the figures hold on
 * a shared machine; every variant runs in every round, in alternating order, and the first round
 * only warms up. A checksum over the stored rows shows each format stores the same data.
 * BENCH_REQUESTS (default 32) requests of 512 spans, BENCH_ROUNDS (default 6).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createChdbConnection } from 'chdb/connection'
import { SPAN_COLUMNS, createStorage, migrate, spanToRow, type Span, type SpanRowValues } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/otlp'
import { protobufBatch } from '@sieve/testkit/bench'
import { median, processCpuSeconds } from '@sieve/testkit'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 32)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const BATCH = 8192
/** The formats chDB's raw insert takes (text formats only). */
type RawInsertFormat = Parameters<ReturnType<typeof createChdbConnection>['chdb']['rawInsert']>[0]['format']
const SETTINGS = { optimize_on_insert: 0 }

// Escaping per the ClickHouse format reference: TabSeparated escapes \ tab and line breaks in a
// field; a Map field is written as its text form, {'key':'value'}, in which quoted strings escape
// \ and ' as well; CSV quotes every string and doubles the quotes inside.
const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\', "'": "\\'" }
function escaper(chars: string): (s: string) => string {
  const any = new RegExp(`[${chars}]`)
  const every = new RegExp(`[${chars}]`, 'g')
  return (s) => (any.test(s) ? s.replace(every, (c) => ESCAPES[c] as string) : s)
}
const tsvString = escaper('\\t\\n\\r\\\\')
const quotedString = escaper("\\t\\n\\r\\\\'")

function mapText(map: Record<string, string>): string {
  let out = '{'
  for (const key in map) out += `${out.length > 1 ? ',' : ''}'${quotedString(key)}':'${quotedString(map[key] as string)}'`
  return `${out}}`
}
const csvString = (s: string): string => `"${s.replace(/"/g, '""')}"`

function serializer(field: (value: SpanRowValues[number]) => string, separator: string) {
  return (rows: SpanRowValues[]): string => {
    let payload = ''
    for (const row of rows) payload += `${row.map(field).join(separator)}\n`
    return payload
  }
}

interface Variant {
  name: string
  format: RawInsertFormat
  serialize: (rows: SpanRowValues[]) => string
  settings?: Record<string, number>
  batch?: number
}
const FORMATS: Variant[] = [
  {
    name: 'JSONCompactEachRow (Sieve)',
    format: 'JSONCompactEachRow',
    serialize: (rows) => {
      let p = ''
      for (const r of rows) p += `${JSON.stringify(r)}\n`
      return p
    },
  },
  {
    name: 'TabSeparated',
    format: 'TabSeparated',
    serialize: serializer((v) => (typeof v === 'string' ? tsvString(v) : typeof v === 'number' ? String(v) : mapText(v)), '\t'),
  },
  {
    name: 'CSV',
    format: 'CSV',
    serialize: serializer((v) => (typeof v === 'string' ? csvString(v) : typeof v === 'number' ? String(v) : csvString(mapText(v))), ','),
  },
]
const VARIANTS: Variant[] = [
  ...FORMATS,
  { ...FORMATS[0]!, name: 'JSONCompactEachRow, parallel parsing off', settings: { input_format_parallel_parsing: 0 } },
  { ...FORMATS[0]!, name: 'JSONCompactEachRow, batches of 1,024', batch: 1024 },
]

const work = mkdtempSync(join(tmpdir(), 'sieve-bench-formats-'))
const storage = await createStorage({ kind: 'embedded', path: join(work, 'engine'), database: 'sieve' })
await migrate(storage, { retentionDays: 30 })
await storage.command({ query: 'CREATE TABLE spans_parse_only AS spans ENGINE = Null' })
// A connection of the bench's own to the same engine, as the embedded storage's span inserts use.
const chdb = createChdbConnection({ path: join(work, 'engine') })
await chdb.chdb.queryAsync('USE sieve')

console.log(`decoding ${REQUESTS} OTLP requests of 512 spans...`)
const spans: Span[] = []
for (let i = 0; i < REQUESTS; i++) for (const span of decodeProtobufRequest(protobufBatch(512), 'default').spans) spans.push(span)
const batchesOf = (size: number): Span[][] => Array.from({ length: Math.ceil(spans.length / size) }, (_, i) => spans.slice(i * size, (i + 1) * size))

const cpuMs = (): number => processCpuSeconds() * 1000
const perCpuSecond = (ms: number): number => Math.round((spans.length / ms) * 1000)
const checksum = async (): Promise<string> =>
  (await chdb.chdb.queryAsync(`SELECT count(), sum(cityHash64(${SPAN_COLUMNS.join(', ')})) FROM spans`, { format: 'TSV' })).text().trim()

type Figures = { build: number[]; serialize: number[]; insert: number[]; parse: number[]; bytes: number; checksum: string }
const figures = new Map<string, Figures>()
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? [...VARIANTS].reverse() : VARIANTS
  for (const variant of order) {
    const f = figures.get(variant.name) ?? { build: [], serialize: [], insert: [], parse: [], bytes: 0, checksum: '' }
    let serializeMs = 0
    let insertMs = 0
    let parseMs = 0
    let bytes = 0
    let buildMs = 0
    for (const batch of batchesOf(variant.batch ?? BATCH)) {
      let started = cpuMs()
      const rows = batch.map(spanToRow)
      buildMs += cpuMs() - started
      started = cpuMs()
      const payload = Buffer.from(variant.serialize(rows))
      serializeMs += cpuMs() - started
      bytes += payload.length
      const settings = { ...SETTINGS, ...variant.settings }
      started = cpuMs()
      await chdb.chdb.rawInsert({ table: 'spans', columns: SPAN_COLUMNS, format: variant.format, values: payload, settings })
      insertMs += cpuMs() - started
      started = cpuMs()
      await chdb.chdb.rawInsert({ table: 'spans_parse_only', columns: SPAN_COLUMNS, format: variant.format, values: payload, settings })
      parseMs += cpuMs() - started
    }
    f.checksum = await checksum()
    await storage.command({ query: 'TRUNCATE TABLE spans' })
    if (round === 0) continue
    f.build.push(perCpuSecond(buildMs))
    f.serialize.push(perCpuSecond(serializeMs))
    f.insert.push(perCpuSecond(insertMs))
    f.parse.push(perCpuSecond(parseMs))
    f.bytes = bytes
    figures.set(variant.name, f)
  }
}
await chdb.close()
await storage.close()
rmSync(work, { recursive: true, force: true })

const base = figures.get(VARIANTS[0]!.name)!
const total = (f: Figures): number => 1 / (1 / median(f.build) + 1 / median(f.serialize) + 1 / median(f.insert))
const col = (s: string | number, w: number): string => String(s).padStart(w)
console.log(`
Insert formats: ${spans.length} spans in batches of ${BATCH} unless said, ${ROUNDS - 1} measured rounds; spans per CPU-second (engine threads included), medians
row building (spanToRow, shared by all): ${median(base.build)}

${'variant'.padEnd(42)}${col('bytes/span', 11)}${col('serialize', 11)}${col('insert', 9)}${col('parse only', 12)}${col('all three', 11)}${col('vs Sieve', 10)}`)
for (const { name } of VARIANTS) {
  const f = figures.get(name)!
  const same = f.checksum === base.checksum ? '' : `  STORED DIFFERENT ROWS (${f.checksum} vs ${base.checksum})`
  console.log(
    `${name.padEnd(42)}${col(Math.round(f.bytes / spans.length), 11)}${col(median(f.serialize), 11)}${col(median(f.insert), 9)}${col(median(f.parse), 12)}${col(Math.round(total(f)), 11)}${col(`${(total(f) / total(base)).toFixed(2)}x`, 10)}${same}`,
  )
}
