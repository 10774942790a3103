import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startSupportModel } from '../../../testkit/agents/support-model.js'

const MAIN = join(dirname(fileURLToPath(import.meta.url)), '../../../sdk/examples/support-agent/main.ts')

/**
 * One run of the SDK's example support agent (testkit's scripted model) sending its trace to
 * `endpoint`; `--broken` uses the regressed prompt that refunds outside the policy window.
 */
export async function runSupportAgent(endpoint: string, broken: boolean): Promise<string> {
  const model = await startSupportModel()
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...model.env, SIEVE_ENDPOINT: endpoint }
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN, ...(broken ? ['--broken'] : [])], {
    env,
  }).finally(() => model.close())
  const traceId = /trace: ([0-9a-f]{32})/.exec(stdout)?.[1]
  if (!traceId) throw new Error(`the example agent printed no trace id:\n${stdout}`)
  return traceId
}
