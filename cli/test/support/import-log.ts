import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** Writes down every module specifier a child process resolves: run it with `NODE_OPTIONS: --import <register>`. */
export interface ImportLog {
  /** The module to pass to `--import`. */
  register: string
  /** Forgets what was written down so far. */
  clear(): void
  /** The specifiers resolved since the last clear, in order. */
  read(): string[]
}

/** A resolve hook (files in `dir`) that appends each specifier to a log file. */
export function importLog(dir: string): ImportLog {
  const log = join(dir, 'imports.log')
  const hooks = join(dir, 'log-imports.mjs')
  writeFileSync(
    hooks,
    [
      "import { appendFileSync } from 'node:fs'",
      `export async function resolve(specifier, context, next) { appendFileSync(${JSON.stringify(log)}, specifier + '\\n'); return next(specifier, context) }`,
    ].join('\n'),
  )
  const register = join(dir, 'register-log.mjs')
  writeFileSync(register, `import { register } from 'node:module'\nregister(${JSON.stringify(pathToFileURL(hooks).href)})\n`)
  writeFileSync(log, '')
  return {
    register,
    clear: () => writeFileSync(log, ''),
    read: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
  }
}
