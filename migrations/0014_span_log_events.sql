-- GenAI events that instrumentations emit as OTLP log records (POST /v1/logs) rather than on their span:
-- the per-message `gen_ai.user.message` / `gen_ai.choice` events of the older conventions and
-- `gen_ai.client.inference.operation.details` of the current ones. Each row is one event of the span it
-- names, as a span event in JSON (core's SpanEvent); readTraces adds them to their span's events, so
-- every reader (conversation, checks, judge, export, trace view) finds them where it finds span events.
-- An export retried after a lost answer writes the same rows again: they collapse on the key, which
-- holds the event's place in its request (`seq`) and a hash of it, so the same message twice in one
-- call (two "ok"s within one clock tick) stays twice. Partitioned by arrival: one request is one
-- partition, whatever times its events carry.
CREATE TABLE IF NOT EXISTS span_log_events
(
    project_id          LowCardinality(String),
    trace_id            String,
    span_id             String,
    time                DateTime64(9, 'UTC'),
    name                LowCardinality(String),
    seq                 UInt32,                     -- its place in the request: orders events of equal times as sent
    event               String,
    received_at         DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(received_at)
PARTITION BY toYYYYMM(received_at)
ORDER BY (project_id, trace_id, span_id, time, seq, cityHash64(event))
TTL toDateTime(greatest(time, received_at)) + INTERVAL {retention_days} DAY;
