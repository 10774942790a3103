/*
 * The names of the edge-case templates and how they combine, apart from what they do (templates.ts)
 * so that the scenario schema can check a scenario's `templates` without importing the transforms,
 * which are typed on the scenario.
 */

export const TEMPLATE_NAMES = [
  'impatient',
  'out-of-policy',
  'prompt-injection',
  'pii-overshare',
  'ambiguous',
  'off-topic',
  'language-switch',
  'long-conversation',
] as const

export type TemplateName = (typeof TEMPLATE_NAMES)[number]

/** The variant of a scenario as written. */
export const BASE = 'base'

/** How templates combine into one variant: `impatient+pii-overshare`. */
export const COMBINE = '+'

/** A variant a scenario may list: templates joined by `+`, each known and each once. */
export function isVariantName(name: string): boolean {
  const parts = name.split(COMBINE)
  return parts.every((part) => (TEMPLATE_NAMES as readonly string[]).includes(part)) && new Set(parts).size === parts.length
}
