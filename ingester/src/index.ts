export * from './ingester.js'
