export * from './config.js'
export * from './span.js'
export * from './genai.js'
export * from './queue.js'
