import type { Trace } from '@sieve/core'
import { traceView, type ChecksConfig } from '@sieve/scoring'
import type { GoldenExample } from '../golden/golden-example.js'
import type { StoredScore } from './stored-score.js'

/** An expected check whose stored score was produced under other parameters than the ones the example now carries. */
export interface ConfigDrift {
  traceId: string
  check: string
  /** config_hash of the stored score. */
  scoredWith: string
  /** config_hash of the check as configured now, whose parameters the example carries. */
  configured: string
}

/**
 * The example expects each check with today's parameters for the agent; the trace failed it under
 * the parameters it was scored with. When the two differ (the config changed, or the command runs
 * with another config file than the scorer), the example may not be the failure that was seen.
 */
export function configDrift(trace: Trace, scores: readonly StoredScore[], expected: GoldenExample['expected'], checks: ChecksConfig): ConfigDrift[] {
  const view = traceView(trace)
  const profile = checks.profileFor(view.agentName, view.serviceName)
  const drift: ConfigDrift[] = []
  for (const name of Object.keys(expected.checks)) {
    const stored = scores.find((s) => s.kind === 'deterministic' && s.name === name)
    const configured = profile.checks.find((c) => c.check.name === name)?.configHash
    if (stored?.configHash && configured && stored.configHash !== configured)
      drift.push({ traceId: trace.traceId, check: name, scoredWith: stored.configHash, configured })
  }
  return drift
}
