import type { Storage } from '@sieve/core'
import { openKafkaTopicWriter } from '@sieve/queue'
import { readSpanLogEvents, readTrace, type Config, type Logger, type QueueHeld, type SpanQueue } from '@sieve/core'
import type { PipelineMetrics } from '@sieve/metrics'
import { createApp } from '@sieve/collector'
import { listen } from '@sieve/http'
import { startIngester } from '@sieve/ingester'
import { allowedMethods, createDashboardApi, createUi, traceDetails, UI_PATH } from '@sieve/dashboard'
import { clickhouseScoreSink, fanOut, loadChecksConfig } from '@sieve/scoring'
import { createScorerMetrics, loadScorerOptions, kafkaScoreSink, Scorer } from '@sieve/scorer'
import { checkJudgeConfig, createJudge } from '@sieve/judge'
import { loadReviewSetup } from '@sieve/review'
import { createDatasetExporter } from './dataset-exporter.js'
import { localOperations } from './store/operations.js'
import { createOperationsRoutes } from './store/operations-routes.js'
import { checkPort } from './preflight.js'

/** What every part of `sieve up` is started with. */
export interface UpContext {
  config: Config
  storage: Storage
  queue: SpanQueue
  /** What waits in the queue, when the queue can tell (the in-process one can). */
  queueHeld?: QueueHeld
  metrics: PipelineMetrics
  /** The process's logger (SIEVE_LOG_LEVEL; JSON lines unless stderr is a terminal). */
  log: Logger
  /** Set when this process owns an embedded store: the collector serves the CLI's operations (/ops) behind this token. */
  ownerToken?: string
}

/** A started part; `sieve up` stops parts in the reverse order it started them. */
export interface RunningPart {
  name: string
  /** Lines printed once everything runs (where to send traces, where the UI is). */
  banner?: string[]
  stop(): Promise<void>
  /** What the part still holds undone, said when a stop is given up ("120 traces not scored"). */
  unfinished?(): string | undefined
  /** Where the part's HTTP server listens, when it has one. */
  url?: string
}

export type Part = ((context: UpContext) => Promise<RunningPart>) & {
  /**
   * What the part checks before storage is opened or anything written (its config sections, the
   * port it listens on), throwing an error whose code says it is a setup problem (preflight.ts).
   */
  check?: (config: Config) => Promise<void>
}

/**
 * Stores spans and keeps the `traces` rollup. With Kafka it commits a batch once the rollup covers
 * it; the embedded queue acknowledges on insert and keeps nothing, so there the ingester records
 * the rollup's progress in storage and first finishes, at start, what a crash left undone.
 */
export const ingesterPart: Part = async ({ queue, storage, metrics, log }) => {
  const ingester = await startIngester({
    queue,
    storage,
    metrics,
    // A queue that holds spans durably itself (Kafka) hands uncommitted batches out again after a
    // crash; one that holds them in memory only keeps nothing across a restart.
    commitAfterRollup: queue.capabilities.durability === 'acknowledged',
    recover: queue.capabilities.durability === 'handled',
    onError: (error) => log.error(`ingester: ${(error as Error).message} (the rollup is retried; uncommitted batches are replayed)`),
    log: (message) => log.info(message),
  })
  return { name: 'ingester', stop: () => ingester.stop() }
}

/**
 * The deterministic scorer, on its own consumer group. On stop, the traces it still assembles are
 * left unscored: with Kafka they stay uncommitted for the next scorer; the embedded queue keeps
 * nothing across a restart, so there the scorer records its progress in storage and, at the next
 * start, reads back and scores what was left (after a kill -9 too).
 * With a judge configured (JUDGE_MODEL), every scored trace is offered to it; judging runs in the
 * background and finishes what is in flight on stop.
 */
export const scorerPart: Part = async ({ config, queue, storage, metrics, log }) => {
  const checks = await loadChecksConfig(config.sections)
  // With Kafka, scores also go to the scores topic, after the table.
  const topic = config.kafka
    ? await openKafkaTopicWriter({ kafka: config.kafka, topic: config.kafka.scoresTopic, role: 'scorer', logLevel: config.logLevel })
    : undefined
  const table = clickhouseScoreSink(storage, metrics)
  const sink = topic ? fanOut(table, kafkaScoreSink(topic)) : table
  const judge = createJudge(config, sink, metrics.registry, storage, { log: (message) => log.warn(message), scorecards: checks.scorecards })
  const scorer = await Scorer.start({
    queue,
    checks,
    sink,
    ...(judge ? { onScored: judge.onScored } : {}),
    options: loadScorerOptions(config.sections),
    metrics: createScorerMetrics(metrics.registry),
    loadStoredTrace: (projectId, traceId) => readTrace(storage, projectId, traceId),
    loadLogEvents: (projectId, traceIds) => readSpanLogEvents(storage, projectId, traceIds),
    ...(queue.capabilities.durability === 'handled' ? { recovery: { storage } } : {}),
    log: (message) => log.info(message),
  })
  return {
    name: 'scorer',
    ...(judge ? { banner: [`LLM judge:        ${config.judge.model} at ${config.judge.baseUrl}`] } : {}),
    async stop() {
      await scorer.stop()
      await judge?.stop()
      await topic?.close()
    },
    unfinished: () => `${scorer.assembler.unfinishedTraces} traces not scored`,
  }
}

scorerPart.check = async (config) => {
  const checks = await loadChecksConfig(config.sections)
  loadScorerOptions(config.sections)
  checkJudgeConfig(config, checks.scorecards)
}

export const collectorPart: Part = async ({ config, queue, queueHeld, storage, metrics, log, ownerToken }) => {
  const dashboardApi = createDashboardApi({
    client: storage,
    apiKeys: config.apiKeys,
    metrics: () => metrics.registry.getMetricsAsJSON(),
    exporter: createDatasetExporter(storage, config),
    judgeModel: config.judge.model,
    review: loadReviewSetup(config),
  })
  const app = createApp({
    queue,
    storage,
    metrics,
    apiKeys: config.apiKeys,
    metricsToken: config.metricsToken,
    maxBodyBytes: config.maxBodyBytes,
    maxBytesInFlight: config.maxBytesInFlight,
    queueHeld,
    log: (message, fields) => log.error(message, fields),
    traceDetails: traceDetails(storage),
    allowedMethods,
    routes: [
      { path: '/api', handler: dashboardApi },
      { path: UI_PATH, handler: createUi() },
      // The CLI's commands, run while this process holds the store or from another machine, do their work here (cli/src/store/).
      ...(ownerToken || config.opsToken
        ? [
            {
              path: '/ops',
              handler: createOperationsRoutes(
                localOperations(config, async () => storage, 'the running Sieve'),
                { ...(ownerToken ? { ownerToken } : {}), ...(config.opsToken ? { opsToken: config.opsToken } : {}), dataDir: config.dataDir },
              ),
            },
          ]
        : []),
    ],
  })
  const server = await listen(app, config.host, config.port)
  return {
    name: 'collector',
    banner: [
      `OTLP/HTTP traces: ${server.url}/v1/traces  (OTEL_EXPORTER_OTLP_ENDPOINT=${server.url})`,
      `Read API:         ${server.url}/api/traces`,
      `Metrics:          ${server.url}/metrics`,
      `Dashboard:        ${server.url}${UI_PATH}/`,
    ],
    stop: () => server.stop(),
    url: server.url,
  }
}

collectorPart.check = async (config) => {
  // The dashboard's review queues read the review section and the rubrics.
  loadReviewSetup(config)
  await checkPort(config.host, config.port)
}

/** Health, readiness and metrics of a process that takes no traffic (`sieve ingester`). */
export const opsPart: Part = async ({ config, queue, storage, metrics, log }) => {
  const app = createApp({
    queue,
    storage,
    metrics,
    apiKeys: config.apiKeys,
    metricsToken: config.metricsToken,
    maxBodyBytes: config.maxBodyBytes,
    serveTraffic: false,
    log: (message, fields) => log.error(message, fields),
  })
  const server = await listen(app, config.host, config.port)
  return { name: 'ops', banner: [`Metrics:          ${server.url}/metrics`], stop: () => server.stop() }
}
opsPart.check = (config) => checkPort(config.host, config.port)

/**
 * The parts `sieve up` runs, in start order. The ingester and the scorer subscribe before the
 * collector listens, so no accepted span waits for a consumer; on stop the collector stops accepting
 * first, then the ingester drains what is queued.
 */
export const parts: Part[] = [ingesterPart, scorerPart, collectorPart]
