export { INGESTER_GROUP, type Ingester, startIngester, storeDeadLetters } from './ingester.js'
