import { ClickHouseError, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client'

/**
 * The storage seam, as `SpanQueue` is the queue's: every part runs its SQL through this, on the
 * connection the CLI opened (`createStorage`). The statements are ClickHouse's client's own, so the
 * SQL reads the same over chDB in process and over HTTP to a server; what differs between the two
 * lives behind `insertRows` and `close`, in the implementation createStorage picks.
 */
export interface Storage {
  readonly query: ClickHouseClient['query']
  readonly command: ClickHouseClient['command']
  readonly insert: ClickHouseClient['insert']
  readonly ping: ClickHouseClient['ping']
  /**
   * `SIEVE_FSYNC` for the embedded engine's tables (see table-settings.ts), which migrate applies
   * to the tables it creates; undefined on a server, whose own configuration decides.
   */
  readonly fsync: boolean | undefined
  /**
   * Appends rows, each an array of values in `columns` order, to `table` as one insert, the fastest
   * way this connection has. A refusal reads as the engine words it (`Code: 469. DB::Exception: ...`)
   * on either connection, since it is what a dead letter keeps of a refused row.
   */
  insertRows(table: string, columns: readonly string[], rows: readonly unknown[], settings?: ClickHouseSettings): Promise<void>
  /** Refuses new statements and resolves once those running have ended. */
  close(): Promise<void>
}

/** Storage over ClickHouse's client as it is: a server over HTTP, and the base of the embedded one. */
export class ClientStorage implements Storage {
  readonly query: ClickHouseClient['query']
  readonly command: ClickHouseClient['command']
  readonly insert: ClickHouseClient['insert']
  readonly ping: ClickHouseClient['ping']

  /**
   * `onStatement` is told as each statement the client is given starts, and what it returns as the
   * statement ends (the embedded engine's threads are watched while it works).
   */
  constructor(
    protected readonly client: ClickHouseClient,
    readonly fsync: boolean | undefined = undefined,
    onStatement?: () => () => void,
  ) {
    const told = <F extends (...args: never[]) => Promise<unknown>>(f: F): F => {
      if (!onStatement) return f
      const wrapped = (...args: Parameters<F>): Promise<unknown> => {
        const ended = onStatement()
        try {
          const running = f(...args)
          void running.then(ended, ended)
          return running
        } catch (err) {
          ended()
          throw err
        }
      }
      return wrapped as unknown as F
    }
    this.query = told(client.query.bind(client))
    this.command = told(client.command.bind(client))
    this.insert = told(client.insert.bind(client))
    this.ping = client.ping.bind(client)
  }

  async insertRows(table: string, columns: readonly string[], rows: readonly unknown[], settings?: ClickHouseSettings): Promise<void> {
    try {
      await this.client.insert({
        table,
        columns: [...columns] as [string, ...string[]],
        values: [...rows],
        format: 'JSONCompactEachRow',
        clickhouse_settings: settings,
      })
    } catch (err) {
      throw engineWorded(err)
    }
  }

  close(): Promise<void> {
    return this.client.close()
  }
}

/**
 * A server's refusal worded as the embedded engine's (`Code: 469. DB::Exception: ... (VIOLATED_CONSTRAINT)`).
 * Over HTTP the client keeps the code and the error's name apart from the message (`code`, `type`),
 * while what the ingester keeps of a refused span (its dead letter) and logs is the message: without
 * this, a dead letter written on a server would not say which error it was.
 */
function engineWorded(err: unknown): unknown {
  if (!(err instanceof ClickHouseError) || /^Code: \d+\./.test(err.message)) return err
  const worded = new ClickHouseError({
    message: `Code: ${err.code}. DB::Exception: ${err.message.trimEnd()} (${err.type})`,
    code: err.code,
    type: err.type ?? '',
  })
  worded.stack = err.stack
  return worded
}
