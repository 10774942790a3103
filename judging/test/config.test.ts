import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type JudgeError, loadJudgeConfig } from '../src/index.js'
import { isPinnedModel } from '@sieve/llm'
import { loadConfig } from '@sieve/core'

const judge = (model: string, allowModelAlias = false) => ({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', model, allowModelAlias })

/** Snapshots as vendors name them: each carries a date or a revision that never moves. */
const PINNED = [
  // OpenAI: -YYYY-MM-DD, and the older -MMDD, alone or before -preview
  'gpt-4o-2024-08-06',
  'gpt-4o-mini-2024-07-18',
  'gpt-4.1-2025-04-14',
  'o1-2024-12-17',
  'o3-mini-2025-01-31',
  'gpt-4-turbo-2024-04-09',
  'gpt-4o-realtime-preview-2024-12-17',
  'gpt-4-0613',
  'gpt-4-0314',
  'gpt-4-32k-0613',
  'gpt-3.5-turbo-0125',
  'gpt-3.5-turbo-1106',
  'gpt-4-1106-preview',
  'gpt-4-0125-preview',
  'gpt-4-1106-vision-preview',
  // Anthropic: -YYYYMMDD; on Vertex AI @YYYYMMDD; on Bedrock the date and a -vN:M revision
  'claude-3-5-sonnet-20241022',
  'claude-sonnet-4-20250514',
  'claude-3-7-sonnet-20250219',
  'claude-3-opus-20240229',
  'claude-3-haiku-20240307',
  'claude-opus-4-1-20250805',
  'claude-3-5-sonnet-v2@20241022',
  'claude-sonnet-4@20250514',
  'anthropic.claude-3-5-sonnet-20241022-v2:0',
  // Google: numbered revisions, dated previews and experiments
  'gemini-1.5-pro-002',
  'gemini-1.5-flash-001',
  'gemini-2.0-flash-001',
  'gemini-2.5-pro-preview-05-06',
  'gemini-2.0-flash-thinking-exp-01-21',
  'gemini-exp-1206',
  // Mistral: -YYMM
  'mistral-large-2407',
  'mistral-large-2411',
  'mistral-small-2409',
  'codestral-2405',
  'ministral-8b-2410',
  'pixtral-large-2411',
  'open-mistral-nemo-2407',
  // Meta Llama on Bedrock: versioned model ids
  'meta.llama3-1-70b-instruct-v1:0',
  'meta.llama3-3-70b-instruct-v1:0',
  // Cohere: -MM-YYYY
  'command-r-plus-08-2024',
]

/** Names that move: bare families, "latest", undated previews, self-hosted names with no date. */
const ALIASES = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-4',
  'gpt-4-turbo',
  'gpt-4-turbo-preview',
  'gpt-4-32k',
  'gpt-3.5-turbo',
  'gpt-4.1',
  'o1',
  'o3-mini',
  'chatgpt-4o-latest',
  'gpt-4o-realtime-preview',
  'claude-3-5-sonnet',
  'claude-3-5-sonnet-latest',
  'claude-3-7-sonnet-latest',
  'claude-sonnet-4-0',
  'claude-opus-4-0',
  'gemini-1.5-pro',
  'gemini-1.5-pro-latest',
  'gemini-2.0-flash',
  'gemini-2.5-pro',
  'gemini-1.5-flash-8b',
  'mistral-large',
  'mistral-large-latest',
  'mistral-small-latest',
  'codestral-latest',
  'open-mixtral-8x22b',
  'mixtral-8x7b-32768',
  'llama3.1:8b',
  'llama3:latest',
  'llama-3.3-70b-versatile',
  'meta-llama/Llama-3.1-70B-Instruct',
  'meta-llama/Meta-Llama-3.1-405B-Instruct-Turbo',
  'Llama-4-Maverick-17B-128E-Instruct-FP8',
  'gpt-4-9999',
]

test('dated and numbered model names are pinned, as each vendor writes them', () => {
  assert.ok(PINNED.length >= 25)
  const refused = PINNED.filter((m) => !isPinnedModel(m))
  assert.deepEqual(refused, [], 'pinned names taken for aliases')
})

test('bare family names, "latest" and undated names are aliases', () => {
  assert.ok(ALIASES.length >= 25)
  const taken = ALIASES.filter((m) => isPinnedModel(m))
  assert.deepEqual(taken, [], 'aliases taken for pinned names')
})

test('judge.pinned: true pins a self-hosted model with an undated name, but never "latest"', () => {
  assert.equal(
    loadJudgeConfig({ judge: judge('meta-llama/Llama-3.1-70B-Instruct'), sections: { judge: { pinned: true } } })!.model,
    'meta-llama/Llama-3.1-70B-Instruct',
  )
  assert.throws(
    () => loadJudgeConfig({ judge: judge('meta-llama/Llama-3.1-70B-Instruct'), sections: {} }),
    (e: JudgeError) => e.code === 'CONFIG_INVALID' && /'meta-llama\/Llama-3\.1-70B-Instruct' is an alias.*self-hosted.*judge\.pinned: true/.test(e.message),
  )
  assert.throws(
    () => loadJudgeConfig({ judge: judge('llama3:latest'), sections: { judge: { pinned: true } } }),
    /'llama3:latest' is an alias.*'latest' moves under you/,
  )
  assert.throws(() => loadJudgeConfig({ judge: judge('m', false), sections: { judge: { pinned: 'yes' } } }), /judge section: pinned/)
})

test('an alias judge model is refused with a message saying how to pin or force it', () => {
  assert.throws(
    () => loadJudgeConfig({ judge: judge('gpt-4o'), sections: {} }),
    (e: JudgeError) => e.code === 'CONFIG_INVALID' && /'gpt-4o' is an alias.*JUDGE_ALLOW_MODEL_ALIAS=true/.test(e.message),
  )
  assert.equal(loadJudgeConfig({ judge: judge('gpt-4o', true), sections: {} })!.model, 'gpt-4o')
})

test('panel judge models are held to the same rule', () => {
  assert.throws(
    () => loadJudgeConfig({ judge: judge('gpt-4o-2024-08-06'), sections: { judge: { panel: { judges: [{}, { model: 'gpt-4o-mini' }] } } } }),
    /'gpt-4o-mini' is an alias/,
  )
})

test('a spend budget needs a price for every judge model', () => {
  assert.throws(
    () => loadJudgeConfig({ judge: judge('gpt-4o-2024-08-06'), sections: { judge: { budgets: { spendPerDay: 5 } } } }),
    /needs a price for model 'gpt-4o-2024-08-06'/,
  )
})

test('without JUDGE_MODEL the judge is off; with it, JUDGE_BASE_URL is required', () => {
  assert.equal(loadJudgeConfig({ judge: { allowModelAlias: false }, sections: {} }), undefined)
  assert.throws(() => loadJudgeConfig({ judge: { model: 'gpt-4o-2024-08-06', allowModelAlias: false }, sections: {} }), /JUDGE_BASE_URL is required/)
})

test('JUDGE_* variables reach the judge config through the core config', () => {
  const config = loadConfig({ JUDGE_BASE_URL: 'http://127.0.0.1:9/v1', JUDGE_MODEL: 'gpt-4o', JUDGE_ALLOW_MODEL_ALIAS: 'true' })
  assert.deepEqual(config.judge, { baseUrl: 'http://127.0.0.1:9/v1', apiKey: undefined, model: 'gpt-4o', allowModelAlias: true })
  assert.equal(loadJudgeConfig(config)!.sampling.rate, 0.05)
})

test('an unknown slice kind in the judge section is refused, naming the path', () => {
  assert.throws(
    () => loadJudgeConfig({ judge: judge('gpt-4o-2024-08-06'), sections: { judge: { sampling: { slices: [{ name: 'x', match: { kind: 'vibes' } }] } } } }),
    /judge section: sampling\.slices\.0\.match\.kind/,
  )
})
