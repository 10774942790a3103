import type { Command } from '../command.js'
import { checksCommand } from './checks.js'
import { dashboardCommand } from './dashboard.js'
import { migrateCommand } from './migrate.js'
import { scoreCommand } from './score.js'
import { upCommand } from './up.js'

/** Every `sieve` subcommand, in the order `sieve --help` lists them. */
export const commands: Command[] = [upCommand, migrateCommand, scoreCommand, checksCommand, dashboardCommand]
