/**
 * One row of the `scores` table as the judge produces it (camelCase of the column names in
 * migrations/0003_scores.sql). The scorer's scores writer stores it.
 */
export interface JudgeScoreRecord {
  projectId: string
  traceId: string
  spanId: string
  scorerName: string
  /** 'calibration' rows hold a dimension's agreement with human labels (trace id ''), see calibration/. */
  kind: 'judge' | 'calibration'
  scorerVersion: string
  configHash: string
  value: number
  passed: boolean
  /** JSON: the level, the panel's individual answers, whether the trace needs review. */
  detail: string
  evaluationName: string
  evaluationLabel: string
  evaluationExplanation: string
  judgeModel: string
  promptVersion: string
  rubricId: string
  rubricVersion: string
  /** JSON array of {turn, spanId, quote}. */
  evidence: string
  sampleReason: string
  costUsd: number
  inputTokens: number
  outputTokens: number
  /** `CODE: message` when no verdict could be had; the row's value then means nothing. */
  error: string
  traceStartTimeUnixNano: string
  serviceName: string
  agentVersion: string
  tracePromptVersion: string
  model: string
}

/** Where judge scores go; the scorer's scores writer implements it. */
export interface JudgeScoresSink {
  write(records: JudgeScoreRecord[]): Promise<void>
}
