-- Rollups the dashboards read instead of scanning `scores` (a raw scan of 8 million score rows takes
-- seconds on two cores; these answer in milliseconds). Both are fed by materialized views at insert
-- time, so they are current as soon as a score is written.
--
-- Counting rule: a rollup counts every score row as it is written. The raw table collapses a re-score
-- of the same (trace, check, version) into one row, the rollups do not: a re-scored trace counts again.
-- Rates are affected only when the re-score disagrees with the first score; `/api/traces/:id` reads the
-- raw table and is always exact. Judge rows with an `error` are counted apart, never as low scores.
-- Judge calibration rows (kind 'calibration', no trace) qualify judge dimensions; they are not
-- trace scores and stay out of the rollups (the API reads them from `scores`).

-- Pass rates and mean values per 5 minutes, per check or judge dimension, per version.
CREATE TABLE IF NOT EXISTS quality_5m
(
    project_id          LowCardinality(String),
    bucket              DateTime('UTC'),
    kind                LowCardinality(String),
    scorer_name         LowCardinality(String),
    service_name        LowCardinality(String),
    agent_version       LowCardinality(String),
    prompt_version      LowCardinality(String),
    model               LowCardinality(String),
    scored              UInt64,     -- rows without error
    passed              UInt64,
    value_sum           Float64,
    errors              UInt64,     -- judge errors
    cost_usd            Float64,
    input_tokens        UInt64,
    output_tokens       UInt64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model)
TTL bucket + INTERVAL {retention_days} DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS quality_5m_mv TO quality_5m AS
SELECT
    project_id,
    toStartOfFiveMinutes(trace_start_time) AS bucket,
    kind,
    scorer_name,
    service_name,
    agent_version,
    trace_prompt_version AS prompt_version,
    model,
    countIf(error = '') AS scored,
    countIf(error = '' AND passed = 1) AS passed,
    sumIf(value, error = '') AS value_sum,
    countIf(error != '') AS errors,
    sum(cost_usd) AS cost_usd,
    sum(input_tokens) AS input_tokens,
    sum(output_tokens) AS output_tokens
FROM scores
WHERE kind != 'calibration'
GROUP BY project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model;

-- The same per hour, fed from quality_5m: charts over days read 12 times fewer rows.
CREATE TABLE IF NOT EXISTS quality_1h AS quality_5m
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model)
TTL bucket + INTERVAL {retention_days} DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS quality_1h_mv TO quality_1h AS
SELECT project_id, toStartOfHour(bucket) AS bucket, kind, scorer_name, service_name, agent_version, prompt_version, model,
    sum(scored) AS scored, sum(passed) AS passed, sum(value_sum) AS value_sum, sum(errors) AS errors,
    sum(cost_usd) AS cost_usd, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
FROM quality_5m
GROUP BY project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model;

-- One row per scored trace, ordered by time: the "worst traces" list reads a time range of this
-- instead of grouping every score row.
CREATE TABLE IF NOT EXISTS trace_quality
(
    project_id          LowCardinality(String),
    trace_start_time    DateTime64(9, 'UTC'),
    trace_id            String,
    service_name        SimpleAggregateFunction(any, LowCardinality(String)),
    agent_version       SimpleAggregateFunction(any, LowCardinality(String)),
    prompt_version      SimpleAggregateFunction(any, LowCardinality(String)),
    model               SimpleAggregateFunction(any, LowCardinality(String)),
    checks              SimpleAggregateFunction(sum, UInt64),
    checks_failed       SimpleAggregateFunction(sum, UInt64),
    failed_checks       SimpleAggregateFunction(groupUniqArrayArray, Array(String)),
    judge_scores        SimpleAggregateFunction(sum, UInt64),
    judge_value_sum     SimpleAggregateFunction(sum, Float64),
    judge_failed        SimpleAggregateFunction(groupUniqArrayArray, Array(String))
)
ENGINE = AggregatingMergeTree
PARTITION BY toDate(trace_start_time)
ORDER BY (project_id, trace_start_time, trace_id)
TTL toDateTime(trace_start_time) + INTERVAL {retention_days} DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS trace_quality_mv TO trace_quality AS
SELECT
    project_id,
    trace_start_time,
    trace_id,
    any(service_name) AS service_name,
    any(agent_version) AS agent_version,
    any(trace_prompt_version) AS prompt_version,
    any(model) AS model,
    countIf(kind = 'deterministic') AS checks,
    countIf(kind = 'deterministic' AND passed = 0) AS checks_failed,
    groupUniqArrayIf(toString(scorer_name), kind = 'deterministic' AND passed = 0) AS failed_checks,
    countIf(kind = 'judge' AND error = '') AS judge_scores,
    sumIf(value, kind = 'judge' AND error = '') AS judge_value_sum,
    groupUniqArrayIf(toString(scorer_name), kind = 'judge' AND error = '' AND passed = 0) AS judge_failed
FROM scores
WHERE kind != 'calibration'
GROUP BY project_id, trace_start_time, trace_id;
