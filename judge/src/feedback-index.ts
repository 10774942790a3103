/**
 * The lowest feedback score given on each trace, for the negative-feedback slice. Fed by the poll
 * of the `feedback` table (JudgeStage.feedbackArrived); bounded: past `maxTraces` the traces
 * rated first are forgotten.
 */
export class FeedbackIndex {
  private readonly lowest = new Map<string, number>()

  constructor(private readonly maxTraces = 100_000) {}

  record(projectId: string, traceId: string, score: number): void {
    const key = `${projectId}\u0000${traceId}`
    const prev = this.lowest.get(key)
    this.lowest.delete(key)
    this.lowest.set(key, prev === undefined ? score : Math.min(prev, score))
    if (this.lowest.size > this.maxTraces) this.lowest.delete(this.lowest.keys().next().value!)
  }

  lowestFor(projectId: string, traceId: string): number | undefined {
    return this.lowest.get(`${projectId}\u0000${traceId}`)
  }
}
