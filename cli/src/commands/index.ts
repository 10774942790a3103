import type { Command } from '../command.js'
import { collectorCommand } from './collector.js'
import { ingesterCommand } from './ingester.js'
import { scorerCommand } from './scorer.js'
import { checksCommand } from './checks.js'
import { migrateCommand } from './migrate.js'
import { scoreCommand } from './score.js'
import { upCommand } from './up.js'

/** Every `sieve` subcommand, in the order `sieve --help` lists them. */
export const commands: Command[] = [upCommand, collectorCommand, ingesterCommand, scorerCommand, migrateCommand, scoreCommand, checksCommand]
