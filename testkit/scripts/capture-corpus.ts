/*
 * Captures the conventions corpus: runs every corpus case (testkit/src/corpus.ts) against a real Sieve
 * and the fake model, and writes what Sieve stored, per case and scenario:
 *
 *   <out>/<case>/<scenario>.json       the stored traces (spans with every attribute, events, resource, scope)
 *   <out>/<case>/<scenario>.sieve.txt  what the current code reads from them: the conversation per trace
 *                                      and for the scenario's traces together, genAiFields per span, what
 *                                      the checks' trace view takes (LLM calls, tool calls, final answer),
 *                                      the checks' results
 *   <out>/<case>/run.txt               how long the agent ran, the model requests it made, what it printed
 *   <out>/timings.tsv                  seconds per case
 *
 *   node --conditions=sieve-source --import tsx testkit/scripts/capture-corpus.ts <out> [case ...]
 *
 * Cases that cannot run here (no .cache/python) are listed and skipped. Not a test: the corpus tests
 * assert on the same runs.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { conversationOf, genAiFields, type Trace } from '@sieve/core'
import { checkOutcome, resolveChecksConfig, scoreTrace, traceView } from '@sieve/scoring'
import { startFakeOpenAI } from '@sieve/testkit'
import { CORPUS_CASES, corpusSkip, runCorpusCase, type CorpusScenarioName } from '@sieve/testkit/corpus'
import { startSieve } from '@sieve/testkit/sieve'

const [out, ...only] = process.argv.slice(2)
if (!out) {
  console.error('usage: capture-corpus.ts <out-dir> [case ...]')
  process.exit(2)
}
const cases = CORPUS_CASES.filter((c) => only.length === 0 || only.includes(c.name))
if (cases.length === 0) {
  console.error(`no such case; the cases: ${CORPUS_CASES.map((c) => c.name).join(', ')}`)
  process.exit(2)
}

const checks = resolveChecksConfig({ defaults: { prohibited_tools: { tools: ['process_refund'] } } })
const cut = (text: string, n = 120) => {
  const flat = text.replace(/\s+/g, ' ')
  return flat.length > n ? `${flat.slice(0, n)}…` : flat
}

function turnsOf(label: string, traces: Trace | Trace[]): string[] {
  const conversation = conversationOf(traces)
  const lines = [
    `${label} (contentMissing ${conversation.contentMissing}, truncated ${conversation.truncated}${conversation.truncation.length ? `: ${conversation.truncation.join('; ')}` : ''})`,
  ]
  for (const t of conversation.turns) lines.push(`  ${t.role}${t.name ? ` ${t.name}` : ''}${t.callId ? ` [${t.callId}]` : ''}: ${cut(t.text)}  @${t.spanId}`)
  return lines
}

function readingOf(traces: Trace[]): string {
  const lines: string[] = [`${traces.length} trace(s)`]
  traces.forEach((trace, i) => {
    lines.push('', `== trace ${i + 1} ${trace.traceId} (${trace.spans.length} spans, complete ${trace.complete})`)
    lines.push(...turnsOf('conversationOf(trace).turns', trace))
    lines.push('genAiFields per span:')
    for (const span of trace.spans) {
      const f = genAiFields(span)
      const fields = [
        f.operation && `operation=${f.operation}`,
        f.agentName && `agent=${f.agentName}`,
        f.sessionId && `session=${f.sessionId}`,
        f.userId && `user=${f.userId}`,
        f.toolName && `tool=${f.toolName}`,
        f.requestModel && `model=${f.requestModel}`,
        (f.inputTokens || f.outputTokens) && `tokens=${f.inputTokens}/${f.outputTokens}`,
      ].filter(Boolean)
      lines.push(`  ${span.spanId} ${span.parentSpanId || '(root)'} ${span.name}: ${fields.join(' ') || '-'}`)
    }
    const view = traceView(trace)
    lines.push('traceView:')
    lines.push(`  agentName=${view.agentName || '-'} llmCalls=${view.llmCalls.length} (${view.llmCalls.map((c) => c.span.spanId).join(' ')})`)
    lines.push(
      `  toolCalls from ${view.toolCallsFrom}: ${view.toolCalls.map((c) => `${c.name}(${cut(c.rawArguments ?? JSON.stringify(c.arguments) ?? '', 80)}) callId=${c.callId || '-'} @${c.spanId}`).join('; ') || '-'}`,
    )
    lines.push(`  toolDefinitions: ${[...view.toolDefinitions.keys()].join(', ') || '-'}`)
    lines.push(`  systemPrompt: ${cut(view.systemPrompt, 60) || '-'}`)
    lines.push(`  finalAnswer: ${view.finalAnswer ? `${JSON.stringify(cut(view.finalAnswer.text, 100))} @${view.finalAnswer.spanId}` : '-'}`)
    const scored = scoreTrace(trace, checks)
    lines.push(`scoreTrace (agent ${scored.agentName || '-'}, profile ${scored.profile}):`)
    for (const r of scored.results)
      lines.push(
        `  ${{ passed: 'pass', failed: 'FAIL', error: 'ERROR', not_measured: 'N/M ' }[checkOutcome(r)]} ${r.name}: ${cut(String(r.detail?.message ?? ''), 200)}`,
      )
    for (const s of scored.skipped) lines.push(`  skip ${s.name}: ${cut(s.skipped, 200)}`)
  })
  if (traces.length > 1) lines.push('', ...turnsOf('== conversationOf(all traces).turns', traces))
  return `${lines.join('\n')}\n`
}

const sieve = await startSieve()
const model = await startFakeOpenAI({ script: [] })
const timings: string[] = ['case\tseconds\tscenarios']
let failed = 0
try {
  for (const c of cases) {
    const skip = corpusSkip(c)
    if (skip) {
      console.log(`${c.name}: skipped (${skip})`)
      continue
    }
    const dir = join(out, c.name)
    mkdirSync(dir, { recursive: true })
    try {
      const run = await runCorpusCase(c, { sieve, model })
      for (const [scenario, traces] of Object.entries(run.traces) as [CorpusScenarioName, Trace[]][]) {
        writeFileSync(join(dir, `${scenario}.json`), `${JSON.stringify(traces, null, 2)}\n`)
        writeFileSync(join(dir, `${scenario}.sieve.txt`), readingOf(traces))
      }
      const requests = run.requests.map((r) => {
        const body = r.body ?? {}
        const items: unknown[] = body.messages ?? (typeof body.input === 'string' ? [body.input] : (body.input ?? []))
        const user = [...items].reverse().find((m: any) => typeof m === 'string' || m?.role === 'user') as any
        const text = typeof user === 'string' ? user : typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '')
        return `  #${r.index} ${r.api}${r.stream ? ' stream' : ''} ${items.length} items, tools ${(body.tools ?? []).length}, last user ${JSON.stringify(cut(text, 60))}`
      })
      writeFileSync(
        join(dir, 'run.txt'),
        `seconds ${run.seconds.toFixed(1)}\n\nmodel requests (${run.requests.length}):\n${requests.join('\n')}\n\noutput:\n${run.stderr}`,
      )
      timings.push(`${c.name}\t${run.seconds.toFixed(1)}\t${Object.keys(run.traces).length}`)
      console.log(
        `${c.name}: ${run.seconds.toFixed(1)} s, ${Object.entries(run.traces)
          .map(([s, t]) => `${s} ${t!.length}`)
          .join(', ')} traces`,
      )
    } catch (err) {
      failed++
      writeFileSync(join(dir, 'run.txt'), `failed\n\n${(err as Error).message}`)
      console.log(`${c.name}: FAILED ${(err as Error).message.slice(0, 3000)}`)
    }
  }
} finally {
  writeFileSync(join(out, 'timings.tsv'), `${timings.join('\n')}\n`)
  await model.close()
  await sieve.stop()
}
process.exit(failed ? 1 : 0)
