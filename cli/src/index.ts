export type { Command } from './command.js'
export { UsageError } from './command.js'
