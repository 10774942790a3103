/**
 * Conditions a reader adds to a read query of the read model, as ` AND …` SQL over the table's
 * dimension columns (service, versions, model, environment), with the parameters they bind. The
 * caller builds it from its own filters (the dashboard's `filterSql`); it names no table.
 */
export interface SqlFilter {
  sql: string
  params: Record<string, string>
}

/** A read of one project over a time range (DateTime64(3) parameters, Unix seconds), narrowed by a filter. */
export interface FilteredRange {
  projectId: string
  from: string
  to: string
  filter: SqlFilter
}
