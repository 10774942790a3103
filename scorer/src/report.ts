import type { ChecksConfig, CheckProfile } from './config/checks-config.js'
import type { TraceScore } from './score-trace.js'

/** `sieve score` output: one line per check, failures first with what was seen. */
export function formatTraceScore(score: TraceScore): string {
  const { trace } = score
  const failed = score.results.filter((r) => !r.passed)
  const lines = [
    `trace ${trace.traceId} (project ${trace.projectId}, ${trace.spans.length} spans, ${trace.complete ? 'complete' : 'INCOMPLETE'})`,
    `agent ${score.agentName || '-'}, service ${score.serviceName || '-'}, profile ${score.profile}: ` +
      `${score.results.length - failed.length} passed, ${failed.length} failed, ${score.skipped.length} not applicable`,
    '',
  ]
  const width = Math.max(4, ...score.results.map((r) => r.name.length), ...score.skipped.map((s) => s.name.length))
  for (const r of [...failed, ...score.results.filter((x) => x.passed)]) {
    const label = r.error ? 'ERROR' : r.passed ? 'pass ' : 'FAIL '
    lines.push(`${label} ${r.name.padEnd(width)} ${r.value.toFixed(2)}  ${r.detail.message}`)
  }
  for (const s of score.skipped) lines.push(`  -   ${s.name.padEnd(width)}       ${s.skipped}`)
  return lines.join('\n')
}

function formatProfile(profile: CheckProfile, title: string): string[] {
  const width = Math.max(...profile.checks.map((c) => c.check.name.length), 4)
  return [
    title,
    ...profile.checks.map((c) => `  ${c.check.name.padEnd(width)}  v${c.check.version}  ${c.configHash}  ${JSON.stringify(c.params)}`),
  ]
}

/** `sieve checks` output: the default profile, then every agent's. */
export function formatChecksConfig(config: ChecksConfig, agent?: string): string {
  if (agent) {
    const profile = config.profileFor(agent, agent)
    return formatProfile(profile, `checks for '${agent}' (profile ${profile.name}): name, version, config hash, parameters`).join('\n')
  }
  const lines = formatProfile(config.defaultProfile, 'default checks (every agent without its own profile): name, version, config hash, parameters')
  for (const [name, profile] of config.agents) lines.push('', ...formatProfile(profile, `agent '${name}'`))
  lines.push('', 'available checks:')
  const width = Math.max(...config.available.map((c) => c.name.length))
  for (const c of config.available) lines.push(`  ${c.name.padEnd(width)}  ${c.description}`)
  return lines.join('\n')
}
