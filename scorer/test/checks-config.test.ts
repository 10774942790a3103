import assert from 'node:assert/strict'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '@sieve/core'
import { DEFAULT_CHECKS, loadChecksConfig, resolveChecksConfig, scoreTrace } from '@sieve/scoring'
import { scenarios } from '@sieve/testkit/scenarios'

const here = dirname(fileURLToPath(import.meta.url))

test('with no config every default check runs with default parameters', () => {
  const config = resolveChecksConfig(undefined)
  assert.deepEqual(
    config.defaultProfile.checks.map((c) => c.check.name),
    DEFAULT_CHECKS.map((c) => c.name),
  )
  assert.equal(config.profileFor('anything', 'any-service'), config.defaultProfile)
  const s = scoreTrace(scenarios.refundHandledWell().trace(), config)
  assert.deepEqual(
    s.results.filter((r) => !r.passed).map((r) => r.name),
    [],
  )
})

test('an agent profile merges its parameters over the defaults, by agent name then service name', () => {
  const config = resolveChecksConfig({
    defaults: { latency_budget: { maxMs: 10_000, maxModelCallMs: 500 } },
    agents: { support: { latency_budget: { maxMs: 20_000 }, pii_echo: false }, 'billing-svc': { tool_loop: { maxRepeats: 5 } } },
  })
  const support = config.profileFor('support', 'billing-svc')
  assert.equal(support.name, 'support')
  assert.deepEqual(support.checks.find((c) => c.check.name === 'latency_budget')?.params, { maxMs: 20_000, maxModelCallMs: 500 })
  assert.equal(
    support.checks.some((c) => c.check.name === 'pii_echo'),
    false,
  )
  assert.equal(config.profileFor('', 'billing-svc').name, 'billing-svc')
  assert.equal(config.profileFor('other', 'other').name, 'default')
})

test("the config hash changes with a check's parameters and nothing else", () => {
  const hash = (section: unknown, name: string) => resolveChecksConfig(section).defaultProfile.checks.find((c) => c.check.name === name)!.configHash
  assert.equal(hash({}, 'tool_loop'), hash({ defaults: { latency_budget: { maxMs: 5 } } }, 'tool_loop'))
  assert.notEqual(hash({}, 'tool_loop'), hash({ defaults: { tool_loop: { maxRepeats: 4 } } }, 'tool_loop'))
  assert.equal(hash({}, 'tool_loop'), hash({ defaults: { tool_loop: { maxRepeats: 3 } } }, 'tool_loop'))
})

test('every problem in the section is reported with its path', () => {
  assert.throws(
    () =>
      resolveChecksConfig({
        defaults: { latency_budget: { maxMs: 'slow' }, no_such_check: true },
        agents: { support: { banned_content: { patterns: ['(unclosed'] }, structured_output: { schema: { type: 'nonsense' } } } },
      }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError)
      const text = err.problems.join('\n')
      assert.match(text, /checks\.defaults\.latency_budget\.maxMs: .*number/)
      assert.match(text, /checks\.defaults\.no_such_check: unknown check \(known: trace_complete, /)
      assert.match(text, /checks\.agents\.support\.banned_content\.patterns\.0: not a valid regular expression/)
      assert.match(text, /checks\.agents\.support\.structured_output\.schema: not a usable JSON Schema/)
      return true
    },
  )
  assert.throws(() => resolveChecksConfig({ agent: {} }), /checks: Unrecognized key: "agent"/)
})

test('a user check module runs like a built-in one and can be configured per agent', async () => {
  const config = await loadChecksConfig(
    { checks: { modules: ['./fixtures/refund-window-check.ts'], agents: { support: { refund_window: { days: 60 } } } } },
    here,
  )
  assert.equal(config.available.at(-1)?.name, 'refund_window')
  const trace = scenarios.refundOutsidePolicy().trace()
  const byDefault = scoreTrace(trace, resolveChecksConfig({ modules: [] }, [config.available.at(-1)!]))
  assert.equal(byDefault.results.find((r) => r.name === 'refund_window')?.passed, false)
  const support = scoreTrace(trace, config).results.find((r) => r.name === 'refund_window')
  assert.equal(support?.passed, true)
  assert.equal(support?.detail.message, 'refund for an order delivered 45 days ago (window 60)')
  await assert.rejects(loadChecksConfig({ checks: { modules: ['./fixtures/missing.ts'] } }, here), /checks\.modules: cannot load .*missing\.ts/)
  await assert.rejects(loadChecksConfig({ checks: { modules: [join(here, 'support/spans.ts')] } }, here), /must default-export a check made with defineCheck/)
})

test('a check that throws is stored as an error, not as a low score', () => {
  const config = resolveChecksConfig({}, [
    {
      name: 'broken',
      version: '1',
      description: '',
      params: DEFAULT_CHECKS[0]!.params,
      run: () => {
        throw new Error('boom')
      },
    },
  ])
  const r = scoreTrace(scenarios.refundHandledWell().trace(), config).results.find((x) => x.name === 'broken')
  assert.equal(r?.error, 'check broken failed to run: boom')
})
