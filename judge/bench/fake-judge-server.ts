/**
 * The benchmark's judge endpoint, in its own process so its CPU is not counted as the scorer's:
 * the local OpenAI-compatible server answering every call with a valid verdict after `--latency` ms.
 * Prints its base URL on the first line of stdout.
 */
import { firstCitation, say, startFakeOpenAI, type ModelRequest } from '@sieve/testkit'

const i = process.argv.indexOf('--latency')
const latencyMs = i > 0 ? Number(process.argv[i + 1]) : 200

function answer(r: ModelRequest) {
  return say(JSON.stringify({ evidence: [firstCitation(r)], reasoning: 'bench', score: 3 }), { delayMs: latencyMs })
}

const server = await startFakeOpenAI({ script: answer })
console.log(server.baseURL)
process.stdin.resume()
process.stdin.on('end', () => void server.close().then(() => process.exit(0)))
