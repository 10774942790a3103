import type { Storage } from '@sieve/core'

/** The judge scores (rubrics and `rubric.dimension`s) stored in a project, by name. */
export async function judgeScoreNames(client: Storage, projectId: string): Promise<string[]> {
  const result = await client.query({
    query: `SELECT DISTINCT scorer_name AS name FROM scores WHERE project_id = {projectId:String} AND kind = 'judge' ORDER BY name`,
    query_params: { projectId },
    format: 'JSONEachRow',
  })
  return (await result.json<{ name: string }>()).map((r) => r.name)
}
