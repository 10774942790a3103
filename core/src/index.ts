export { type Config, ConfigError, envSchema, loadConfig } from './config.js'
export { createLogger, type LogFn, type Logger } from './log.js'
export { zodProblems } from './zod-problems.js'
export { parseYamlWithLines } from './yaml-lines.js'
export {
  type Attributes,
  type AttributeValue,
  compareNanos,
  nanosToMillis,
  type Span,
  SPAN_KINDS,
  type SpanEvent,
  type SpanKind,
  type SpanLink,
  STATUS_CODES,
  type StatusCode,
  type Trace,
  traceStart,
} from './span.js'
export { setAttribute, wellFormed } from './span-values.js'
export { GENAI_ATTR, type GenAiFields, genAiFields, isLlmCall, isToolSpan, userIdOf } from './genai.js'
export {
  type PublishOutcome,
  type QuarantinedSpan,
  type QueueCapabilities,
  type QueueHeld,
  type QueuedSpan,
  QueueFullError,
  QueueUnavailableError,
  type IncomingBodies,
  type Saturation,
  type SpanQueue,
  type SubscribeOptions,
  type Subscription,
  UnprocessableSpansError,
} from './queue.js'
export { checkEmbeddedEngine, createStorage, StorageError } from './storage/create-storage.js'
export { engineMemoryBytes } from './storage/engine-memory.js'
export { loadMigrations, migrate, migrateOptionsOf, MIGRATIONS_DIR, migrationsApplied, schemaStatements } from './storage/migrate.js'
export { SPAN_COLUMNS, type SpanRowValues, spanToRow } from './storage/span-row.js'
export { insertSpans } from './storage/insert-spans.js'
export { insertCompactRows } from './storage/insert-compact-rows.js'
export { refreshTraceRollups, type TraceKey } from './storage/trace-rollup.js'
export { readTrace, readTraces } from './storage/read-trace.js'
export { listTraces } from './storage/list-traces.js'
export { insertDeadLetters } from './storage/dead-letters.js'
export { bySpanOf, insertSpanLogEvents, readSpanLogEvents, type SpanLogEvent, withSpanLogEvents } from './storage/span-log-events.js'
export { readSession, SESSION_TRACE_LIMIT, traceSessionId } from './storage/read-session.js'
export { FIRST_LOOKBACK_MS, PROGRESS_SLACK_MS, ProgressRecorder, readProgress } from './storage/progress.js'
export { type ArrivedTrace, tracesArrivedSince } from './storage/arrived-since.js'
export { type InsertIntents, readInsertIntents, recordInsertIntents, spanKey, storedSpanKeys } from './storage/insert-intents.js'
export type { Storage } from './storage/storage.js'
export { readRows } from './storage/read-rows.js'
export { insertFeedback, insertFeedbackRows } from './storage/feedback-rows.js'
export { feedbackSince } from './storage/feedback-since.js'
export {
  type AnnotationRow,
  labelledTraceCounts,
  readAllAnnotations,
  readAnnotationRows,
  readRubricAnnotations,
  readTraceAnnotations,
} from './storage/annotations.js'
export { firstTracesOfUsers } from './storage/first-traces.js'
export { oldestRecentTrace } from './storage/oldest-trace.js'
export { FEEDBACK_FILTER_SQL, type FeedbackFilter, feedbackFilterParams, lowestFeedback } from './storage/feedback-match.js'
export { readTraceFeedback } from './storage/trace-feedback.js'
export type { FilteredRange } from './storage/sql-filter.js'
export { readJudgedBuckets, readQualityRollup, readTraceBuckets } from './storage/quality-series.js'
export { readCompareRollup, readCompareTraces } from './storage/compare-sides.js'
export { readTraceQualityOf, readTraceSummaries, readWorstCandidates } from './storage/worst-traces.js'
export { asText, type ChatMessage, finishReasons, offeredTools, toolDefinitions, type ToolInvocation } from './content.js'
export { type Conversation, conversationOf, spanCausalKeys } from './conversation/conversation.js'
export { causalTree, type SpanNode } from './conversation/causal-order.js'
export { ContentReader } from './conversation/content-reader.js'
export { foldSpace, type Turn } from './conversation/turn.js'
export { contentHint } from './conventions/content-settings.js'
export { Backoff, backoffDelay, type BackoffRange, parseRetryAfter } from './backoff.js'
export { nextTurn, TimeSlice } from './time-slice.js'
