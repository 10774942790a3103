import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Storage, Config } from '@sieve/core'
import type { DatasetExporter } from '@sieve/dashboard'
import { createScrubber, exportDataset, loadScrubOptions, projectDatasetPath } from '@sieve/dataset'
import { loadChecksConfig } from '@sieve/scoring'

/**
 * The dashboard's "export to dataset" action on @sieve/dataset: the selected traces, scrubbed, are
 * appended to the project's own `<SIEVE_DATA_DIR>/datasets/<project>/golden.jsonl` exactly as
 * `sieve export` would add them. One dataset per project: a tenant's examples, and the dedupe
 * against them, never meet another tenant's.
 */
export function createDatasetExporter(storage: Storage, config: Config): DatasetExporter {
  const setup = (async () => ({ checks: await loadChecksConfig(config.sections), scrubber: createScrubber(loadScrubOptions(config)) }))()
  return {
    async exportTraces({ projectId, traceIds }) {
      const { checks, scrubber } = await setup
      const out = projectDatasetPath(config.dataDir, projectId)
      mkdirSync(dirname(out), { recursive: true })
      const since = BigInt(Date.now() - config.retentionDays * 86_400_000) * 1_000_000n
      const report = await exportDataset(storage, {
        out,
        projectId,
        traceIds,
        sinceUnixNano: since.toString(),
        limit: traceIds.length,
        bucket: 'known-failure',
        reviewAfterDays: 90,
        dryRun: false,
        checks,
        scrubber,
      })
      const seen = new Set([...report.added, ...report.duplicates, ...report.skipped].map((r) => r.traceId))
      return {
        exported: report.added.length,
        destination: report.path,
        skipped: [
          ...report.duplicates.map((d) => ({ traceId: d.traceId, reason: `same input as ${d.duplicateOf}, already in the dataset` })),
          ...report.skipped,
          ...traceIds.filter((id) => !seen.has(id)).map((traceId) => ({ traceId, reason: 'no failed check, or already exported to this dataset' })),
        ],
      }
    },
  }
}
