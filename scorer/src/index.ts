export * from './assembler/trace-assembler.js'
export * from './scorer.js'
export * from './scorer-metrics.js'
export * from './config/scorer-options.js'
export * from './scores/kafka-scores.js'
// A user's check module (`checks.modules`) written against this package keeps loading: what it needs is here too.
export { defineCheck, traceView } from '@sieve/scoring'
