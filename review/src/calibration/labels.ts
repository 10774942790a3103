import { zodProblems } from '@sieve/core'
import { z } from 'zod'
import { JudgeError } from '@sieve/llm'

/**
 * One human-labelled trace, one JSONL line: the trace (by id, read from storage, or inline as a
 * transcript) and per-dimension levels from one labeller, optionally a second.
 */
const levels = z.record(z.string(), z.number().int())

export const labelSchema = z
  .strictObject({
    traceId: z
      .string()
      .regex(/^[0-9a-fA-F]{32}$/, 'traceId is 32 hex digits')
      .optional(),
    /** The project the trace is in, and the calibration is stored for; see labelsInProjects. */
    projectId: z.string().min(1).optional(),
    transcript: z
      .array(
        z.strictObject({ role: z.enum(['system', 'user', 'assistant', 'tool']), text: z.string(), name: z.string().optional(), spanId: z.string().optional() }),
      )
      .min(1)
      .optional(),
    rubric: z.string().min(1),
    labels: levels.refine((l) => Object.keys(l).length > 0, 'labels needs at least one dimension'),
    secondLabels: levels.optional(),
  })
  .refine((l) => (l.traceId === undefined) !== (l.transcript === undefined), 'give either traceId or transcript (exactly one)')

export type Label = z.infer<typeof labelSchema>

/** A label with the project its result is stored for. */
export type ProjectLabel = Label & { projectId: string }

/**
 * Each label with its project: its own `projectId`, else `project` (`judge calibrate --project`),
 * else `default`. With API keys (`keyedProjects`: the projects SIEVE_API_KEYS gives), a result
 * stored for a project no key reads would be seen by nobody, `default` included: refused, saying so.
 */
export function labelsInProjects(labels: readonly Label[], o: { project?: string; keyedProjects?: ReadonlySet<string> }): ProjectLabel[] {
  const placed = labels.map((l) => ({ ...l, projectId: l.projectId ?? o.project ?? 'default' }))
  const keyed = o.keyedProjects
  if (!keyed?.size) return placed
  const unread = [...new Set(placed.map((l) => l.projectId))].filter((p) => !keyed.has(p))
  if (!unread.length) return placed
  const unnamed = labels.some((l) => l.projectId === undefined) && !o.project
  throw new JudgeError(
    'LABELS_INVALID',
    `no key in SIEVE_API_KEYS reads project ${unread.join(', ')}, so the calibration stored there would be seen by nobody` +
      `${unnamed ? `: labels without a projectId go to project ${o.project ?? 'default'}` : ''}; give --project <id> or a projectId on each label (projects with a key: ${[...keyed].sort().join(', ')})`,
  )
}

export function parseLabels(text: string, source: string): Label[] {
  const out: Label[] = []
  const problems: string[] = []
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch {
      problems.push(`line ${i + 1}: not JSON`)
      return
    }
    const r = labelSchema.safeParse(raw)
    if (r.success) out.push(r.data)
    else problems.push(`line ${i + 1}: ${zodProblems(r.error, { root: '(line)' }).join('; ')}`)
  })
  if (problems.length)
    throw new JudgeError(
      'LABELS_INVALID',
      `${source}: ${problems.slice(0, 10).join('\n  ')}${problems.length > 10 ? `\n  ... and ${problems.length - 10} more` : ''}`,
    )
  if (out.length === 0) throw new JudgeError('LABELS_INVALID', `${source}: no labels`)
  return out
}
