import type { Config } from './config.js'

export type LogLevel = Config['logLevel']
export type LogFields = Record<string, unknown>

/** What a component takes to report an event it cannot answer for itself (a storage error, say). */
export type LogFn = (message: string, fields?: LogFields) => void

/** Where a process's parts report what happened: one line per event, with its level and fields. */
export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
  /** The same logger with these fields on every line (a part's name, a request id). */
  child(fields: LogFields): Logger
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/** Field names whose values never reach a log, whatever a caller passes: keys, tokens, passwords. */
const SECRET_FIELD = /key|token|secret|password|authorization|cookie/i

export interface LoggerOptions {
  /** Lines below this level are dropped (SIEVE_LOG_LEVEL). */
  level?: LogLevel
  /** JSON lines (for collectors of logs) or text (for a terminal); JSON unless `write` goes to a TTY. */
  json?: boolean
  write?: (line: string) => void
  fields?: LogFields
}

const redact = (fields: LogFields): LogFields =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, SECRET_FIELD.test(k) ? '[redacted]' : v instanceof Error ? v.message : v]))

const text = (fields: LogFields): string =>
  Object.entries(fields)
    .map(([k, v]) => ` ${k}=${typeof v === 'string' && !/\s/.test(v) ? v : JSON.stringify(v)}`)
    .join('')

/**
 * A logger writing one line per event to stderr: JSON (`{"time","level","msg",...fields}`) when
 * stderr is not a terminal, as a container runtime or log shipper reads it; `time level msg k=v`
 * on a terminal. What a line may hold is the caller's responsibility (no span content, no stored
 * rows); values of fields named like secrets are replaced all the same.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const min = RANK[options.level ?? 'info']
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`))
  const json = options.json ?? !(options.write === undefined && process.stderr.isTTY)
  const make = (base: LogFields): Logger => {
    const emit =
      (level: LogLevel) =>
      (message: string, fields: LogFields = {}) => {
        if (RANK[level] < min) return
        const all = redact({ ...base, ...fields })
        const time = new Date().toISOString()
        write(json ? JSON.stringify({ time, level, msg: message, ...all }) : `${time} ${level.padEnd(5)} ${message}${text(all)}`)
      }
    return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error'), child: (fields) => make({ ...base, ...fields }) }
  }
  return make(options.fields ?? {})
}
