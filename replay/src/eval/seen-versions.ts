import type { Trace } from '@sieve/core'
import { traceView } from '@sieve/scoring'

const count = (counts: Map<string, number>, value: string) => {
  if (value) counts.set(value, (counts.get(value) ?? 0) + 1)
}
const mostSeen = (counts: Map<string, number>): string => [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? ''

/** What the runs' traces say they ran with, counted: a report's stamps keep the commonest of each. */
export class SeenVersions {
  private readonly agents = new Map<string, number>()
  private readonly prompts = new Map<string, number>()
  private readonly models = new Map<string, number>()
  readonly rubrics = new Set<string>()

  addTrace(trace: Trace | undefined, model: string): void {
    count(this.models, model)
    if (!trace) return
    const view = traceView(trace)
    count(this.agents, view.agentVersion)
    count(this.prompts, view.promptVersion)
  }

  get model(): string {
    return mostSeen(this.models)
  }

  get agentVersion(): string {
    return mostSeen(this.agents)
  }

  get promptVersion(): string {
    return mostSeen(this.prompts)
  }
}
