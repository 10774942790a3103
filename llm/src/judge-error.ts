/**
 * Why a judge verdict could not be had. Recorded in the `error` column of `scores`; such rows are
 * never read as low scores.
 */
export type JudgeErrorCode =
  | 'CONFIG_INVALID'
  | 'RUBRIC_INVALID'
  | 'LABELS_INVALID'
  /** The judge answered, twice, with something that is not a valid verdict. */
  | 'INVALID_ANSWER'
  /** 429 / 5xx / network errors outlasted the retries. */
  | 'PROVIDER_UNAVAILABLE'
  /** The endpoint refused the request (400, 401, 404...): retrying would not help. */
  | 'REQUEST_REJECTED'
  /** Panel judges split with no strict majority; the trace goes to review instead. */
  | 'PANEL_NO_MAJORITY'

export class JudgeError extends Error {
  constructor(
    readonly code: JudgeErrorCode,
    message: string,
  ) {
    super(message)
  }
}
