import { RPC_CODE } from '@sieve/otlp'

/**
 * A request the receiver answers with an error status; the message goes to the sender as is, so
 * it is written in the receiver's own words about the request. Never put the text of a storage
 * or queue error in it: ClickHouse quotes the rows it refuses, and a batch holds many projects'.
 */
export class ReceiverError extends Error {
  constructor(
    readonly status: number,
    readonly rpcCode: (typeof RPC_CODE)[keyof typeof RPC_CODE],
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new ReceiverError(400, RPC_CODE.INVALID_ARGUMENT, message)
export const unauthorized = (message: string) => new ReceiverError(401, RPC_CODE.UNAUTHENTICATED, message)
export const tooLarge = (message: string) => new ReceiverError(413, RPC_CODE.INVALID_ARGUMENT, message)
export const unsupported = (message: string) => new ReceiverError(415, RPC_CODE.INVALID_ARGUMENT, message)

/** Seconds a sender shed for load waits before retrying: the queue drains thousands of spans a second. */
export const SHED_RETRY_AFTER = 1
/**
 * A request refused for load before its body was read or decoded (see admission.ts). Made without
 * a stack: under overload hundreds are refused a second, and capturing the stack of each was about
 * a tenth of the main thread's time spent refusing them. Nothing reads it: the answer is the message.
 */
export const shed = (message = 'the collector is busy with other requests; retry later') => {
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    return new ReceiverError(429, RPC_CODE.RESOURCE_EXHAUSTED, message, SHED_RETRY_AFTER)
  } finally {
    Error.stackTraceLimit = limit
  }
}
