import type { Storage } from '@sieve/core'
import { rows } from '../db.js'

export interface DashboardStatus {
  /** The judge the scorer runs with, as configured; `on: false` when no judge model is set. */
  judge: { on: boolean; model: string | null }
  /** Start of the oldest trace of the last 30 days (ISO), or null: the UI picks its default range from it. */
  oldestTrace: string | null
}

/** What the UI needs before it draws anything: whether judge figures can exist, and how far back the data goes. */
export async function status(client: Storage, projectId: string, judgeModel: string | undefined): Promise<DashboardStatus> {
  const [row] = await rows<{ oldest: string | null }>(
    client,
    `SELECT if(count() = 0, NULL, toString(min(start_time))) AS oldest FROM traces
     WHERE project_id = {project:String} AND start_time >= now64(3) - INTERVAL 30 DAY`,
    { project: projectId },
  )
  const oldest = row?.oldest ? `${row.oldest.replace(' ', 'T')}Z` : null
  return { judge: { on: Boolean(judgeModel), model: judgeModel || null }, oldestTrace: oldest }
}
