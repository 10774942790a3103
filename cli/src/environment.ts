/**
 * The settings `sieve <command> --help` describes: environment variables, or the same names in the
 * file SIEVE_CONFIG_FILE names (the environment wins). Validation and defaults live in core's
 * `envSchema`; `cli/test/help.test.ts` checks this table names every variable there with the same
 * default. Kept apart from core so that `--help` does not load the configuration schema.
 */
export interface Setting {
  description: string
  /** The value used when it is unset, as `envSchema` gives it. */
  default?: string | number | boolean
  /** What being unset means, when there is no default value. */
  unset?: string
}

export const SETTINGS = {
  SIEVE_CONFIG_FILE: {
    description: 'YAML or JSON file with these settings and the structured sections (checks, scorer, judge, simulator, scrub)',
    unset: 'environment only',
  },
  SIEVE_HOST: { description: 'address the collector, APIs and dashboard listen on', default: '127.0.0.1' },
  SIEVE_PORT: { description: 'port they listen on (0: any free port)', default: 4318 },
  SIEVE_DATA_DIR: {
    description: 'embedded ClickHouse (<dir>/clickhouse) and datasets exported from the dashboard (<dir>/datasets/<project>)',
    default: './data',
  },
  SIEVE_API_KEYS: {
    description: 'key:project,key2:project2; clients send one as x-api-key or Authorization: Bearer',
    unset: 'no auth, loopback only, project default',
  },
  SIEVE_METRICS_TOKEN: {
    description: 'bearer token /metrics requires (at least 16 characters)',
    unset: 'with API keys, /metrics answers loopback clients only',
  },
  SIEVE_OPS_TOKEN: {
    description: "serving: the token other machines' CLI commands must send (/ops, at least 32 characters); as a client: the token sent to SIEVE_URL",
    unset: "only this machine's user, through owner.json",
  },
  SIEVE_URL: {
    description: 'export, score, checks, migrate and judge calibrate work through the Sieve at this URL (with SIEVE_OPS_TOKEN)',
    unset: 'the store here, or the sieve up that owns it',
  },
  SIEVE_RETENTION_DAYS: { description: 'ClickHouse TTL on spans, traces, scores, feedback', default: 30 },
  SIEVE_MAX_BODY_BYTES: { description: 'largest OTLP request, compressed and decompressed (16 MiB)', default: 16 * 1024 * 1024 },
  SIEVE_MAX_BYTES_IN_FLIGHT: {
    description:
      'OTLP trace and log bodies read or decoded at once, in bytes as sent (32 MiB); past it new requests get 429 with Retry-After before their body is read',
    default: 32 * 1024 * 1024,
  },
  SIEVE_MAX_QUEUE_SPANS: {
    description: 'in-process queue: spans published and not yet stored it holds at most; past it new trace requests get 429 with Retry-After',
    default: 100_000,
  },
  SIEVE_MAX_QUEUE_BYTES: {
    description:
      'in-process queue: bytes of spans (as their request bodies carried them) it holds at most (128 MiB), so large spans are bounded too; past it new trace requests get 429 with Retry-After',
    default: 128 * 1024 * 1024,
  },
  SIEVE_MAX_QUEUE_WAIT_MS: {
    description:
      'in-process queue: new trace requests get 429 with Retry-After while its oldest span has waited longer than this, or while storing what it holds and the bodies being read would take longer at the recent pace',
    default: 5000,
  },
  SIEVE_LOG_LEVEL: { description: 'debug, info, warn or error', default: 'info' },
  SIEVE_FSYNC: {
    description: 'fsync each insert into the embedded engine (part and directory): acknowledged data survives a power loss, not only a crash; slower inserts',
    default: false,
  },
  SIEVE_ENGINE_MAX_MEMORY: {
    description:
      "the embedded engine's memory at most, in bytes (2 GiB; its statements, merges and caches, beside the V8 heap); a statement past it fails, and inserts are retried",
    default: 2 * 1024 * 1024 * 1024,
  },
  CLICKHOUSE_URL: { description: 'a ClickHouse server instead of the embedded engine', unset: 'embedded, in SIEVE_DATA_DIR/clickhouse' },
  CLICKHOUSE_USER: { description: 'user for CLICKHOUSE_URL', unset: "the server's default user" },
  CLICKHOUSE_PASSWORD: { description: 'password for CLICKHOUSE_URL', unset: 'none' },
  CLICKHOUSE_DATABASE: { description: 'database holding the tables', default: 'sieve' },
  CLICKHOUSE_CLUSTER: {
    description: 'a cluster of ClickHouse servers (remote_servers): replicated local tables and Distributed ones sharded by trace id, created ON CLUSTER',
    unset: 'one server',
  },
  KAFKA_BROKERS: { description: 'host:port,host:port: Kafka instead of the in-process queue', unset: 'in-process queue' },
  KAFKA_CLIENT_ID: { description: 'Kafka client id', default: 'sieve' },
  KAFKA_SPANS_TOPIC: { description: 'topic the collector writes spans to', default: 'sieve.spans' },
  KAFKA_SCORES_TOPIC: { description: 'topic the scorer writes scores to', default: 'sieve.scores' },
  KAFKA_DEAD_LETTER_TOPIC: { description: 'topic for spans storage refuses and records that cannot be read', default: 'sieve.spans.dead-letter' },
  KAFKA_TOPIC_PARTITIONS: { description: 'partitions of the topics Sieve creates', default: 6 },
  KAFKA_REPLICATION_FACTOR: { description: 'replication factor of the topics Sieve creates', default: 1 },
  KAFKA_MIN_INSYNC_REPLICAS: {
    description: 'min.insync.replicas of the topics Sieve creates: replicas that must hold a span before it is acknowledged (2 with 3 replicas)',
    unset: "the brokers' default",
  },
  KAFKA_SESSION_TIMEOUT_MS: {
    description: 'how long the partitions of a killed ingester or scorer wait before another member, or its restart, takes them',
    default: 10000,
  },
  JUDGE_BASE_URL: { description: 'the LLM judge: any OpenAI-compatible endpoint', unset: 'judge off' },
  JUDGE_API_KEY: { description: 'API key for JUDGE_BASE_URL', unset: 'none' },
  JUDGE_MODEL: { description: 'the judge model, a pinned version (e.g. gpt-4o-2024-08-06)', unset: 'judge off' },
  JUDGE_ALLOW_MODEL_ALIAS: { description: 'accept a model alias that may change under you (e.g. gpt-4o)', default: false },
  SIMULATOR_BASE_URL: { description: "sieve simulate's simulated user: any OpenAI-compatible endpoint", unset: 'scripted users only' },
  SIMULATOR_API_KEY: { description: 'API key for SIMULATOR_BASE_URL', unset: 'none' },
  SIMULATOR_MODEL: { description: "the simulated user's model, a pinned version like the judge's", unset: 'scripted users only' },
  SIMULATOR_ALLOW_MODEL_ALIAS: { description: 'accept a simulator model alias that may change under you', default: false },
  SIEVE_SCRUB_SECRET: { description: 'keyed-hash PII placeholders, stable across a whole dataset (at least 16 characters)', unset: 'per-example numbering' },
} satisfies Record<string, Setting>

export type EnvName = keyof typeof SETTINGS

/** Groups commands list in their `env`. */
export const SERVER_ENV: EnvName[] = ['SIEVE_HOST', 'SIEVE_PORT', 'SIEVE_API_KEYS', 'SIEVE_METRICS_TOKEN', 'SIEVE_OPS_TOKEN', 'SIEVE_LOG_LEVEL']
/** What a command working on the store reads to work through another Sieve instead. */
export const REMOTE_ENV: EnvName[] = ['SIEVE_URL', 'SIEVE_OPS_TOKEN']
export const STORAGE_ENV: EnvName[] = [
  'SIEVE_DATA_DIR',
  'SIEVE_FSYNC',
  'SIEVE_ENGINE_MAX_MEMORY',
  'CLICKHOUSE_URL',
  'CLICKHOUSE_USER',
  'CLICKHOUSE_PASSWORD',
  'CLICKHOUSE_DATABASE',
  'CLICKHOUSE_CLUSTER',
]
export const KAFKA_ENV: EnvName[] = [
  'KAFKA_BROKERS',
  'KAFKA_CLIENT_ID',
  'KAFKA_SPANS_TOPIC',
  'KAFKA_SCORES_TOPIC',
  'KAFKA_DEAD_LETTER_TOPIC',
  'KAFKA_TOPIC_PARTITIONS',
  'KAFKA_REPLICATION_FACTOR',
  'KAFKA_MIN_INSYNC_REPLICAS',
  'KAFKA_SESSION_TIMEOUT_MS',
]
export const JUDGE_ENV: EnvName[] = ['JUDGE_BASE_URL', 'JUDGE_API_KEY', 'JUDGE_MODEL', 'JUDGE_ALLOW_MODEL_ALIAS']
export const SIMULATOR_ENV: EnvName[] = ['SIMULATOR_BASE_URL', 'SIMULATOR_API_KEY', 'SIMULATOR_MODEL', 'SIMULATOR_ALLOW_MODEL_ALIAS']

/** Said in the help of every command that works on the store while `sieve up` may hold it. */
export const OWNER_NOTE =
  'While `sieve up` runs on the same SIEVE_DATA_DIR (the embedded store, which one process opens), the command runs ' +
  'through it (SIEVE_DATA_DIR/owner.json), with its configuration; otherwise it opens the store itself. It says which on stderr.'
