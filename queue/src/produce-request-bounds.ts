/**
 * The two bounds of one produce request, like the Java producer's max.request.size and batch.size:
 * its record bytes (before compression), and each partition's share, which is one record batch the
 * broker refuses past the topic's max.message.bytes (1 MiB by default). The first message always fits.
 */
/** Sieve's bounds: a request of 1.5 MiB, a partition's share under the broker's 1 MiB default. */
export const MAX_REQUEST_BYTES = 1536 * 1024
export const MAX_PARTITION_BYTES = 900 * 1024

export class ProduceRequestBounds {
  private bytes = 0
  private messages = 0
  private readonly partitionBytes: number[] = []

  constructor(
    private readonly maxRequestBytes: number,
    private readonly maxPartitionBytes: number,
  ) {}

  fits(size: number, partition: number): boolean {
    return this.messages === 0 || (this.bytes + size <= this.maxRequestBytes && (this.partitionBytes[partition] ?? 0) + size <= this.maxPartitionBytes)
  }

  add(size: number, partition: number): void {
    this.bytes += size
    this.messages++
    this.partitionBytes[partition] = (this.partitionBytes[partition] ?? 0) + size
  }
}
