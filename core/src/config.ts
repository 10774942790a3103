import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { z } from 'zod'

/**
 * Sieve's settings, read once at start from environment variables and an optional
 * file (`SIEVE_CONFIG_FILE`, YAML or JSON). Environment variables win over the file.
 * The rest of the code receives the typed `Config`, never `process.env`.
 */

const port = z.coerce.number().int().min(0).max(65535)
const positiveInt = z.coerce.number().int().positive()

/** `key:project,key2:project2`; a key without `:project` belongs to project `default`. */
const apiKeys = z.string().transform((raw, ctx) => {
  const keys = new Map<string, string>()
  for (const [index, entry] of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .entries()) {
    const [key, project = 'default', ...rest] = entry.split(':')
    if (!key || rest.length > 0 || !/^[A-Za-z0-9_.-]{1,128}$/.test(project)) {
      // Named by position, never quoted: the entry holds a key, and start-up errors end up in logs.
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1} must look like KEY or KEY:PROJECT (project: letters, digits, _ . -)` })
      return z.NEVER
    }
    keys.set(key, project)
  }
  return keys
})

const list = z.string().transform((raw) =>
  raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
)

/** A secret sent as `Authorization: Bearer <token>`. */
const bearerToken = (min: number) =>
  z
    .string()
    .min(min, `must be at least ${min} characters`)
    .max(512, 'must be at most 512 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (it is sent as Authorization: Bearer <token>)')

export const envSchema = z.object({
  SIEVE_HOST: z.string().min(1).default('127.0.0.1'),
  SIEVE_PORT: port.default(4318),
  SIEVE_DATA_DIR: z.string().min(1).default('./data'),
  SIEVE_API_KEYS: apiKeys.optional(),
  // Prometheus scrapes from another machine; it gets a token of its own, not a project's key.
  SIEVE_METRICS_TOKEN: bearerToken(16).optional(),
  // An operator's CLI on another machine (`SIEVE_URL`) runs export, score, checks... through this Sieve.
  SIEVE_OPS_TOKEN: bearerToken(32).optional(),
  SIEVE_URL: z.url().optional(),
  SIEVE_RETENTION_DAYS: positiveInt.default(30),
  SIEVE_MAX_BODY_BYTES: positiveInt.default(16 * 1024 * 1024),
  // Load shedding before the work (collector/README.md, Overload): what bounds memory besides the queue.
  SIEVE_MAX_BYTES_IN_FLIGHT: positiveInt.default(32 * 1024 * 1024),
  SIEVE_MAX_QUEUE_WAIT_MS: positiveInt.default(5000),
  SIEVE_MAX_QUEUE_SPANS: positiveInt.default(100_000),
  SIEVE_MAX_QUEUE_BYTES: positiveInt.default(128 * 1024 * 1024),
  SIEVE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // Off: an acknowledged span survives a crash of the process, not a power loss (storage/table-settings.ts).
  SIEVE_FSYNC: z.stringbool().default(false),
  // The embedded engine's own memory (statements, merges, caches), beside V8's heap (collector/README.md, Memory).
  SIEVE_ENGINE_MAX_MEMORY: positiveInt.default(2 * 1024 * 1024 * 1024),
  CLICKHOUSE_URL: z.url().optional(),
  CLICKHOUSE_USER: z.string().optional(),
  CLICKHOUSE_PASSWORD: z.string().optional(),
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
    .default('sieve'),
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a cluster name from the server's remote_servers")
    .optional(),
  KAFKA_BROKERS: list.optional(),
  KAFKA_CLIENT_ID: z.string().default('sieve'),
  KAFKA_SPANS_TOPIC: z.string().default('sieve.spans'),
  KAFKA_SCORES_TOPIC: z.string().default('sieve.scores'),
  KAFKA_DEAD_LETTER_TOPIC: z.string().default('sieve.spans.dead-letter'),
  KAFKA_TOPIC_PARTITIONS: positiveInt.default(6),
  KAFKA_REPLICATION_FACTOR: positiveInt.default(1),
  // Unset: the brokers' min.insync.replicas, which every topic without its own value follows.
  KAFKA_MIN_INSYNC_REPLICAS: positiveInt.optional(),
  // Brokers refuse sessions outside group.min/max.session.timeout.ms (6 s and 30 min by default).
  KAFKA_SESSION_TIMEOUT_MS: z.coerce.number().int().min(6000).max(1_800_000).default(10_000),
  JUDGE_BASE_URL: z.url().optional(),
  JUDGE_API_KEY: z.string().optional(),
  JUDGE_MODEL: z.string().optional(),
  JUDGE_ALLOW_MODEL_ALIAS: z.stringbool().default(false),
  // `sieve simulate`'s simulated user: a model of its own, pinned like the judge's.
  SIMULATOR_BASE_URL: z.url().optional(),
  SIMULATOR_API_KEY: z.string().optional(),
  SIMULATOR_MODEL: z.string().optional(),
  SIMULATOR_ALLOW_MODEL_ALIAS: z.stringbool().default(false),
})

export type Env = z.infer<typeof envSchema>

/** Settings whose value a configuration error must not repeat: keys, tokens, passwords, secrets. */
const SECRET_SETTING = /KEY|TOKEN|PASSWORD|SECRET/

export interface Config {
  host: string
  port: number
  dataDir: string
  /** API key → project id. Empty: no auth, everything goes to project `default`. */
  apiKeys: Map<string, string>
  /**
   * Bearer token `/metrics` requires when set. Unset: with API keys, `/metrics` answers loopback
   * clients only; without keys (loopback-only Sieve) anyone who can connect.
   */
  metricsToken?: string
  /** SIEVE_OPS_TOKEN: a Sieve serving the CLI's operations to other machines (/ops); as a client, the token sent to SIEVE_URL. */
  opsToken?: string
  /** SIEVE_URL: the Sieve a CLI command works through instead of opening storage here. */
  url?: string
  retentionDays: number
  maxBodyBytes: number
  /** OTLP trace and log request bodies read or decoded at once, in bytes as sent; past it new requests get 429. */
  maxBytesInFlight: number
  /** In-process queue: new trace requests get 429 while its oldest span has waited longer than this. */
  maxQueueWaitMs: number
  /** In-process queue: spans it holds at most (published, not yet stored); past it publishes are refused with 429. */
  maxQueueSpans: number
  /** In-process queue: bytes (of the request bodies that carried them) of the spans it holds at most; past it, 429. */
  maxQueueBytes: number
  logLevel: Env['SIEVE_LOG_LEVEL']
  clickhouse: /**
   * fsync: each insert (and merge) fsyncs its part and directory before returning (SIEVE_FSYNC); off when unset.
   * maxMemoryBytes: the engine's memory bound (SIEVE_ENGINE_MAX_MEMORY); unset, ClickHouse's own, 90% of RAM.
   */
    | { kind: 'embedded'; path: string; database: string; fsync?: boolean; maxMemoryBytes?: number }
    | { kind: 'server'; url: string; username?: string; password?: string; database: string; cluster?: string }
  kafka?: {
    brokers: string[]
    clientId: string
    spansTopic: string
    scoresTopic: string
    deadLetterTopic: string
    partitions: number
    replicationFactor: number
    /** min.insync.replicas of the topics Sieve creates; undefined: the brokers' default. */
    minInsyncReplicas?: number
    /** A consumer that stops heartbeating (kill -9) holds its partitions this long. */
    sessionTimeoutMs: number
  }
  /** The LLM judge's endpoint; the scorer validates the model name (see judge/src/config.ts). */
  judge: { baseUrl?: string; apiKey?: string; model?: string; allowModelAlias: boolean }
  /** The simulated user's endpoint for `sieve simulate`; the gate (@sieve/replay) validates the model name like the judge's. */
  simulator: { baseUrl?: string; apiKey?: string; model?: string; allowModelAlias: boolean }
  /** Structured sections of the config file (e.g. `checks`, `judge`), validated by the part that owns them. */
  sections: Record<string, unknown>
}

export class ConfigError extends Error {
  readonly code = 'CONFIG_INVALID'
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/** Reads the optional config file: flat `NAME: value` settings plus structured sections. */
function readConfigFile(path: string): { settings: Record<string, string>; sections: Record<string, unknown> } {
  let parsed: unknown
  try {
    parsed = parseYaml(readFileSync(path, 'utf8'))
  } catch (err) {
    throw new ConfigError([`SIEVE_CONFIG_FILE: cannot read ${path}: ${(err as Error).message}`])
  }
  if (parsed == null) return { settings: {}, sections: {} }
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError([`SIEVE_CONFIG_FILE: ${path} must hold a mapping of settings`])
  }
  const settings: Record<string, string> = {}
  const sections: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(parsed)) {
    if (/^[A-Z][A-Z0-9_]*$/.test(key)) settings[key] = Array.isArray(value) ? value.join(',') : String(value)
    else sections[key] = value
  }
  return { settings, sections }
}

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const file = env.SIEVE_CONFIG_FILE ? readConfigFile(env.SIEVE_CONFIG_FILE) : { settings: {}, sections: {} }
  const merged: Record<string, string> = { ...file.settings }
  for (const [key, value] of Object.entries(env)) if (value !== undefined && value !== '') merged[key] = value

  const result = envSchema.safeParse(merged)
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.join('.')
        // A secret is named, never echoed: start-up errors end up in logs.
        const got = SECRET_SETTING.test(name) ? undefined : merged[name]
        return `${name}: ${issue.message}${got === undefined ? '' : ` (got '${got}')`}`
      }),
    )
  }
  const e = result.data
  if (e.SIEVE_FSYNC && e.CLICKHOUSE_URL) {
    // Not applied to a server's tables: there the server's configuration decides, and saying
    // nothing would promise a durability Sieve does not set.
    throw new ConfigError([
      'SIEVE_FSYNC: applies to the embedded engine only; with CLICKHOUSE_URL set fsync_after_insert and ' +
        "fsync_part_directory in the server's <merge_tree> configuration instead",
    ])
  }
  if (merged.SIEVE_ENGINE_MAX_MEMORY !== undefined && e.CLICKHOUSE_URL) {
    throw new ConfigError([
      "SIEVE_ENGINE_MAX_MEMORY: applies to the embedded engine only; with CLICKHOUSE_URL set the server's max_server_memory_usage instead",
    ])
  }
  if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL) {
    throw new ConfigError(['CLICKHOUSE_CLUSTER: names a cluster of ClickHouse servers; set CLICKHOUSE_URL to one of them (the embedded engine is one process)'])
  }
  if (e.KAFKA_MIN_INSYNC_REPLICAS && e.KAFKA_MIN_INSYNC_REPLICAS > e.KAFKA_REPLICATION_FACTOR) {
    // Every write with acks from all in-sync replicas would be refused, from the first span on.
    throw new ConfigError([
      `KAFKA_MIN_INSYNC_REPLICAS: ${e.KAFKA_MIN_INSYNC_REPLICAS} is more than KAFKA_REPLICATION_FACTOR (${e.KAFKA_REPLICATION_FACTOR}); no write could be acknowledged`,
    ])
  }
  const database = e.CLICKHOUSE_DATABASE
  return {
    host: e.SIEVE_HOST,
    port: e.SIEVE_PORT,
    dataDir: e.SIEVE_DATA_DIR,
    apiKeys: e.SIEVE_API_KEYS ?? new Map(),
    metricsToken: e.SIEVE_METRICS_TOKEN,
    ...(e.SIEVE_OPS_TOKEN ? { opsToken: e.SIEVE_OPS_TOKEN } : {}),
    ...(e.SIEVE_URL ? { url: e.SIEVE_URL.replace(/\/+$/, '') } : {}),
    retentionDays: e.SIEVE_RETENTION_DAYS,
    maxBodyBytes: e.SIEVE_MAX_BODY_BYTES,
    maxBytesInFlight: e.SIEVE_MAX_BYTES_IN_FLIGHT,
    maxQueueWaitMs: e.SIEVE_MAX_QUEUE_WAIT_MS,
    maxQueueSpans: e.SIEVE_MAX_QUEUE_SPANS,
    maxQueueBytes: e.SIEVE_MAX_QUEUE_BYTES,
    logLevel: e.SIEVE_LOG_LEVEL,
    clickhouse: e.CLICKHOUSE_URL
      ? {
          kind: 'server',
          url: e.CLICKHOUSE_URL,
          username: e.CLICKHOUSE_USER,
          password: e.CLICKHOUSE_PASSWORD,
          database,
          ...(e.CLICKHOUSE_CLUSTER ? { cluster: e.CLICKHOUSE_CLUSTER } : {}),
        }
      : { kind: 'embedded', path: `${e.SIEVE_DATA_DIR}/clickhouse`, database, fsync: e.SIEVE_FSYNC, maxMemoryBytes: e.SIEVE_ENGINE_MAX_MEMORY },
    kafka: e.KAFKA_BROKERS?.length
      ? {
          brokers: e.KAFKA_BROKERS,
          clientId: e.KAFKA_CLIENT_ID,
          spansTopic: e.KAFKA_SPANS_TOPIC,
          scoresTopic: e.KAFKA_SCORES_TOPIC,
          deadLetterTopic: e.KAFKA_DEAD_LETTER_TOPIC,
          partitions: e.KAFKA_TOPIC_PARTITIONS,
          replicationFactor: e.KAFKA_REPLICATION_FACTOR,
          ...(e.KAFKA_MIN_INSYNC_REPLICAS ? { minInsyncReplicas: e.KAFKA_MIN_INSYNC_REPLICAS } : {}),
          sessionTimeoutMs: e.KAFKA_SESSION_TIMEOUT_MS,
        }
      : undefined,
    judge: { baseUrl: e.JUDGE_BASE_URL, apiKey: e.JUDGE_API_KEY, model: e.JUDGE_MODEL, allowModelAlias: e.JUDGE_ALLOW_MODEL_ALIAS },
    simulator: { baseUrl: e.SIMULATOR_BASE_URL, apiKey: e.SIMULATOR_API_KEY, model: e.SIMULATOR_MODEL, allowModelAlias: e.SIMULATOR_ALLOW_MODEL_ALIAS },
    sections: file.sections,
  }
}
