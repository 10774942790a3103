import { bannedContent } from './banned-content.js'
import type { CheckDefinition } from './check.js'
import { costBudget } from './cost-budget.js'
import { emptyAnswer } from './empty-answer.js'
import { errorSpans } from './error-spans.js'
import { grounding } from './grounding.js'
import { inventedUrls } from './invented-urls.js'
import { latencyBudget } from './latency-budget.js'
import { piiEcho } from './pii-echo.js'
import { prohibitedTools } from './prohibited-tools.js'
import { requiredTools } from './required-tools.js'
import { structuredOutput } from './structured-output.js'
import { systemPromptLeakage } from './system-prompt-leakage.js'
import { tokenBudget } from './token-budget.js'
import { traceComplete } from './trace-complete.js'
import { toolCallValidity } from './tool-call-validity.js'
import { toolErrors } from './tool-errors.js'
import { toolLoop } from './tool-loop.js'
import { truncation } from './truncation.js'
import { turnBudget } from './turn-budget.js'

/**
 * The checks that run on every trace unless the config turns them off, in report order. Checks that
 * need configuration to mean anything (required tools, output schema, ...) skip themselves when it
 * is missing, so this list works on any trace with no config at all.
 */
export const DEFAULT_CHECKS: readonly CheckDefinition[] = [
  traceComplete,
  requiredTools,
  prohibitedTools,
  toolCallValidity,
  toolErrors,
  toolLoop,
  structuredOutput,
  bannedContent,
  inventedUrls,
  piiEcho,
  systemPromptLeakage,
  grounding,
  turnBudget,
  latencyBudget,
  tokenBudget,
  costBudget,
  truncation,
  errorSpans,
  emptyAnswer,
] as CheckDefinition[]
