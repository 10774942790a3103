export { Scorer } from './scorer.js'
export { createScorerMetrics } from './scorer-metrics.js'
export { loadScorerOptions } from './config/scorer-options.js'
export { kafkaScoreSink } from './scores/kafka-scores.js'
// A user's check module (`checks.modules`) written against this package keeps loading: what it needs is here too.
export { defineCheck, traceView } from '@sieve/scoring'
