export { createOtlpRouter, otlpRouterOptionsSchema, type OtlpRouterOptions } from './otlp-router.js'
export { DEFAULT_PROJECT } from './authenticate.js'
