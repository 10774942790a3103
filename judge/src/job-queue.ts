/**
 * Jobs waiting for a slot, at most `capacity` of them, and at most `concurrency` running: the
 * judge stage's queue. What a job does, and what its failure means, is the caller's `run`.
 */
export class JobQueue<J> {
  private readonly waiting: J[] = []
  private running = 0
  private idle: Array<() => void> = []

  constructor(
    private readonly run: (job: J) => Promise<void>,
    private readonly concurrency: number,
    private readonly capacity: number,
  ) {}

  get full(): boolean {
    return this.waiting.length >= this.capacity
  }

  push(job: J): void {
    this.waiting.push(job)
    this.pump()
  }

  /** Empties the queue (a stop): the jobs that had not started, for the caller to account for. */
  takeWaiting(): J[] {
    return this.waiting.splice(0)
  }

  /** Resolves once nothing waits or runs. */
  idled(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  private pump(): void {
    // Jobs in flight are bounded like calls: enough to keep every call slot busy, no more.
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!
      this.running++
      void this.run(job).finally(() => {
        this.running--
        this.pump()
        if (this.running === 0 && this.waiting.length === 0) for (const resolve of this.idle.splice(0)) resolve()
      })
    }
  }
}
