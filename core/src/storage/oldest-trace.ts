import { readRows } from './read-rows.js'
import type { Storage } from './storage.js'

/** Start of a project's oldest trace of the last 30 days, as ClickHouse prints a DateTime64 (UTC), or null. */
export async function oldestRecentTrace(client: Storage, projectId: string): Promise<string | null> {
  const [row] = await readRows<{ oldest: string | null }>(
    client,
    `SELECT if(count() = 0, NULL, toString(min(start_time))) AS oldest FROM traces
     WHERE project_id = {project:String} AND start_time >= now64(3) - INTERVAL 30 DAY`,
    { project: projectId },
  )
  return row?.oldest ?? null
}
