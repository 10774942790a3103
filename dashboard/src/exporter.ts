/**
 * What the dashboard's "export to dataset" action needs from export (@sieve/dataset): turn
 * the selected traces into golden examples. `sieve up` passes the CLI's, over @sieve/dataset.
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
