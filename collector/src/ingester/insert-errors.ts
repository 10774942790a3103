import { UnprocessableSpansError } from '@sieve/core'

/**
 * ClickHouse error codes that mean "this data can never be inserted" (a value the column type
 * cannot hold or parse), as opposed to "not now" (server down, too many parts, timeouts).
 * CANNOT_PARSE_TEXT, CANNOT_PARSE_QUOTED_STRING, CANNOT_PARSE_INPUT_ASSERTION_FAILED,
 * CANNOT_PARSE_DATE, CANNOT_PARSE_DATETIME, TYPE_MISMATCH, ARGUMENT_OUT_OF_BOUND,
 * CANNOT_CONVERT_TYPE, CANNOT_PARSE_NUMBER, INCORRECT_DATA, TOO_LARGE_STRING_SIZE,
 * VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE, CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN.
 */
const DATA_ERROR_CODES = new Set([6, 26, 27, 38, 41, 53, 69, 70, 72, 117, 131, 321, 349])

/** The ClickHouse error code of a server error (`code`) or an embedded-engine error (`Code: N.` in the message). */
function clickHouseCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code)
  const match = /\bCode: (\d+)\./.exec((err as Error)?.message ?? '')
  return match ? Number(match[1]) : undefined
}

/** Turns an insert error about the data into UnprocessableSpansError, so the queue dead-letters the spans instead of retrying forever. */
export function classifyInsertError(err: unknown): unknown {
  const code = clickHouseCode(err)
  if (code !== undefined && DATA_ERROR_CODES.has(code)) return new UnprocessableSpansError((err as Error).message)
  return err
}
