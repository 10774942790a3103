import { parseArgs, type ParseArgsConfig } from 'node:util'
import { UsageError, type Command, type OptionSpec, type OptionValues } from './command.js'

/** `--name <value>` (or `--name` for a switch), as usage lines, help and errors write it. */
export function flag(name: string, spec: OptionSpec): string {
  if (spec.type === 'boolean') return `--${name}`
  return `--${name} <${spec.choices ? spec.choices.join('|') : spec.value}>`
}

/**
 * A command's arguments, read with its option definitions: types, defaults, repeatable flags,
 * one-letter aliases, then required flags and allowed values. Throws UsageError, or node's
 * ERR_PARSE_ARGS_* errors (unknown flag, missing value), which main reports as usage errors.
 */
export function parseCommandArgs(command: Command, args: string[]): { values: OptionValues; positionals: string[] } {
  const options: NonNullable<ParseArgsConfig['options']> = {}
  for (const [name, spec] of Object.entries(command.options)) {
    options[name] =
      spec.type === 'boolean'
        ? { type: 'boolean', ...(spec.short ? { short: spec.short } : {}) }
        : {
            type: 'string',
            ...(spec.short ? { short: spec.short } : {}),
            ...(spec.multiple ? { multiple: true } : {}),
            ...(spec.default !== undefined ? { default: spec.multiple ? [spec.default] : spec.default } : {}),
          }
  }
  const { values, positionals } = parseArgs({ args, options, allowPositionals: command.arguments !== undefined, strict: true })
  for (const [name, spec] of Object.entries(command.options)) {
    if (spec.type !== 'string') continue
    const value = values[name] as string | string[] | undefined
    if (spec.required && (value === undefined || value === '')) throw new UsageError(`${flag(name, spec)} is required`)
    if (spec.choices && value !== undefined) {
      for (const v of Array.isArray(value) ? value : [value]) {
        if (!spec.choices.includes(v)) throw new UsageError(`--${name} must be one of ${spec.choices.join(', ')} (got '${v}')`)
      }
    }
  }
  return { values: values as OptionValues, positionals }
}
