-- Per-trace rollup, rewritten by the ingester from `spans FINAL` for every trace a batch touches,
-- so counts stay exact when a span is delivered twice. Read with FINAL. The key holds nothing that
-- changes when a late span arrives (start_time can move earlier), and the table is not partitioned
-- by time, so FINAL always collapses a rewritten trace into one row. See README.md.
CREATE TABLE IF NOT EXISTS traces
(
    project_id          LowCardinality(String),
    trace_id            String,
    service_name        LowCardinality(String),
    root_span_id        String,
    root_name           String,
    start_time          DateTime64(9, 'UTC'),
    end_time            DateTime64(9, 'UTC'),
    duration_ns         Int64,
    span_count          UInt32,
    llm_call_count      UInt32,
    tool_call_count     UInt32,
    error_count         UInt32,
    input_tokens        UInt64,
    output_tokens       UInt64,
    agent_name          LowCardinality(String),
    agent_version       LowCardinality(String),
    prompt_version      LowCardinality(String),
    model               LowCardinality(String),
    session_id          String,
    user_id             String,
    environment         LowCardinality(String),
    updated_at          DateTime64(3, 'UTC') DEFAULT now64(3),
    INDEX idx_start start_time TYPE minmax GRANULARITY 1,
    INDEX idx_service service_name TYPE set(256) GRANULARITY 4
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY (project_id, trace_id)
TTL toDateTime(greatest(start_time, updated_at)) + INTERVAL {retention_days} DAY;
