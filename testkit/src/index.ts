export { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from './fake-openai/server.js'
export * from './fake-openai/script.js'
