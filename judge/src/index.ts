export { pollFeedback } from './feedback-poller.js'
export { JudgeThread } from './judge-thread.js'
export { checkJudgeConfig, createJudge, type JudgeRuntime } from './start-judge.js'
