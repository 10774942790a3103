-- Review queues (judge/README.md, "Review queues"): people label, in the dashboard, the traces the judge is least
-- sure of; their labels are `feedback` rows with source 'annotator', which calibration reads.
--
-- The rules that fill a project's queue for one rubric, as saved from the dashboard's form: every save is a new
-- version, the highest in effect, the older kept to say what filled the queue when. A project that never saved
-- any runs on the config file's `review` section (version 0, not stored). No TTL: rules are configuration.
CREATE TABLE IF NOT EXISTS review_rules
(
    project_id          LowCardinality(String),
    rubric_id           LowCardinality(String),
    version             UInt32,
    rules               String,                     -- JSON, the review section's rules (judge/src/review/config.ts)
    author              String,                     -- the reviewer name that saved them
    created_at          DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(created_at)
ORDER BY (project_id, rubric_id, version);

-- One row per trace put in a queue, by a rule (the judge, after storing its verdict) or by a person (the trace
-- view). A trace enters a queue once: a row is written only when none is there; readers take the earliest row
-- of a trace, so two writers racing leave one item. What became of it is read from `feedback` (labels) and
-- `review_skips`. Keyed by trace within the queue: the next item's lookups read a queue's key range.
CREATE TABLE IF NOT EXISTS review_queue
(
    project_id          LowCardinality(String),
    rubric_id           LowCardinality(String),
    trace_id            String,
    reason              LowCardinality(String),     -- the rule that took it, or 'manual'
    rules_version       UInt32,                     -- the rules in effect then (0: the config file's)
    dimensions          Array(String),              -- the dimensions that made the rule take it
    added_by            String,                     -- the reviewer name of a manual add; '' for a rule
    added_at            DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(added_at)
ORDER BY (project_id, rubric_id, trace_id)
TTL toDateTime(added_at) + INTERVAL {retention_days} DAY;

-- A reviewer passing over a trace (`n` on the review page): not offered to them again until undone (a newer row
-- with skipped = 0 replaces the older).
CREATE TABLE IF NOT EXISTS review_skips
(
    project_id          LowCardinality(String),
    rubric_id           LowCardinality(String),
    trace_id            String,
    reviewer            String,
    skipped             UInt8,
    at                  DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(at)
ORDER BY (project_id, rubric_id, trace_id, reviewer)
TTL toDateTime(at) + INTERVAL {retention_days} DAY;

-- Every calibration of a judge dimension as it was computed, for agreement over time: recomputed from the
-- stored labels and the stored verdicts as labels arrive (source 'review'), or by `sieve judge calibrate`
-- (source 'command'). One row per dimension, rubric and prompt version, and judge model; `in_effect` marks the
-- one written to `scores` (kind 'calibration'), the trust every figure reads.
CREATE TABLE IF NOT EXISTS calibration_history
(
    project_id          LowCardinality(String),
    scorer_name         LowCardinality(String),     -- <rubric>.<dimension>
    scorer_version      LowCardinality(String),     -- <rubric version>+prompt.<prompt version>
    judge_model         LowCardinality(String),
    source              LowCardinality(String),     -- 'review' | 'command'
    labels              UInt32,                     -- labelled traces the judge scored
    within_one          Float64,
    weighted_kappa      Float64,
    human_pairs         UInt32,                     -- traces two people labelled
    human_within_one    Nullable(Float64),
    human_weighted_kappa Nullable(Float64),
    trusted             UInt8,
    in_effect           UInt8,
    detail              String,                     -- JSON: both raters' figures, the rules, the failed rules
    computed_at         DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = MergeTree
PARTITION BY toYYYYMM(computed_at)
ORDER BY (project_id, scorer_name, computed_at)
TTL toDateTime(computed_at) + INTERVAL {retention_days} DAY;
