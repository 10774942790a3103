import type { Storage } from '@sieve/core'

/** The single number a `SELECT count() ...` query returns (0 when it returns no row). */
export async function countRows(storage: Storage, query: string): Promise<number> {
  const result = await storage.query({ query, format: 'JSONEachRow' })
  const [row] = (await result.json()) as Record<string, string | number>[]
  return Number(Object.values(row ?? { n: 0 })[0])
}
