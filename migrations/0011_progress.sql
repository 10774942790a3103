-- How far the embedded pipeline's in-memory stages got, so a restart after kill -9 finishes what they
-- held (core/src/storage/progress.ts). The in-process queue keeps nothing: a span is acknowledged once it
-- is in `spans`, while the `traces` rollup rewrite and the scorer's assembly of its trace live in memory.
-- Each stage writes, every few seconds and when it stops, the time before which every span that arrived
-- (`spans.ingested_at`) is done with by that stage: 'rollup' (its trace's rollup row rewritten since) and
-- 'scores' (its trace scored). At start each stage re-does the traces with spans that arrived from there
-- on. One row per stage, the newest write wins. With Kafka the committed offsets play this part.
CREATE TABLE IF NOT EXISTS progress
(
    stage               LowCardinality(String),     -- 'rollup' | 'scores'
    done_before         DateTime64(3, 'UTC'),       -- every span that arrived before it is done with
    updated_at          DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(updated_at)
ORDER BY stage;

-- Start-up looks for the spans that arrived after a stage's time: skip the parts and granules that hold
-- only older ones (the parts already on disk get the index in the background).
ALTER TABLE spans ADD INDEX IF NOT EXISTS idx_ingested ingested_at TYPE minmax GRANULARITY 1;
ALTER TABLE spans MATERIALIZE INDEX idx_ingested;
