export * from './queue-rules.js'
export * from './review-filler.js'
