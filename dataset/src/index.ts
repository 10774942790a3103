export { createScrubber, type Scrubber } from './scrub/scrubber.js'
export { scrubOptionsSchema, type ScrubOptions } from './scrub/options.js'
export { Placeholders } from './scrub/placeholders.js'
export { BUILT_IN_TYPES, type BuiltInType, type Finding, type Detector } from '@sieve/pii'
export { loadScrubOptions } from './scrub/config.js'
export { scrubStream, BATCH_CHARS, type StreamFormat, type StreamReport } from './scrub/scrub-stream.js'
export {
  DATASET_VERSION,
  BUCKETS,
  goldenExampleSchema,
  selectionReasonSchema,
  expectationRules,
  expectationShape,
  type GoldenExample,
  type SelectionReason,
} from './golden/golden-example.js'
export { parseDataset, readDataset, formatProblem, type DatasetProblem, type DatasetContents } from './golden/validate-dataset.js'
export { buildExample, exampleId, inputHash, type Built } from './export/build-example.js'
export type { StoredScore } from './export/stored-score.js'
export { exportDataset, DatasetFileError, type ExportOptions, type ExportReport } from './export/export-dataset.js'
export { SelectionError } from './export/score-names.js'
export { selectTraces, type Selection, type Candidate, type FeedbackFilter, type StoredScorecard } from './export/select-traces.js'
export { sinceUnixNano } from './export/since.js'
export { projectDatasetPath, projectSegment } from './export/dataset-path.js'
export { checkProblems, expectedCheckProblems } from './golden/resolve-checks.js'
