-- The environment a trace ran in as a dimension of the quality rollups. A project's traffic is often
-- more than production: staging, a canary, and the runs of `sieve simulate --send`, which are tagged
-- `deployment.environment.name = simulation`. The dashboard and Grafana then leave simulations out of
-- a project's charts by default and can show one environment, or all (dashboard/README.md).
--
-- `scores` gets the column, written by the scorer from the trace (its root span's
-- deployment.environment.name, else any span's; '' when none). The rollups are rebuilt as in 0007,
-- with `environment` beside the model, and refilled from `scores`: history scored before this
-- release has environment '', and is never taken for a simulation. As for 0007, run it with the
-- scorer stopped, as `sieve up` and `sieve migrate` do.

ALTER TABLE scores ADD COLUMN IF NOT EXISTS environment LowCardinality(String) AFTER model;

DROP VIEW IF EXISTS score_changes_mv;
DROP VIEW IF EXISTS score_latest_mv;
DROP VIEW IF EXISTS quality_5m_mv;
DROP VIEW IF EXISTS quality_1h_mv;
DROP VIEW IF EXISTS trace_quality_mv;
DROP TABLE IF EXISTS quality_1h;
DROP TABLE IF EXISTS quality_5m;
DROP TABLE IF EXISTS trace_quality;
DROP TABLE IF EXISTS score_latest;
DROP TABLE IF EXISTS score_changes;

-- The latest score of every (trace, kind, check, span), check version included as a value: what the
-- rollups currently count. Read by the change view only, by (project_id, trace_id): small granules,
-- since each lookup reads a few rows for each of many scattered traces.
CREATE TABLE IF NOT EXISTS score_latest
(
    project_id          LowCardinality(String),
    trace_id            String,
    kind                LowCardinality(String),
    scorer_name         LowCardinality(String),
    span_id             String,
    scorer_version      LowCardinality(String),
    trace_start_time    DateTime64(9, 'UTC'),
    service_name        LowCardinality(String),
    agent_version       LowCardinality(String),
    prompt_version      LowCardinality(String),
    model               LowCardinality(String),
    environment         LowCardinality(String),
    passed              UInt8,
    value               Float64,
    errored             UInt8,      -- a judge call that failed: never a low score
    cost_usd            Float64,
    input_tokens        UInt64,
    output_tokens       UInt64,
    created_at          DateTime64(3, 'UTC')
)
ENGINE = ReplacingMergeTree(created_at)
PARTITION BY toYYYYMM(trace_start_time)
ORDER BY (project_id, trace_id, kind, scorer_name, span_id)
TTL toDateTime(greatest(trace_start_time, created_at)) + INTERVAL {retention_days} DAY
SETTINGS index_granularity = 1024;

-- Signed changes, never stored: each one is fanned out to the rollups and score_latest.
CREATE TABLE IF NOT EXISTS score_changes
(
    sign                Int8,
    project_id          LowCardinality(String),
    trace_id            String,
    kind                LowCardinality(String),
    scorer_name         LowCardinality(String),
    span_id             String,
    scorer_version      LowCardinality(String),
    trace_start_time    DateTime64(9, 'UTC'),
    service_name        LowCardinality(String),
    agent_version       LowCardinality(String),
    prompt_version      LowCardinality(String),
    model               LowCardinality(String),
    environment         LowCardinality(String),
    passed              UInt8,
    value               Float64,
    errored             UInt8,
    cost_usd            Float64,
    input_tokens        UInt64,
    output_tokens       UInt64,
    created_at          DateTime64(3, 'UTC')
)
ENGINE = Null;

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
    environment         LowCardinality(String),
    scorer_version      LowCardinality(String),
    scored              Int64,              -- scores without error
    passed              Int64,
    value_sum           Decimal(38, 9),
    errors              Int64,              -- judge errors
    cost_usd            Decimal(38, 9),
    input_tokens        Int64,
    output_tokens       Int64
)
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model, environment, scorer_version)
TTL bucket + INTERVAL {retention_days} DAY;

-- The same per hour: charts over days read 12 times fewer rows.
CREATE TABLE IF NOT EXISTS quality_1h AS quality_5m
ENGINE = SummingMergeTree
PARTITION BY toYYYYMM(bucket)
ORDER BY (project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model, environment, scorer_version)
TTL bucket + INTERVAL {retention_days} DAY;

-- One row per scored trace (after merges), ordered by time: the worst-traces list reads a time range
-- of this instead of grouping every score. failed_checks and judge_failed count, per name, the
-- failing scores in effect: a name fails when its count is above zero.
CREATE TABLE IF NOT EXISTS trace_quality
(
    project_id          LowCardinality(String),
    trace_start_time    DateTime64(9, 'UTC'),
    trace_id            String,
    service_name        SimpleAggregateFunction(max, LowCardinality(String)),
    agent_version       SimpleAggregateFunction(max, LowCardinality(String)),
    prompt_version      SimpleAggregateFunction(max, LowCardinality(String)),
    model               SimpleAggregateFunction(max, LowCardinality(String)),
    environment         SimpleAggregateFunction(max, LowCardinality(String)),
    checks              SimpleAggregateFunction(sum, Int64),
    checks_failed       SimpleAggregateFunction(sum, Int64),
    failed_checks       SimpleAggregateFunction(sumMap, Map(String, Int64)),
    judge_scores        SimpleAggregateFunction(sum, Int64),
    judge_value_sum     SimpleAggregateFunction(sum, Decimal(38, 9)),
    judge_failed        SimpleAggregateFunction(sumMap, Map(String, Int64))
)
ENGINE = AggregatingMergeTree
PARTITION BY toDate(trace_start_time)
ORDER BY (project_id, trace_start_time, trace_id)
TTL toDateTime(trace_start_time) + INTERVAL {retention_days} DAY;

CREATE MATERIALIZED VIEW IF NOT EXISTS score_latest_mv TO score_latest AS
SELECT project_id, trace_id, kind, scorer_name, span_id, scorer_version, trace_start_time, service_name, agent_version,
    prompt_version, model, environment, passed, value, errored, cost_usd, input_tokens, output_tokens, created_at
FROM score_changes
WHERE sign = 1;

CREATE MATERIALIZED VIEW IF NOT EXISTS quality_5m_mv TO quality_5m AS
SELECT
    project_id,
    toStartOfFiveMinutes(trace_start_time) AS bucket,
    kind,
    scorer_name,
    service_name,
    agent_version,
    prompt_version,
    model,
    environment,
    scorer_version,
    sumIf(toInt64(sign), errored = 0) AS scored,
    sumIf(toInt64(sign), errored = 0 AND passed = 1) AS passed,
    sumIf(sign * toDecimal128(value, 9), errored = 0) AS value_sum,
    sumIf(toInt64(sign), errored = 1) AS errors,
    sum(sign * toDecimal128(cost_usd, 9)) AS cost_usd,
    sum(sign * toInt64(input_tokens)) AS input_tokens,
    sum(sign * toInt64(output_tokens)) AS output_tokens
FROM score_changes
GROUP BY project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model, environment, scorer_version;

CREATE MATERIALIZED VIEW IF NOT EXISTS quality_1h_mv TO quality_1h AS
SELECT project_id, toStartOfHour(bucket) AS bucket, kind, scorer_name, service_name, agent_version, prompt_version, model, environment, scorer_version,
    sum(scored) AS scored, sum(passed) AS passed, sum(value_sum) AS value_sum, sum(errors) AS errors,
    sum(cost_usd) AS cost_usd, sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
FROM quality_5m
GROUP BY project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model, environment, scorer_version;

-- A -1 row keeps the dimensions of the row it takes back, so filters by version select it together
-- with the +1 rows of the same trace.
CREATE MATERIALIZED VIEW IF NOT EXISTS trace_quality_mv TO trace_quality AS
SELECT
    project_id,
    trace_start_time,
    trace_id,
    max(service_name) AS service_name,
    max(agent_version) AS agent_version,
    max(prompt_version) AS prompt_version,
    max(model) AS model,
    max(environment) AS environment,
    sumIf(toInt64(sign), kind = 'deterministic') AS checks,
    sumIf(toInt64(sign), kind = 'deterministic' AND passed = 0) AS checks_failed,
    sumMapIf(map(toString(scorer_name), toInt64(sign)), kind = 'deterministic' AND passed = 0) AS failed_checks,
    sumIf(toInt64(sign), kind = 'judge' AND errored = 0) AS judge_scores,
    sumIf(sign * toDecimal128(value, 9), kind = 'judge' AND errored = 0) AS judge_value_sum,
    sumMapIf(map(toString(scorer_name), toInt64(sign)), kind = 'judge' AND errored = 0 AND passed = 0) AS judge_failed
FROM score_changes
GROUP BY project_id, trace_start_time, trace_id;

-- The change view. `incoming`: the newest row per key within the insert. `stored`: the key's latest
-- row so far, read by primary key for the traces of the insert only (inside a materialized view,
-- `scores` names the inserted rows, not the table).
CREATE MATERIALIZED VIEW IF NOT EXISTS score_changes_mv TO score_changes AS
SELECT
    tupleElement(change, 1) AS sign,
    project_id, trace_id, kind, scorer_name, span_id,
    tupleElement(tupleElement(change, 2), 1) AS scorer_version,
    tupleElement(tupleElement(change, 2), 2) AS trace_start_time,
    tupleElement(tupleElement(change, 2), 3) AS service_name,
    tupleElement(tupleElement(change, 2), 4) AS agent_version,
    tupleElement(tupleElement(change, 2), 5) AS prompt_version,
    tupleElement(tupleElement(change, 2), 6) AS model,
    tupleElement(tupleElement(change, 2), 7) AS environment,
    tupleElement(tupleElement(change, 2), 8) AS passed,
    tupleElement(tupleElement(change, 2), 9) AS value,
    tupleElement(tupleElement(change, 2), 10) AS errored,
    tupleElement(tupleElement(change, 2), 11) AS cost_usd,
    tupleElement(tupleElement(change, 2), 12) AS input_tokens,
    tupleElement(tupleElement(change, 2), 13) AS output_tokens,
    tupleElement(tupleElement(change, 2), 14) AS created_at
FROM
(
    SELECT project_id, trace_id, kind, scorer_name, span_id,
        argMax((scorer_version, trace_start_time, service_name, agent_version, trace_prompt_version, model, environment,
                passed, value, toUInt8(error != ''), cost_usd, input_tokens, output_tokens, created_at), created_at) AS incoming
    FROM scores
    WHERE kind != 'calibration'
    GROUP BY project_id, trace_id, kind, scorer_name, span_id
) AS n
LEFT JOIN
(
    SELECT project_id, trace_id, kind, scorer_name, span_id, 1 AS found,
        argMax((scorer_version, trace_start_time, service_name, agent_version, prompt_version, model, environment,
                passed, value, errored, cost_usd, input_tokens, output_tokens, created_at), created_at) AS stored
    FROM score_latest
    WHERE project_id IN (SELECT project_id FROM scores) AND trace_id IN (SELECT trace_id FROM scores WHERE kind != 'calibration')
    GROUP BY project_id, trace_id, kind, scorer_name, span_id
) AS o USING (project_id, trace_id, kind, scorer_name, span_id)
ARRAY JOIN
    if(o.found = 1,
       [(toInt8(-1), stored), (toInt8(1), if(tupleElement(incoming, 14) >= tupleElement(stored, 14), incoming, stored))],
       [(toInt8(1), incoming)]) AS change;

-- Backfill: the latest row of every key already in `scores`, through the same fan-out.
INSERT INTO score_changes
SELECT 1 AS sign, project_id, trace_id, kind, scorer_name, span_id,
    tupleElement(latest, 1), tupleElement(latest, 2), tupleElement(latest, 3), tupleElement(latest, 4), tupleElement(latest, 5),
    tupleElement(latest, 6), tupleElement(latest, 7), tupleElement(latest, 8), tupleElement(latest, 9), tupleElement(latest, 10),
    tupleElement(latest, 11), tupleElement(latest, 12), tupleElement(latest, 13), tupleElement(latest, 14)
FROM
(
    SELECT project_id, trace_id, kind, scorer_name, span_id,
        argMax((scorer_version, trace_start_time, service_name, agent_version, trace_prompt_version, model, environment,
                passed, value, toUInt8(error != ''), cost_usd, input_tokens, output_tokens, created_at), created_at) AS latest
    FROM scores
    WHERE kind != 'calibration'
    GROUP BY project_id, trace_id, kind, scorer_name, span_id
);
