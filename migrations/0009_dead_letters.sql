-- Spans the embedded ingester could not store: an insert that failed on the data is split until the
-- failing spans are alone, the rest is stored, and each refused span lands here as one row under its own
-- project, with the storage error (which may quote the row: read by operators, never sent to a client)
-- and the span as JSON (the Span model, as a version 1 Kafka record holds it), to read, fix and replay.
-- With Kafka the dead-letter topic plays this part. A log, not a table of record: plain MergeTree,
-- every refusal kept. Retention counts from arrival: the span's own times may be what storage refused.
CREATE TABLE IF NOT EXISTS dead_letters
(
    project_id          LowCardinality(String),
    received_at         DateTime64(3, 'UTC') DEFAULT now64(3),
    trace_id            String,
    span_id             String,
    error               String,
    span                String
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(received_at)
ORDER BY (project_id, received_at)
TTL toDateTime(received_at) + INTERVAL {retention_days} DAY;
