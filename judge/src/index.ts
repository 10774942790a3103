export { pollFeedback } from './feedback-poller.js'
export { JudgeThread } from './judge-thread.js'
export type * from './judge-worker-protocol.js'
export { checkJudgeConfig, createJudge, type JudgeRuntime } from './start-judge.js'
