import type { z } from 'zod'

export interface ZodProblemsOptions {
  /** Where the validated value sits (`checks` → `checks.agents.x.y: ...`). */
  at?: string
  /**
   * Said for an issue about the value itself when there is no `at` (`body: expected object`); the
   * empty string says the message alone.
   */
  root?: string
  /**
   * What a key the schema does not know is called (`parameter`): such an issue then reads
   * `unknown parameter 'colour'`, the way an HTTP API names what it was sent.
   */
  unknown?: string
}

/** A zod error as the lines Sieve reports everywhere: `path.to.field: message`, one per issue. */
export function zodProblems(error: z.ZodError, options: ZodProblemsOptions = {}): string[] {
  return error.issues.map((issue) => {
    if (options.unknown && issue.code === 'unrecognized_keys') return `unknown ${options.unknown} ${issue.keys.map((k) => `'${k}'`).join(', ')}`
    const path = [...(options.at ? [options.at] : []), ...issue.path.map(String)].join('.')
    if (path) return `${path}: ${issue.message}`
    return options.root === '' ? issue.message : `${options.root ?? '(root)'}: ${issue.message}`
  })
}
