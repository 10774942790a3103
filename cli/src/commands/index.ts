import type { Command } from '../command.js'
import { judgeCommand } from './judge.js'

/** Every `sieve` subcommand, in the order `sieve --help` lists them. */
export const commands: Command[] = [judgeCommand]
