-- A layout tried for the score chain and measured by `npm run bench:storage -- --score-chain`
-- (cli/bench/RESULTS.md): one `score_latest` row per (trace, kind) carrying its checks as an array,
-- the change view merging arrays, `trace_quality` counted from the arrays, `quality_5m` spreading
-- them out (ARRAY JOIN), into the rollup tables of 0013. It was no cheaper than the
-- chain of 0013 (rows are fewer, but each view's fixed cost per write is the same and the array and
-- tuple functions cost what the rows saved), so it is kept here to be measured, not migrated to.
-- Run as a migration with a backfill from `scores`, it kept dashboard/test/rescore.test.ts green. A
-- (trace, kind) counts under the trace fields of its newest write; a write that changes nothing (the
-- same rows again) sends no change at all.

DROP VIEW IF EXISTS score_changes_mv;
DROP VIEW IF EXISTS score_latest_mv;
DROP VIEW IF EXISTS quality_5m_mv;
DROP VIEW IF EXISTS trace_quality_mv;
DROP TABLE IF EXISTS score_latest;
DROP TABLE IF EXISTS score_changes;

-- The checks in effect of every (trace, kind), with the version of each as a value, so a new version
-- replaces the old. `revision` counts the writes of the (trace, kind): the newest state is the highest,
-- also when a late score leaves the newest `created_at` where it was. Read by the change view only,
-- by (project_id, trace_id).
CREATE TABLE IF NOT EXISTS score_latest
(
    project_id          LowCardinality(String),
    trace_id            String,
    kind                LowCardinality(String),
    revision            UInt64,
    trace_start_time    DateTime64(9, 'UTC'),
    service_name        LowCardinality(String),
    agent_version       LowCardinality(String),
    prompt_version      LowCardinality(String),
    model               LowCardinality(String),
    environment         LowCardinality(String),
    created_at          DateTime64(3, 'UTC'),   -- the newest of its checks
    checks              Array(Tuple(scorer_name LowCardinality(String), span_id String, scorer_version LowCardinality(String),
                            passed UInt8, value Float64, errored UInt8, cost_usd Float64, input_tokens UInt64,
                            output_tokens UInt64, created_at DateTime64(3, 'UTC')))
)
ENGINE = ReplacingMergeTree(revision)
PARTITION BY toYYYYMM(trace_start_time)
ORDER BY (project_id, trace_id, kind)
TTL toDateTime(greatest(trace_start_time, created_at)) + INTERVAL {retention_days} DAY;

-- Signed changes of a (trace, kind)'s state, never stored: each one is fanned out to the rollups and score_latest.
CREATE TABLE IF NOT EXISTS score_changes AS score_latest
ENGINE = Null;

ALTER TABLE score_changes ADD COLUMN sign Int8 FIRST;

CREATE MATERIALIZED VIEW IF NOT EXISTS score_latest_mv TO score_latest AS
SELECT project_id, trace_id, kind, revision, trace_start_time, service_name, agent_version, prompt_version, model, environment,
    created_at, checks
FROM score_changes
WHERE sign = 1;

-- The one view that needs a row per check.
CREATE MATERIALIZED VIEW IF NOT EXISTS quality_5m_mv TO quality_5m AS
SELECT
    project_id,
    toStartOfFiveMinutes(trace_start_time) AS bucket,
    kind,
    tupleElement(c, 'scorer_name') AS scorer_name,
    service_name,
    agent_version,
    prompt_version,
    model,
    environment,
    tupleElement(c, 'scorer_version') AS scorer_version,
    sumIf(toInt64(sign), tupleElement(c, 'errored') = 0) AS scored,
    sumIf(toInt64(sign), tupleElement(c, 'errored') = 0 AND tupleElement(c, 'passed') = 1) AS passed,
    sumIf(sign * toDecimal128(tupleElement(c, 'value'), 9), tupleElement(c, 'errored') = 0) AS value_sum,
    sumIf(toInt64(sign), tupleElement(c, 'errored') = 1) AS errors,
    sum(sign * toDecimal128(tupleElement(c, 'cost_usd'), 9)) AS cost_usd,
    sum(sign * toInt64(tupleElement(c, 'input_tokens'))) AS input_tokens,
    sum(sign * toInt64(tupleElement(c, 'output_tokens'))) AS output_tokens
FROM score_changes
ARRAY JOIN checks AS c
GROUP BY project_id, bucket, kind, scorer_name, service_name, agent_version, prompt_version, model, environment, scorer_version;

-- Counted from each change's array as it is. A name's count in a map is how many of its checks
-- (one per span it is about) fail; a -1 row keeps the dimensions of the state it takes back.
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
    sum(n_checks) AS checks,
    sum(n_checks_failed) AS checks_failed,
    sumMap(mapFromArrays(arrayDistinct(failed_names), arrayMap(name -> sign * toInt64(countEqual(failed_names, name)), arrayDistinct(failed_names)))) AS failed_checks,
    sum(n_judged) AS judge_scores,
    sum(judged_sum) AS judge_value_sum,
    sumMap(mapFromArrays(arrayDistinct(low_names), arrayMap(name -> sign * toInt64(countEqual(low_names, name)), arrayDistinct(low_names)))) AS judge_failed
FROM
(
    SELECT project_id, trace_start_time, trace_id, service_name, agent_version, prompt_version, model, environment, sign,
        if(kind = 'deterministic', sign * toInt64(length(checks)), 0) AS n_checks,
        if(kind = 'deterministic', sign * toInt64(arrayCount(c -> tupleElement(c, 'passed') = 0, checks)), 0) AS n_checks_failed,
        if(kind = 'deterministic', arrayMap(c -> toString(tupleElement(c, 'scorer_name')), arrayFilter(c -> tupleElement(c, 'passed') = 0, checks)), []) AS failed_names,
        if(kind = 'judge', arrayFilter(c -> tupleElement(c, 'errored') = 0, checks), []) AS judged,
        sign * toInt64(length(judged)) AS n_judged,
        sign * arraySum(arrayMap(c -> toDecimal128(tupleElement(c, 'value'), 9), judged)) AS judged_sum,
        arrayMap(c -> toString(tupleElement(c, 'scorer_name')), arrayFilter(c -> tupleElement(c, 'passed') = 0, judged)) AS low_names
    FROM score_changes
)
GROUP BY project_id, trace_start_time, trace_id;

-- The change view. `n`: the insert's checks per (trace, kind), the newest row per check (a check is
-- (name, span)). `o`: the (trace, kind)'s state so far, read by primary key for the traces of the
-- insert only (inside a materialized view, `scores` names the inserted rows, not the table). The new
-- state is the stored checks the insert does not replace plus the insert's checks, the newer of the
-- two winning per check; it goes out as -1 of the old state and +1 of the new one, or not at all
-- when nothing changed (the same rows delivered again).
CREATE MATERIALIZED VIEW IF NOT EXISTS score_changes_mv TO score_changes AS
SELECT
    tupleElement(change, 1) AS sign,
    project_id, trace_id, kind,
    tupleElement(change, 2) AS revision,
    tupleElement(tupleElement(change, 3), 1) AS trace_start_time,
    tupleElement(tupleElement(change, 3), 2) AS service_name,
    tupleElement(tupleElement(change, 3), 3) AS agent_version,
    tupleElement(tupleElement(change, 3), 4) AS prompt_version,
    tupleElement(tupleElement(change, 3), 5) AS model,
    tupleElement(tupleElement(change, 3), 6) AS environment,
    tupleElement(change, 4) AS created_at,
    tupleElement(change, 5) AS checks
FROM
(
    SELECT project_id, trace_id, kind, o.found AS found, in_fields, in_created, in_checks,
        tupleElement(o.stored, 1) AS st_revision,
        tupleElement(o.stored, 2) AS st_fields,
        tupleElement(o.stored, 3) AS st_created,
        tupleElement(o.stored, 4) AS st_checks,
        arrayMap(c -> (tupleElement(c, 'scorer_name'), tupleElement(c, 'span_id')), in_checks) AS in_keys,
        arrayMap(c -> (tupleElement(c, 'scorer_name'), tupleElement(c, 'span_id')), st_checks) AS st_keys,
        arraySort(c -> (tupleElement(c, 'scorer_name'), tupleElement(c, 'span_id')), arrayConcat(
            arrayFilter((c, i) -> i = 0 OR tupleElement(c, 'created_at') > tupleElement(in_checks[i], 'created_at'),
                st_checks, arrayMap(k -> indexOf(in_keys, k), st_keys)),
            arrayFilter((c, i) -> i = 0 OR tupleElement(c, 'created_at') >= tupleElement(st_checks[i], 'created_at'),
                in_checks, arrayMap(k -> indexOf(st_keys, k), in_keys)))) AS new_checks,
        if(in_created >= st_created, in_fields, st_fields) AS new_fields
    FROM
    (
        SELECT project_id, trace_id, kind,
            argMax(tupleElement(e, 2), tupleElement(tupleElement(e, 1), 'created_at')) AS in_fields,
            max(tupleElement(tupleElement(e, 1), 'created_at')) AS in_created,
            arraySort(c -> (tupleElement(c, 'scorer_name'), tupleElement(c, 'span_id')), groupArray(tupleElement(e, 1))) AS in_checks
        FROM
        (
            SELECT project_id, trace_id, kind,
                argMax((CAST((scorer_name, span_id, scorer_version, passed, value, toUInt8(error != ''), cost_usd, input_tokens, output_tokens, created_at),
                              'Tuple(scorer_name LowCardinality(String), span_id String, scorer_version LowCardinality(String), passed UInt8, value Float64, errored UInt8, cost_usd Float64, input_tokens UInt64, output_tokens UInt64, created_at DateTime64(3, \'UTC\'))'),
                        (trace_start_time, service_name, agent_version, trace_prompt_version, model, environment)), created_at) AS e
            FROM scores
            WHERE kind != 'calibration'
            GROUP BY project_id, trace_id, kind, scorer_name, span_id
        )
        GROUP BY project_id, trace_id, kind
    ) AS n
    LEFT JOIN
    (
        SELECT project_id, trace_id, kind, 1 AS found,
            argMax((revision, (trace_start_time, service_name, agent_version, prompt_version, model, environment), created_at, checks), revision) AS stored
        FROM score_latest
        WHERE project_id IN (SELECT project_id FROM scores) AND trace_id IN (SELECT trace_id FROM scores WHERE kind != 'calibration')
        GROUP BY project_id, trace_id, kind
    ) AS o USING (project_id, trace_id, kind)
)
ARRAY JOIN
    if(found = 1,
       if(new_checks = st_checks AND new_fields = st_fields, [],
          [(toInt8(-1), st_revision, st_fields, st_created, st_checks), (toInt8(1), st_revision + 1, new_fields, greatest(in_created, st_created), new_checks)]),
       [(toInt8(1), toUInt64(1), in_fields, in_created, in_checks)]) AS change;
