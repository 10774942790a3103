export * from './app.js'
