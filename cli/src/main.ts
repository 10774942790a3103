#!/usr/bin/env node
import { parseCommandArgs } from './args.js'
import { UsageError } from './command.js'
import { commands } from './commands/index.js'
import { commandHelp, mainHelp, usage } from './help.js'
import { OperationError } from './store/operations.js'
import { versionText } from './version.js'

/*
 * `sieve <command>`. This file and what it imports stay light: `sieve --help` and `sieve --version`
 * load no storage engine, judge, HTTP server or Kafka client; commands import those in `run`.
 */

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (name === '--version' || name === '-v') {
    console.log(versionText())
    return 0
  }
  if (!name || name === '--help' || name === '-h' || (name === 'help' && rest.length === 0)) {
    if (name) console.log(mainHelp(commands))
    else console.error(mainHelp(commands))
    return name ? 0 : 2
  }
  const wanted = name === 'help' ? rest[0] : name
  const command = commands.find((c) => c.name === wanted)
  if (!command) {
    console.error(`sieve: unknown command '${wanted}'\n\n${mainHelp(commands)}`)
    return 2
  }
  if (name === 'help' || rest.includes('--help') || rest.includes('-h')) {
    console.log(commandHelp(command))
    return 0
  }
  try {
    return await command.run(parseCommandArgs(command, rest))
  } catch (err) {
    if ((err as { code?: string }).code === 'CONFIG_INVALID') {
      const { ConfigError } = await import('@sieve/core')
      if (err instanceof ConfigError) {
        console.error(`sieve ${name}: ${err.message}`)
        return 2
      }
    }
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`sieve ${name}: ${(err as Error).message}\nUsage: ${usage(command)}\nRun \`sieve ${name} --help\` for the options.`)
      return 2
    }
    // Another Sieve refused or did not answer (SIEVE_URL, a running owner): its words, no stack.
    if (err instanceof OperationError) {
      console.error(`sieve ${name}: ${err.message}`)
      return 1
    }
    throw err
  }
}

process.exitCode = await main(process.argv.slice(2))
