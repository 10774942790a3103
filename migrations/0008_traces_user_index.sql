-- The judge's new-user slice asks for the first traces of given users (scorer/src/judge/user-positions.ts).
-- `traces` is keyed by trace, so without an index that reads the project's whole user_id column; the bloom
-- filter lets it skip the granules that hold none of the users. Parts written before this migration get the
-- index as they merge; MATERIALIZE builds it for them now (a background mutation).
ALTER TABLE traces ADD INDEX IF NOT EXISTS idx_user user_id TYPE bloom_filter(0.01) GRANULARITY 4;
ALTER TABLE traces MATERIALIZE INDEX idx_user;
