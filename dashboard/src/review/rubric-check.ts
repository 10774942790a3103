import { levelRange, type Rubric } from '@sieve/judging'
import { ApiError } from '../handlers.js'

/** A rubric this Sieve loaded, or a 400 naming the ones it has. */
export function rubricNamed(rubrics: ReadonlyMap<string, Rubric>, id: string): Rubric {
  const rubric = rubrics.get(id)
  if (!rubric) throw new ApiError(400, 'INVALID_PARAMETER', `rubric: no rubric '${id}' in this Sieve (rubrics: ${[...rubrics.keys()].join(', ')})`)
  return rubric
}

/**
 * Each label a level of its dimension's scale, or a 400 naming the dimension and the scale
 * (`labels.groundedness: 7 is not a level of generic.groundedness, whose scale is 1 to 5`).
 */
export function checkLevels(rubric: Rubric, labels: Record<string, number>): void {
  const problems: string[] = []
  for (const [id, level] of Object.entries(labels)) {
    const dimension = rubric.dimensions.find((d) => d.id === id)
    if (!dimension) {
      problems.push(`labels.${id}: rubric '${rubric.id}' has no dimension '${id}' (has: ${rubric.dimensions.map((d) => d.id).join(', ')})`)
      continue
    }
    const { min, max } = levelRange(dimension)
    if (!Number.isInteger(level) || level < min || level > max)
      problems.push(`labels.${id}: ${level} is not a level of ${rubric.id}.${id}, whose scale is ${min} to ${max}`)
  }
  if (problems.length) throw new ApiError(400, 'INVALID_PARAMETER', problems.join('; '))
}

/** A rubric as the review page shows it: each dimension with its anchored levels. */
export function rubricView(rubric: Rubric) {
  return {
    id: rubric.id,
    version: rubric.version,
    title: rubric.title,
    description: rubric.description,
    dimensions: rubric.dimensions.map((d) => ({
      id: d.id,
      name: d.name,
      definition: d.definition,
      passAt: d.passAt,
      levels: d.levels.map((l) => ({ score: l.score, anchor: l.anchor })),
    })),
  }
}
