import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { AGENT_ENV, agentAnswerSchema, agentHttpRequestSchema } from '@sieve/protocol'

/*
 * The agents in other languages (testkit/agents/python, /go, /java) cannot import the agent
 * protocol (`@sieve/protocol`, agent-protocol.ts), so their sources are read as text and what
 * they name of it is checked against it: a field or variable renamed there fails here.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const AGENTS = join(ROOT, 'testkit/agents')
/** Sources that cannot import the protocol: every agent not in TypeScript. */
const FOREIGN = /\.(py|go|java)$/

/** The agents that speak the protocol's HTTP form, and the names their code gives the request's body and the answer's. */
const HTTP_AGENTS: Record<string, { body: string; answer: string }> = { 'python/http_agent.py': { body: 'body', answer: 'payload' } }
/** Variables an agent may read under the protocol's prefixes that are not the protocol's: the tests' own. */
const NOT_PROTOCOL = new Set(['SIEVE_EVAL_RECORD'])

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(path)
    else yield path
  }
}

const foreign = [...sources(AGENTS)].filter((p) => FOREIGN.test(p)).map((p) => ({ file: relative(AGENTS, p), text: readFileSync(p, 'utf8') }))

/** What the walk below reads of a zod schema: its definition. */
interface Schema {
  def: { type: string; innerType?: Schema; shape?: Record<string, Schema>; element?: Schema }
}

/** The schema a field path leads to in `schema` (`[]` for an array's element), or undefined when there is no such field. */
function fieldAt(schema: Schema, path: string[]): Schema | undefined {
  let at: Schema | undefined = schema
  for (const key of path) {
    while (at && ['optional', 'default', 'nullable'].includes(at.def.type)) at = at.def.innerType
    if (at?.def.type === 'object') at = at.def.shape?.[key]
    else if (at?.def.type === 'array' && key === '[]') at = at.def.element
    else return undefined
  }
  return at
}

/**
 * The field paths a Python agent reads from the request's body: subscript chains on the body
 * (`body["sieve"]["sessionId"]`) and on a loop variable over one of its lists
 * (`for m in body["messages"]` then `m["role"]`: messages, [], role).
 */
export function pythonReads(text: string, body: string): string[][] {
  const chain = (root: string) => new RegExp(`\\b${root}((?:\\["\\w+"\\])+)`, 'g')
  const keys = (subscripts: string) => [...subscripts.matchAll(/\["(\w+)"\]/g)].map((m) => m[1]!)
  const roots = new Map<string, string[]>([[body, []]])
  for (const m of text.matchAll(new RegExp(`\\bfor (\\w+) in ${body}((?:\\["\\w+"\\])+)`, 'g'))) roots.set(m[1]!, [...keys(m[2]!), '[]'])
  return [...roots].flatMap(([root, prefix]) => [...text.matchAll(chain(root))].map((m) => [...prefix, ...keys(m[1]!)]))
}

test('the agents in other languages read only the protocol environment variables under its prefixes', () => {
  const names = new Set<string>(Object.values(AGENT_ENV))
  const unknown = foreign.flatMap(({ file, text }) =>
    [...text.matchAll(/\bSIEVE_(?:EVAL|SIMULATION)\w*/g)]
      .map((m) => m[0])
      .filter((n) => !names.has(n) && !NOT_PROTOCOL.has(n))
      .map((n) => `${file}: ${n}`),
  )
  assert.deepEqual(unknown, [], `not in AGENT_ENV (${[...names].join(', ')})`)
})

test('every field an HTTP agent in another language reads from the request, or answers with, is the protocol schema’s', () => {
  for (const [file, { body, answer }] of Object.entries(HTTP_AGENTS)) {
    const text = foreign.find((f) => f.file === file)?.text
    assert.ok(text, `${file} is gone: update HTTP_AGENTS`)
    const reads = pythonReads(text, body)
    // Nothing found would check nothing: the agent reads its context and the conversation's messages.
    assert.ok(
      reads.some((p) => p[0] === 'sieve') && reads.some((p) => p[0] === 'messages' && p.length > 2),
      `${file}: no reads of ${body}["sieve"] and its messages found`,
    )
    const wrong = reads.filter((path) => !fieldAt(agentHttpRequestSchema, path)).map((path) => path.join('.'))
    assert.deepEqual(wrong, [], `${file} reads fields the request does not have`)
    const answers = [...text.matchAll(new RegExp(`\\b${answer} = json\\.dumps\\(\\{"(\\w+)":`, 'g'))].map((m) => m[1]!)
    assert.ok(answers.length, `${file}: no JSON answer found`)
    assert.deepEqual(
      answers.filter((key) => !fieldAt(agentAnswerSchema, [key])),
      [],
      `${file} answers fields the protocol does not have`,
    )
  }
})

test('an agent in another language that names the protocol’s request is checked as an HTTP agent', () => {
  const speaking = foreign.filter(({ text }) => /\["sieve"\]|"sieve"\s*:|traceparent/.test(text)).map((f) => f.file)
  assert.deepEqual(
    speaking.filter((f) => !(f in HTTP_AGENTS)),
    [],
    'add them to HTTP_AGENTS',
  )
})

test('the check finds a renamed field', () => {
  const text = 'for m in body["messages"]:\n  m["text"]\nbody["sieve"]["session_id"]'
  const wrong = pythonReads(text, 'body')
    .filter((path) => !fieldAt(agentHttpRequestSchema, path))
    .map((p) => p.join('.'))
  assert.deepEqual(wrong, ['sieve.session_id', 'messages.[].text'])
})
