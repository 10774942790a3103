-- How far each Kafka partition's span inserts may have reached (core/src/storage/insert-intents.ts).
-- The ingester commits a partition's offset only once the `traces` rollup covers the batch, so after a
-- crash, a broker outage or a rebalance the new owner is handed again records whose spans may already be
-- in `spans`. Before each insert the ingester records here the last offset it holds per partition; a
-- batch that does not continue where this process left off checks which of its spans at or below that
-- offset are stored and inserts only the others, so a replay adds no second row. One row per
-- (group, partition) after merges, the highest offset wins.
CREATE TABLE IF NOT EXISTS insert_intents
(
    consumer_group      LowCardinality(String),
    partition           UInt32,
    through_offset      UInt64,                     -- an insert holding records up to here may have begun
    recorded_at         DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(through_offset)
ORDER BY (consumer_group, partition);
