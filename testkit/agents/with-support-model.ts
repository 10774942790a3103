import { spawn } from 'node:child_process'
import { startSupportModel } from './support-model.js'

/**
 * Runs a command with the SDK's example support agent answered offline: starts the scripted support
 * model (`support-model.ts`), runs the command with OPENAI_BASE_URL and OPENAI_API_KEY pointing at
 * it, stops the model when the command ends and exits with its code. What `npm run example`,
 * `npm run example:serve` and `npm run example:model -- <command>` run, so that the example itself
 * only ever reads a real model's settings from the environment.
 *   node --conditions=sieve-source --import tsx testkit/agents/with-support-model.ts <command> [args...]
 */
const [command, ...args] = process.argv.slice(2)
if (!command) {
  console.error('usage: with-support-model.ts <command> [args...]')
  process.exit(2)
}
const model = await startSupportModel()
console.error(`(the example's model: testkit's scripted support model at ${model.baseURL})`)
const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...model.env } })
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal))
const code = await new Promise<number>((resolve) => {
  child.once('error', (err) => {
    console.error(`with-support-model.ts: cannot run ${command}: ${err.message}`)
    resolve(127)
  })
  child.once('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 128 : 1)))
})
await model.close()
process.exit(code)
