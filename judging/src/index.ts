export { type AskJudge, JudgeClient, type JudgeClientOptions, type JudgeRef } from './client.js'
export {
  type BudgetLimits,
  type CalibrationRules,
  type JudgeConfig,
  type JudgeSection,
  judgeSectionSchema,
  loadJudgeConfig,
  type SliceBudget,
} from './config.js'
export { judgeDimension, judgesFor, toScoreRecords } from './judge-trace.js'
export { type JudgeCounter, JudgeMetrics } from './metrics.js'
export { PROMPT_VERSION } from './prompt.js'
export { BUILTIN_RUBRICS_DIR, levelRange, loadRubricDir, loadRubrics, type Rubric } from './rubric.js'
export { rubricFor } from './rubric-for.js'
export { Semaphore } from './semaphore.js'
export { type SliceFacts, sliceMatches, sliceMatchSchema } from './slices.js'
export { buildTranscript, type Transcript, type TranscriptTurn } from './transcript.js'
// What judging throws for its config, rubrics, labels and calls: the model client's error, one type for both.
export { JudgeError, type JudgeErrorCode } from '@sieve/llm'
