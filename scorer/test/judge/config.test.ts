import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isPinnedModel, JudgeError, loadJudgeConfig } from '@sieve/scorer'
import { loadConfig } from '@sieve/core'

test('dated and numbered model names are pinned; bare names and "latest" are aliases', () => {
  for (const m of ['gpt-4o-2024-08-06', 'claude-3-5-sonnet-20241022', 'gemini-1.5-pro-002', 'anthropic.claude-3-5-sonnet-20241022-v2:0']) assert.ok(isPinnedModel(m), m)
  for (const m of ['gpt-4o', 'gpt-4o-mini', 'claude-3-5-sonnet-latest', 'llama3.1:8b']) assert.ok(!isPinnedModel(m), m)
})

const judge = (model: string, allowModelAlias = false) => ({ baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k', model, allowModelAlias })

test('an alias judge model is refused with a message saying how to pin or force it', () => {
  assert.throws(
    () => loadJudgeConfig({ judge: judge('gpt-4o'), sections: {} }),
    (e: JudgeError) => e.code === 'CONFIG_INVALID' && /'gpt-4o' is an alias.*JUDGE_ALLOW_MODEL_ALIAS=true/.test(e.message),
  )
  assert.equal(loadJudgeConfig({ judge: judge('gpt-4o', true), sections: {} })!.model, 'gpt-4o')
})

test('panel judge models are held to the same rule', () => {
  assert.throws(() => loadJudgeConfig({ judge: judge('gpt-4o-2024-08-06'), sections: { judge: { panel: { judges: [{}, { model: 'gpt-4o-mini' }] } } } }), /'gpt-4o-mini' is an alias/)
})

test('a spend budget needs a price for every judge model', () => {
  assert.throws(() => loadJudgeConfig({ judge: judge('gpt-4o-2024-08-06'), sections: { judge: { budgets: { spendPerDay: 5 } } } }), /needs a price for model 'gpt-4o-2024-08-06'/)
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
