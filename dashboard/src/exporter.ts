/**
 * What the dashboard's "export to dataset" action needs from the exporter (@sieve/exporter): turn
 * the selected traces into golden examples. `sieve up` passes the exporter's implementation.
 */
export interface DatasetExporter {
  exportTraces(request: { projectId: string; traceIds: string[]; note?: string }): Promise<ExportOutcome>
}

export interface ExportOutcome {
  /** Examples written. */
  exported: number
  /** Traces left out (already exported, duplicate input, not found), with why. */
  skipped: { traceId: string; reason: string }[]
  /** Where the examples went (a file path or dataset name), for the user to find them. */
  destination: string
}
