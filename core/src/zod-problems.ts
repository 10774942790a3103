import type { z } from 'zod'

/**
 * A zod error as the lines Sieve reports everywhere: `path.to.field: message`, one per issue. `at`
 * names where the validated value sits (`checks` → `checks.agents.x.y: ...`); `root` is said for
 * an issue about the value itself when there is no `at` (`body: expected object`).
 */
export function zodProblems(error: z.ZodError, options: { at?: string; root?: string } = {}): string[] {
  return error.issues.map((issue) => {
    const path = [...(options.at ? [options.at] : []), ...issue.path.map(String)].join('.')
    return `${path || (options.root ?? '(root)')}: ${issue.message}`
  })
}
