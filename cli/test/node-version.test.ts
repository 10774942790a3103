import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * The Node version the README states is the one package.json's engines declare, the one .ci/run
 * holds CI to, and the one running these tests satisfies.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const read = (file: string) => readFileSync(`${ROOT}${file}`, 'utf8')

test("the README's Node version is the engines minimum, which CI checks and this Node meets", () => {
  const engines = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node
  assert.match(engines, /^>=\d+$/)
  const min = Number(engines.slice(2))
  assert.match(read('README.md'), new RegExp(`Needs Node\\.js ${min} or later`))
  assert.match(read('.ci/run'), /require\("\.\/package\.json"\)\.engines\.node/, '.ci/run reads the same engines field')
  assert.ok(Number(process.versions.node.split('.')[0]) >= min, `running on Node ${process.version}`)
})
