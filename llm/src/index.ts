export { completeWithRetries, modelClient } from './retrying-completion.js'
export { JudgeError, type JudgeErrorCode } from './judge-error.js'
export { aliasProblem, isPinnedModel } from './model-pin.js'
