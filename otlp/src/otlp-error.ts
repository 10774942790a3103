/** Why a whole OTLP request could not be decoded; the receiver answers 400 with this message. */
export class OtlpDecodeError extends Error {
  constructor(
    readonly code: 'PROTOBUF_MALFORMED' | 'JSON_INVALID' | 'JSON_SHAPE' | 'NESTING_TOO_DEEP',
    message: string,
  ) {
    super(message)
  }
}
