-- User feedback (thumbs, ratings, comments) attached to a trace, sent by the SDK's feedback().
CREATE TABLE IF NOT EXISTS feedback
(
    project_id          LowCardinality(String),
    feedback_id         String,
    trace_id            String,
    span_id             String,
    score               Float64,
    comment             String,
    source              LowCardinality(String),   -- 'user' | 'annotator' | 'api' ...
    user_id             String,
    attributes          Map(LowCardinality(String), String),
    created_at          DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(created_at)
PARTITION BY toYYYYMM(created_at)
ORDER BY (project_id, trace_id, feedback_id)
TTL toDateTime(created_at) + INTERVAL {retention_days} DAY;
