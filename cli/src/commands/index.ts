import type { Command } from '../command.js'
import { migrateCommand } from './migrate.js'
import { upCommand } from './up.js'

/** Every `sieve` subcommand, in the order `sieve --help` lists them. */
export const commands: Command[] = [upCommand, migrateCommand]
