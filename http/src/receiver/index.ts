export { createOtlpRouter, otlpRouterOptionsSchema, type OtlpRouterOptions } from './otlp-router.js'
export { bearerToken, DEFAULT_PROJECT } from './authenticate.js'
export { createLogsRouter, type LogsRouterOptions } from './logs-router.js'
export { BytesInFlight } from './admission.js'
