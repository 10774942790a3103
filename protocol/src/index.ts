export * from './semconv.js'
export * from './feedback.js'
export * from './ids.js'
export * from './listening-agent.js'
