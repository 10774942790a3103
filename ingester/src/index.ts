export { type Ingester, startIngester } from './ingester.js'
