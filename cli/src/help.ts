import { flag } from './args.js'
import type { Command, OptionSpec } from './command.js'
import { SETTINGS, type Setting } from './environment.js'

/*
 * `sieve --help` and `sieve <command> --help`, written from the commands' definitions (the same
 * ones args.ts parses with): every flag with its value, default and the setting it depends on,
 * the settings the command reads, and its exit codes.
 */

const WIDTH = 100
const TERM_COLUMN = 30

/** Words of `text` in lines of at most `width` characters (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line)
      line = word
    } else line = line ? `${line} ${word}` : word
  }
  if (line) lines.push(line)
  return lines
}

/** `  term    description`, the description wrapped under itself; a long term puts it on the next line. */
function entry(term: string, description: string, column = TERM_COLUMN): string[] {
  const indent = ' '.repeat(column)
  const body = wrap(description, WIDTH - column)
  const head = `  ${term}`
  if (head.length + 2 > column) return [head, ...body.map((l) => indent + l)]
  return [head.padEnd(column) + (body[0] ?? ''), ...body.slice(1).map((l) => indent + l)]
}

export function usage(command: Command): string {
  const required = Object.entries(command.options).filter(([, o]) => o.type === 'string' && o.required)
  const optional = Object.keys(command.options).length > required.length
  return [
    `sieve ${command.name}`,
    ...(command.arguments ? [command.arguments] : []),
    ...required.map(([name, o]) => flag(name, o)),
    ...(optional ? ['[options]'] : []),
  ].join(' ')
}

function optionNotes(spec: OptionSpec): string[] {
  const notes: string[] = []
  if (spec.type === 'string' && spec.required) notes.push('required')
  if (spec.type === 'string' && spec.multiple) notes.push('repeatable')
  if (spec.defaultText) notes.push(`default: ${spec.defaultText}`)
  else if (spec.type === 'string' && spec.default !== undefined) notes.push(`default: ${spec.default}`)
  if (spec.env) notes.push(`env: ${spec.env}`)
  return notes
}

function settingNotes(setting: Setting): string {
  if (setting.default !== undefined) return `default: ${String(setting.default)}`
  return `unset: ${setting.unset}`
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: ${usage(command)}`, '', ...wrap(command.summary, WIDTH)]
  for (const paragraph of command.details ?? []) lines.push('', ...wrap(paragraph, WIDTH))
  lines.push('', 'Options:')
  for (const [name, spec] of Object.entries(command.options)) {
    const term = `${spec.short ? `-${spec.short}, ` : ''}${flag(name, spec)}`
    const notes = optionNotes(spec)
    lines.push(...entry(term, `${spec.description}${notes.length ? ` [${notes.join('; ')}]` : ''}`))
  }
  lines.push(...entry('-h, --help', 'this help'))
  if (command.env?.length) {
    lines.push('', 'Environment (or the same names in the SIEVE_CONFIG_FILE file; the environment wins):')
    for (const name of command.env) {
      const setting: Setting = SETTINGS[name]
      lines.push(...entry(name, `${setting.description} [${settingNotes(setting)}]`))
    }
  }
  lines.push('', 'Exit codes:')
  for (const [code, meaning] of Object.entries(command.exitCodes)) lines.push(...entry(code, meaning, 6))
  return lines.join('\n')
}

export function mainHelp(commands: Command[]): string {
  const column = Math.max(...commands.map((c) => c.name.length), '-v, --version'.length) + 4
  return [
    'Usage: sieve <command> [options]',
    '',
    'Commands:',
    ...commands.flatMap((c) => entry(c.name, c.summary, column)),
    '',
    ...entry('-h, --help', 'this help; `sieve <command> --help` (or `sieve help <command>`): its options, settings and exit codes', column),
    ...entry('-v, --version', 'the version, and the git commit when run from a checkout', column),
    '',
    ...wrap('Settings come from environment variables, or the same names in a YAML/JSON file named by SIEVE_CONFIG_FILE; see README.md.', WIDTH),
  ].join('\n')
}
