-- What the LLM judge used of its daily budgets (scorer/src/judge/shared-budget.ts), so a cap holds across
-- restarts, crash loops and every scorer instance: each process is an instance with a random id and writes
-- its running totals of the UTC day per sampling slice (calls reserved, USD spent) every second and on
-- close; every instance reads the sum of the others' rows at start and every few seconds.
-- One row per (day, slice, instance), the instance's newer totals replacing its older ones by `revision`:
-- a write is the whole total, so writing it again (a retry after an unclear failure) changes nothing and a
-- lost write is made good by the next, where summed deltas (SummingMergeTree) would count a retried insert
-- twice or lose a failed one, and would need negative rows for calls given back. Instances never write
-- each other's rows, so none overwrites another; readers sum over instances with FINAL.
CREATE TABLE IF NOT EXISTS judge_budget
(
    utc_day             Date,
    slice               LowCardinality(String),    -- sampling slice, or 'random'
    instance_id         String,                     -- one scorer process
    calls               UInt64,                     -- judge calls reserved that day (given back when not made)
    spend_usd           Float64,                    -- cost of the answers that day, from tokens and judge.prices
    revision            UInt64,                     -- the instance's write count: the newest row wins
    updated_at          DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(revision)
PARTITION BY toYYYYMM(utc_day)
ORDER BY (utc_day, slice, instance_id)
TTL utc_day + INTERVAL {retention_days} DAY;
