/**
 * A producer's connect, made on first use rather than when its role starts: an idempotent
 * producer's connect fails at once (ECONNREFUSED, no retry) while the cluster's metadata still names
 * a killed broker as its controller, until that broker is fenced (about 9 s), and would stop a role
 * starting then. A connect that failed is made again on the next use.
 */
export function connectOnUse(producer: { connect(): Promise<void> }): () => Promise<void> {
  let connected: Promise<void> | undefined
  return () => {
    connected ??= producer.connect().catch((err: unknown) => {
      connected = undefined
      throw err
    })
    return connected
  }
}
