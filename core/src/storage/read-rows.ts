import type { Storage } from './storage.js'

/** Runs one read query with bound parameters and returns its rows (64-bit integers as numbers). */
export async function readRows<T>(client: Storage, query: string, params: Record<string, unknown>): Promise<T[]> {
  const result = await client.query({
    query,
    query_params: params,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return result.json<T>()
}
