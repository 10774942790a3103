import { readFileSync } from 'node:fs'

export * from './otlp-protobuf.js'
export * from './otel-spans.js'

/** An OTLP/JSON export request of one trace, as the OpenTelemetry protocol's examples write one. */
export const exampleOtlpTrace = (): Buffer => readFileSync(new URL('../fixtures/otlp-trace.json', import.meta.url))
