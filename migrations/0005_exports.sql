-- One row per trace exported into a golden dataset: `sieve export` skips traces already recorded for
-- the same dataset file, so exporting twice adds nothing. No TTL: the record of what a dataset holds
-- must outlive the traces it came from.
CREATE TABLE IF NOT EXISTS exports
(
    project_id          LowCardinality(String),
    dataset_path        String,             -- absolute path of the JSONL file
    trace_id            String,
    example_id          String,
    dataset_version     UInt16,             -- golden example schema version
    input_hash          String,             -- sha256 of the normalised scrubbed input (dedupe key)
    duplicate_of        String,             -- example id already in the file with the same input; '' when added
    exported_at         DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = ReplacingMergeTree(exported_at)
ORDER BY (project_id, dataset_path, trace_id);
