#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { ConfigError } from '@sieve/core'
import { UsageError, type Command } from './command.js'
import { commands } from './commands/index.js'

function help(): string {
  const width = Math.max(...commands.map((c) => c.name.length), 4)
  return [
    'Usage: sieve <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'Run `sieve <command> --help` for a command\'s options. Configuration comes from environment',
    'variables (and SIEVE_CONFIG_FILE); see README.md.',
  ].join('\n')
}

function commandHelp(command: Command): string {
  const lines = [`Usage: ${command.usage}`, '', command.summary]
  const entries = Object.entries(command.options)
  if (entries.length) {
    lines.push('', 'Options:')
    for (const [name, opt] of entries) {
      const flag = `--${name}${opt.type === 'string' ? ' <value>' : ''}`
      const description = (opt as { description?: string }).description ?? ''
      lines.push(`  ${flag.padEnd(28)} ${description}`)
    }
  }
  return lines.join('\n')
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(help())
    return name ? 0 : 2
  }
  const command = commands.find((c) => c.name === name)
  if (!command) {
    console.error(`sieve: unknown command '${name}'\n\n${help()}`)
    return 2
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    console.log(commandHelp(command))
    return 0
  }
  try {
    // parseArgs rejects unknown keys such as `description`; strip them before parsing.
    const options = Object.fromEntries(
      Object.entries(command.options).map(([k, { description: _d, ...o }]: [string, any]) => [k, o]),
    )
    const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: command.positionals ?? false, strict: true })
    return await command.run({ values, positionals })
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`sieve ${name}: ${err.message}`)
      return 2
    }
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`sieve ${name}: ${(err as Error).message}\n\n${commandHelp(command)}`)
      return 2
    }
    throw err
  }
}

process.exitCode = await main(process.argv.slice(2))
