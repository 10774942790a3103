-- One row per OTLP span. ReplacingMergeTree on (project_id, trace_id, span_id) makes a re-delivered
-- span collapse into one row; readers that must count exactly use FINAL. See README.md for the key choice.
-- Retention counts from the later of the span's start and its arrival, so a span sent late (a backfill,
-- a replayed example) is kept for the full retention instead of being dropped at the next merge.
CREATE TABLE IF NOT EXISTS spans
(
    project_id              LowCardinality(String),
    trace_id                String,
    span_id                 String,
    parent_span_id          String,
    trace_state             String,
    name                    String,
    kind                    LowCardinality(String),
    start_time              DateTime64(9, 'UTC'),
    end_time                DateTime64(9, 'UTC'),
    duration_ns             Int64,
    status_code             LowCardinality(String),
    status_message          String,
    flags                   UInt32,
    service_name            LowCardinality(String),
    scope_name              LowCardinality(String),
    scope_version           LowCardinality(String),
    -- Attribute values are stored as text: strings as they are, every other type as JSON.
    -- attribute_types names the keys whose value is not a string, so readers can restore the type.
    attributes              Map(LowCardinality(String), String),
    attribute_types         Map(LowCardinality(String), LowCardinality(String)),
    resource_attributes     Map(LowCardinality(String), String),
    resource_attribute_types Map(LowCardinality(String), LowCardinality(String)),
    scope_attributes        Map(LowCardinality(String), String),
    scope_attribute_types   Map(LowCardinality(String), LowCardinality(String)),
    events                  String,   -- JSON array of {timeUnixNano, name, attributes, droppedAttributesCount}
    links                   String,   -- JSON array of {traceId, spanId, traceState, attributes, flags, droppedAttributesCount}
    dropped_attributes_count UInt32,
    dropped_events_count    UInt32,
    dropped_links_count     UInt32,
    -- Extracted for the filters dashboards and the scorer use (see core/src/genai.ts).
    gen_ai_operation        LowCardinality(String),
    gen_ai_system           LowCardinality(String),
    request_model           LowCardinality(String),
    response_model          LowCardinality(String),
    input_tokens            UInt64,
    output_tokens           UInt64,
    tool_name               LowCardinality(String),
    agent_name              LowCardinality(String),
    agent_version           LowCardinality(String),
    prompt_version          LowCardinality(String),
    session_id              String,
    user_id                 String,
    environment             LowCardinality(String),
    ingested_at             DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX idx_start start_time TYPE minmax GRANULARITY 1,
    INDEX idx_service service_name TYPE set(256) GRANULARITY 4,
    INDEX idx_session session_id TYPE bloom_filter(0.01) GRANULARITY 4
)
ENGINE = ReplacingMergeTree(ingested_at)
PARTITION BY toDate(start_time)
ORDER BY (project_id, trace_id, span_id)
TTL toDateTime(greatest(start_time, ingested_at)) + INTERVAL {retention_days} DAY;
