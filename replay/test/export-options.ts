import { resolveChecksConfig } from '@sieve/scoring'
import { checksSection } from '@sieve/testkit/scenarios'
import { createScrubber, sinceUnixNano, type ExportOptions } from '@sieve/dataset'

/** The support scenarios' checks, as the export tests score and export with. */
export const checks = resolveChecksConfig(checksSection)

/** `exportDataset` options as the export tests use them: project default, the last 7 days, a fixed clock. */
export function exportOptions(out: string, extra: Partial<ExportOptions> = {}): ExportOptions {
  return {
    out,
    projectId: 'default',
    sinceUnixNano: sinceUnixNano('7d')!,
    limit: 100,
    bucket: 'known-failure',
    reviewAfterDays: 90,
    dryRun: false,
    checks,
    scrubber: createScrubber(),
    now: new Date('2026-01-15T10:00:00Z'),
    ...extra,
  }
}
