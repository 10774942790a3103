export * from './otlp/index.js'
