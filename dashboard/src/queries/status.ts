import { oldestRecentTrace, type Storage } from '@sieve/core'

export interface DashboardStatus {
  /** The judge the scorer runs with, as configured; `on: false` when no judge model is set. */
  judge: { on: boolean; model: string | null }
  /** Start of the oldest trace of the last 30 days (ISO), or null: the UI picks its default range from it. */
  oldestTrace: string | null
}

/** What the UI needs before it draws anything: whether judge figures can exist, and how far back the data goes. */
export async function status(client: Storage, projectId: string, judgeModel: string | undefined): Promise<DashboardStatus> {
  const stored = await oldestRecentTrace(client, projectId)
  const oldest = stored ? `${stored.replace(' ', 'T')}Z` : null
  return { judge: { on: Boolean(judgeModel), model: judgeModel || null }, oldestTrace: oldest }
}
