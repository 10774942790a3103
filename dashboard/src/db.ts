import { SIMULATION_ENVIRONMENT } from '@sieve/protocol'
import { ALL_ENVIRONMENTS, type Filters } from './params.js'

/**
 * A Date as a DateTime64(3) query parameter: Unix seconds with milliseconds. A wall time without
 * a zone ('YYYY-MM-DD hh:mm:ss.sss') is read in the server's timezone, which need not be UTC.
 */
export function chTime(d: Date): string {
  return (d.getTime() / 1000).toFixed(3)
}

/**
 * SQL conditions for the optional filters, bound as parameters. `columns` names each dimension's
 * column in the table queried (the rollups and `traces` spell them the same except `service`). The
 * environment is always a condition: simulations are left out unless asked for (params.ts).
 */
export function filterSql(f: Filters, columns: Partial<Record<keyof Filters, string>> = DIMENSION_COLUMNS): { sql: string; params: Record<string, string> } {
  const parts: string[] = []
  const params: Record<string, string> = {}
  for (const key of Object.keys(columns) as (keyof Filters)[]) {
    if (key === 'environment') {
      if (f.environment === ALL_ENVIRONMENTS) continue
      parts.push(`${columns[key]} ${f.environment === undefined ? '!=' : '='} {f_environment:String}`)
      params.f_environment = f.environment ?? SIMULATION_ENVIRONMENT
      continue
    }
    const value = f[key]
    if (value === undefined) continue
    parts.push(`${columns[key]} = {f_${key}:String}`)
    params[`f_${key}`] = value
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params }
}

export const DIMENSION_COLUMNS: Record<keyof Filters, string> = {
  service: 'service_name',
  agent_version: 'agent_version',
  prompt_version: 'prompt_version',
  model: 'model',
  environment: 'environment',
}
