import type { ChecksConfig, CheckProfile } from './config/checks-config.js'
import type { Scorecard } from './scorecard/scorecard-config.js'
import type { TraceScore } from './score-trace.js'
import { explainScorecard } from './scorecard/scorecard.js'

/** `sieve score` output: one line per check, failures first with what was seen. */
export function formatTraceScore(score: TraceScore): string {
  const { trace } = score
  const failed = score.results.filter((r) => !r.passed && !r.error)
  const unscored = score.results.filter((r) => r.error)
  const lines = [
    `trace ${trace.traceId} (project ${trace.projectId}, ${trace.spans.length} spans, ${trace.complete ? 'complete' : 'INCOMPLETE'})`,
    `agent ${score.agentName || '-'}, service ${score.serviceName || '-'}, profile ${score.profile}: ` +
      `${score.results.length - failed.length - unscored.length} passed, ${failed.length} failed, ${unscored.length} not measured or errored, ${score.skipped.length} not applicable`,
    '',
  ]
  const width = Math.max(4, ...score.results.map((r) => r.name.length), ...score.skipped.map((s) => s.name.length))
  for (const r of [...failed, ...unscored, ...score.results.filter((x) => x.passed)]) {
    const label = r.unmeasured ? 'N/M  ' : r.error ? 'ERROR' : r.passed ? 'pass ' : 'FAIL '
    lines.push(`${label} ${r.name.padEnd(width)} ${r.value.toFixed(2)}  ${r.detail.message}`)
  }
  for (const s of score.skipped) lines.push(`  -   ${s.name.padEnd(width)}       ${s.skipped}`)
  const card = score.scorecard
  if (card) lines.push('', `${card.passed ? 'pass ' : 'FAIL '} scorecard ${card.card}: ${explainScorecard(card)}`)
  return lines.join('\n')
}

function formatProfile(profile: CheckProfile, title: string): string[] {
  const width = Math.max(...profile.checks.map((c) => c.check.name.length), 4)
  return [title, ...profile.checks.map((c) => `  ${c.check.name.padEnd(width)}  v${c.check.version}  ${c.configHash}  ${JSON.stringify(c.params)}`)]
}

function formatScorecard(card: Scorecard | undefined, title: string): string[] {
  if (!card) return []
  const width = Math.max(...card.items.map((i) => i.name.length), 4)
  return [
    '',
    `${title}: pass at ${card.passAt}, config hash ${card.configHash}`,
    ...card.items.map(
      (i) => `  ${i.name.padEnd(width)}  ${i.kind.padEnd(13)}  weight ${i.weight}${i.gate ? '  GATE' : ''}${i.min !== undefined ? `  min ${i.min}` : ''}`,
    ),
  ]
}

/** `sieve checks` output: the default profile, then every agent's, then the scorecards. */
export function formatChecksConfig(config: ChecksConfig, agent?: string): string {
  if (agent) {
    const profile = config.profileFor(agent, agent)
    const card = config.scorecards.cardFor(agent, agent)
    return [
      ...formatProfile(profile, `checks for '${agent}' (profile ${profile.name}): name, version, config hash, parameters`),
      ...formatScorecard(card, `scorecard for '${agent}' (${card?.name})`),
    ].join('\n')
  }
  const lines = formatProfile(config.defaultProfile, 'default checks (every agent without its own profile): name, version, config hash, parameters')
  for (const [name, profile] of config.agents) lines.push('', ...formatProfile(profile, `agent '${name}'`))
  lines.push(...formatScorecard(config.scorecards.default, 'default scorecard'))
  for (const [name, card] of config.scorecards.agents) lines.push(...formatScorecard(card, `scorecard of agent '${name}'`))
  lines.push('', 'available checks:')
  const width = Math.max(...config.available.map((c) => c.name.length))
  for (const c of config.available) lines.push(`  ${c.name.padEnd(width)}  ${c.description}`)
  return lines.join('\n')
}
