import * as fs from 'node:fs'
import { jsonBatch, startSieveUp } from '@sieve/testkit/bench'
const up = await startSieveUp(fs.mkdtempSync('/tmp/fz-'), { KAFKA_BROKERS: '', JUDGE_MODEL: '' })
const base = JSON.parse(jsonBatch(6).toString())
let seed = Number(process.argv[3] ?? 777)
const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n }
const weird: unknown[] = [null, true, false, 0, -1, 1.5, 1e308, -1e308, 2 ** 64, '', 'x', '-0', '１２３', '\ud800', '9'.repeat(25), '-' + '9'.repeat(19), [], {}, [[[]]], { a: { b: {} } }, 'NaN', 'Infinity', '0x1f', ' 12', '12 ', '1e3', '18446744073709551616', '18446744073709551615', '-9223372036854775809', 'SPAN_KIND_NOPE', 99, -5, 4294967296, '\u0000', 'a'.repeat(70000)]
function paths(o: any, p: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(p)
  if (o && typeof o === 'object') for (const k of Object.keys(o)) paths(o[k], [...p, Array.isArray(o) ? Number(k) : k], out)
  return out
}
function mutate() {
  const o = structuredClone(base)
  const all = paths(o).filter((p) => p.length)
  for (let n = 0; n < 1 + rnd(3); n++) {
    const p = all[rnd(all.length)]!
    let parent: any = o
    for (const k of p.slice(0, -1)) parent = parent?.[k]
    if (!parent || typeof parent !== 'object') continue
    const last = p[p.length - 1]!
    const r = rnd(10)
    if (r === 0) delete parent[last]
    else if (r === 1) parent[`${String(last)}x`] = parent[last]
    else parent[last] = weird[rnd(weird.length)]
  }
  return JSON.stringify(o)
}
const statuses = new Map<string, number>()
const N = Number(process.argv[2] ?? 3000)
for (let i = 0; i < N; i++) {
  const body = mutate()
  const r = await fetch(up.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  const t = await r.text()
  statuses.set(String(r.status), (statuses.get(String(r.status)) ?? 0) + 1)
  if (r.status >= 500) { console.log('5xx', i, t.slice(0, 200)); fs.writeFileSync(`/tmp/fz2-${i}.json`, body) }
}
console.log([...statuses.entries()].sort())
await new Promise((r) => setTimeout(r, 4000))
const m = await up.metrics()
console.log(m.split('\n').filter((l) => /^sieve_(spans_rejected|spans_accepted|dead_letter|insert_rows|scored_traces)/.test(l)).join('\n'))
const ok = await fetch(up.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(base) })
console.log('valid after fuzz', ok.status, await ok.text())
await up.stop()
console.log('exit', up.child.exitCode)
