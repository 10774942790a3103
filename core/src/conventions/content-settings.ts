import type { Span } from '../span.js'
import { conventionOf } from './index.js'

/**
 * Message content is opt-in in every GenAI instrumentation. When a trace arrives without it, the
 * checks that read messages cannot run and people need to know which switch sends it: the setting
 * of the instrumentation that wrote the trace's spans, found by its scope name or its scheme.
 */
/** Instrumentations writing the GenAI conventions themselves, by scope name; other schemes say theirs (Convention.contentSetting). */
const BY_SCOPE: readonly [RegExp, string][] = [
  [/^@sieve\/sdk$/, '@sieve/sdk: init({ captureContent: true })'],
  [
    /^opentelemetry\.(instrumentation\.openai_v2|util\.genai\.)/,
    'OpenTelemetry openai-v2: OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only (on the span) or event_only (as log records, exported to /v1/logs)',
  ],
  [
    /^@opentelemetry\/instrumentation-openai$/,
    "OpenTelemetry's openai instrumentation: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true and a log exporter to /v1/logs",
  ],
]

const GENERIC =
  "the instrumentation's message-content setting (content is opt-in in the GenAI conventions; OpenTelemetry's own instrumentations read OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT)"

/** Which setting sends message content, for the instrumentation that wrote these spans. */
export function contentHint(spans: readonly Span[]): string {
  for (const span of spans) {
    for (const [scope, setting] of BY_SCOPE) if (scope.test(span.scope.name)) return `no message content was sent; to send it, set ${setting}`
  }
  for (const span of spans) {
    const setting = conventionOf(span)?.contentSetting
    if (setting) return `no message content was sent; to send it, set ${setting}`
  }
  return `no message content was sent; to send it, set ${GENERIC}`
}
