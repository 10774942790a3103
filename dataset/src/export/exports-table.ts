import type { Storage } from '@sieve/core'

/** One trace written (or found a duplicate) into a dataset file; a row of `exports` (migrations/0005_exports.sql). */
export interface ExportRecord {
  projectId: string
  datasetPath: string
  traceId: string
  exampleId: string
  datasetVersion: number
  inputHash: string
  duplicateOf: string
}

export async function recordExports(client: Storage, records: ExportRecord[]): Promise<void> {
  if (!records.length) return
  await client.insert({
    table: 'exports',
    format: 'JSONEachRow',
    values: records.map((r) => ({
      project_id: r.projectId,
      dataset_path: r.datasetPath,
      trace_id: r.traceId,
      example_id: r.exampleId,
      dataset_version: r.datasetVersion,
      input_hash: r.inputHash,
      duplicate_of: r.duplicateOf,
    })),
  })
}
