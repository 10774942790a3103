import type { Command } from '../command.js'
import { collectorCommand } from './collector.js'
import { ingesterCommand } from './ingester.js'
import { scorerCommand } from './scorer.js'
import { checksCommand } from './checks.js'
import { dashboardCommand } from './dashboard.js'
import { datasetCommand } from './dataset.js'
import { evalCommand } from './eval.js'
import { exportCommand } from './export.js'
import { judgeCommand } from './judge.js'
import { migrateCommand } from './migrate.js'
import { scoreCommand } from './score.js'
import { scrubCommand } from './scrub.js'
import { simulateCommand } from './simulate.js'
import { upCommand } from './up.js'

/** Every `sieve` subcommand, in the order `sieve --help` lists them. */
export const commands: Command[] = [
  upCommand,
  collectorCommand,
  ingesterCommand,
  scorerCommand,
  dashboardCommand,
  migrateCommand,
  scoreCommand,
  checksCommand,
  judgeCommand,
  exportCommand,
  datasetCommand,
  evalCommand,
  simulateCommand,
  scrubCommand,
]
