import type { Storage } from '@sieve/core'
import { judgeScoreNames } from '@sieve/scoring'
import type { Selection } from './select-traces.js'

/** A selection that names a score nothing can carry: it would select nothing, silently. */
export class SelectionError extends Error {
  readonly code = 'SELECTION_INVALID'
}

const FLAGS = { failed: '--failed', score: '--score', failedGate: '--failed-gate' } as const

/**
 * Refuses a `--failed`, `--score` or `--failed-gate` name that is neither a check this Sieve has,
 * `scorecard`, nor a judge score (`<rubric>`, `<rubric>.<dimension>`) stored for the project,
 * naming the ones that are.
 */
export async function checkSelectionNames(
  client: Storage,
  s: Pick<Selection, 'projectId' | 'failed' | 'score' | 'failedGate'>,
  checks: readonly { name: string }[],
): Promise<void> {
  const asked = (Object.keys(FLAGS) as (keyof typeof FLAGS)[]).flatMap((key) => {
    const name = s[key]
    return name === undefined || (key === 'failedGate' && name === 'any') ? [] : [{ flag: FLAGS[key], name }]
  })
  if (!asked.length) return
  const checkNames = checks.map((c) => c.name)
  const judged = await judgeScoreNames(client, s.projectId)
  const known = new Set([...checkNames, 'scorecard', ...judged])
  const unknown = asked.find((a) => !known.has(a.name))
  if (!unknown) return
  throw new SelectionError(
    `${unknown.flag} ${unknown.name}: no check or judge score has that name (checks: ${[...checkNames].sort().join(', ')}; ` +
      `judge scores stored in project ${s.projectId}: ${judged.length ? judged.join(', ') : 'none'}; or scorecard)`,
  )
}
