import assert from 'node:assert/strict'
import { join, relative, resolve, sep } from 'node:path'
import { test } from 'node:test'
import { projectDatasetPath, projectSegment } from '../src/index.js'

const DATA = '/srv/sieve/data'
const datasets = join(DATA, 'datasets')

test("a project's dataset is <dataDir>/datasets/<project>/golden.jsonl", () => {
  assert.equal(projectDatasetPath(DATA, 'default'), join(datasets, 'default', 'golden.jsonl'))
  assert.equal(projectDatasetPath('./data', 'shop_EU-2'), join('data', 'datasets', 'shop_EU-2', 'golden.jsonl'))
})

test('no project id leaves its own folder under datasets/, and no two share one', () => {
  const hostile = [
    '..',
    '.',
    '../x',
    '../../etc/passwd',
    '/',
    '/etc',
    'a/b',
    'a\\b',
    '..\\..\\x',
    '.hidden',
    'x/../..',
    '%2e%2e',
    '%',
    'ünïcødé',
    '项目',
    'emoji 🙂',
    'nul\u0000byte',
    'line\nbreak',
    ' ',
    'con',
    'a'.repeat(5000),
    `${'a'.repeat(200)}b`,
    `${'a'.repeat(200)}c`,
  ]
  const folders = new Map<string, string>()
  for (const project of hostile) {
    const path = projectDatasetPath(DATA, project)
    const inside = relative(datasets, resolve(path)).split(sep)
    assert.equal(inside.length, 2, `${JSON.stringify(project)} → ${path}`)
    assert.equal(inside[1], 'golden.jsonl')
    const folder = inside[0]!
    assert.ok(folder !== '' && folder !== '.' && folder !== '..', `${JSON.stringify(project)} → ${folder}`)
    assert.match(folder, /^[A-Za-z0-9_%~-]{1,120}$/, `${JSON.stringify(project)} → ${folder}`)
    assert.equal(folders.get(folder), undefined, `${JSON.stringify(project)} and ${JSON.stringify(folders.get(folder))} share ${folder}`)
    folders.set(folder, project)
  }
  assert.equal(projectSegment('..'), '%2E%2E')
  assert.equal(projectSegment('../x'), '%2E%2E%2Fx')
  assert.equal(projectSegment('/'), '%2F')
  assert.equal(projectSegment('ü'), '%C3%BC')
  assert.notEqual(projectSegment('%2E%2E'), projectSegment('..'), 'an id that looks encoded is encoded again')
})

test('an empty project id is refused, never written to datasets/ itself', () => {
  assert.throws(() => projectDatasetPath(DATA, ''), /project id is empty/)
})
