import { UnprocessableSpansError } from '@sieve/core'

/**
 * ClickHouse error codes that mean "this data can never be inserted" (a value the column type
 * cannot hold or parse, a row a constraint refuses), as opposed to "not now" (server down, too
 * many parts, timeouts). The names go to the sender of a refused span; the message, which
 * quotes the row, does not.
 */
const DATA_ERROR_CODES = new Map([
  [6, 'CANNOT_PARSE_TEXT'],
  [25, 'CANNOT_PARSE_ESCAPE_SEQUENCE'],
  [26, 'CANNOT_PARSE_QUOTED_STRING'],
  [27, 'CANNOT_PARSE_INPUT_ASSERTION_FAILED'],
  [38, 'CANNOT_PARSE_DATE'],
  [41, 'CANNOT_PARSE_DATETIME'],
  [53, 'TYPE_MISMATCH'],
  [69, 'ARGUMENT_OUT_OF_BOUND'],
  [70, 'CANNOT_CONVERT_TYPE'],
  [72, 'CANNOT_PARSE_NUMBER'],
  [117, 'INCORRECT_DATA'],
  [131, 'TOO_LARGE_STRING_SIZE'],
  [321, 'VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE'],
  [349, 'CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN'],
  [407, 'DECIMAL_OVERFLOW'],
  [469, 'VIOLATED_CONSTRAINT'],
])

/** The ClickHouse error code of a server error (`code`) or an embedded-engine error (`Code: N.` in the message). */
function clickHouseCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown }).code
  if (typeof code === 'string' && /^\d+$/.test(code)) return Number(code)
  const match = /\bCode: (\d+)\./.exec((err as Error)?.message ?? '')
  return match ? Number(match[1]) : undefined
}

/**
 * Turns an insert error about the data into UnprocessableSpansError, so the queue splits the
 * batch and dead-letters the spans storage refuses instead of retrying them forever.
 */
export function classifyInsertError(err: unknown): unknown {
  if (err instanceof UnprocessableSpansError) return err
  const code = clickHouseCode(err)
  const name = code === undefined ? undefined : DATA_ERROR_CODES.get(code)
  if (name === undefined) return err
  return new UnprocessableSpansError((err as Error).message, `storage refused it (ClickHouse error ${code} ${name})`)
}
