/** A stored score of the trace, as the selection query returns it. */
export interface StoredScore {
  name: string
  kind: string
  value: number
  passed: boolean
  /** The configuration that produced it (the check's parameters' hash); absent where not read. */
  configHash?: string
}
