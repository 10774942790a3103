-- One row per (trace, scorer) result. Re-scoring with the same scorer version replaces the row.
-- evaluation_* mirror the OpenTelemetry GenAI `gen_ai.evaluation.result` event.
CREATE TABLE IF NOT EXISTS scores
(
    project_id          LowCardinality(String),
    trace_id            String,
    span_id             String,             -- the span the score is about; '' for the whole trace
    scorer_name         LowCardinality(String),
    kind                LowCardinality(String),   -- 'deterministic' | 'judge' | 'human'
    scorer_version      LowCardinality(String),
    config_hash         String,
    value               Float64,
    passed              UInt8,
    detail              String,             -- JSON: what was seen, where
    evaluation_name     LowCardinality(String),
    evaluation_label    LowCardinality(String),
    evaluation_explanation String,
    judge_model         LowCardinality(String),
    prompt_version      LowCardinality(String),
    rubric_id           LowCardinality(String),
    rubric_version      LowCardinality(String),
    evidence            String,             -- JSON array of cited span ids / turns
    sample_reason       LowCardinality(String),
    cost_usd            Float64,
    input_tokens        UInt64,
    output_tokens       UInt64,
    error               String,             -- judge error; such rows are never counted as low scores
    trace_start_time    DateTime64(9, 'UTC'),
    service_name        LowCardinality(String),
    agent_version       LowCardinality(String),
    trace_prompt_version LowCardinality(String),
    model               LowCardinality(String),
    created_at          DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(created_at)
PARTITION BY toDate(trace_start_time)
ORDER BY (project_id, trace_id, kind, scorer_name, scorer_version, span_id)
TTL toDateTime(greatest(trace_start_time, created_at)) + INTERVAL {retention_days} DAY;
