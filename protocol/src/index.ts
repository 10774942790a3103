export * from './semconv.js'
export * from './feedback.js'
