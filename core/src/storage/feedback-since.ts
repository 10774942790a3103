import type { Storage } from './storage.js'

/** One trace's feedback rows stored after a time, as the judge's feedback poller reads them. */
export interface FeedbackSinceRow {
  project_id: string
  trace_id: string
  /** The lowest score among the rows that are not labels. */
  lowest: number
  /** How many rows are not labels. */
  rated: number
  /** The rubrics the labels among the rows label. */
  rubrics: string[]
  /** The newest row's `created_at`, as the next read's `since`. */
  last: string
}

/**
 * Per project and trace, the `feedback` rows created after `since` (a UTC wall time), rows whose
 * source is one of `labelSources` counted apart as labels of a rubric.
 */
export async function feedbackSince(storage: Storage, since: string, labelSources: readonly string[]): Promise<FeedbackSinceRow[]> {
  const result = await storage.query({
    query: `SELECT project_id, trace_id, minIf(score, NOT is_label) AS lowest, countIf(NOT is_label) AS rated,
                groupUniqArrayIf(attributes['rubric'], is_label) AS rubrics, toString(max(created_at)) AS last
              FROM (SELECT *, source IN {labels:Array(String)} AS is_label FROM feedback
                    WHERE created_at > parseDateTime64BestEffort({since:String}, 3, 'UTC'))
              GROUP BY project_id, trace_id`,
    query_params: { since, labels: labelSources },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return result.json<FeedbackSinceRow>()
}
