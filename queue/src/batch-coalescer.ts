/**
 * Joins the batches that arrive within `lingerMs` of each other (the partitions of one Kafka
 * fetch, handled concurrently) into one call of `handle`, so the subscriber makes one large
 * insert rather than one per partition. Every contributor gets the outcome of the joint call.
 */
export class BatchCoalescer<T> {
  private pending: { items: T[]; resolve(): void; reject(err: unknown): void }[] = []
  private size = 0
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly handle: (items: T[]) => Promise<void>,
    private readonly lingerMs: number,
    private readonly maxItems: number,
  ) {}

  add(items: T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ items, resolve, reject })
      this.size += items.length
      if (this.size >= this.maxItems) this.flush()
      else this.timer ??= setTimeout(() => this.flush(), this.lingerMs)
    })
  }

  private flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    const batch = this.pending
    this.pending = []
    this.size = 0
    if (batch.length === 0) return
    this.handle(batch.flatMap((b) => b.items)).then(
      () => batch.forEach((b) => b.resolve()),
      (err: unknown) => batch.forEach((b) => b.reject(err)),
    )
  }
}
