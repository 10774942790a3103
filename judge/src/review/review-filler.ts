import type { Storage } from '@sieve/core'
import type { ScoreRecord, ScoreSink } from '@sieve/scoring'
import type { JudgeMetrics } from '@sieve/judging'
import {
  type DimensionTrust,
  enqueue,
  labelledCounts,
  openItems,
  queuedTraces,
  readTrust,
  recalibrate,
  type ReviewSetup,
  rulesInEffect,
  type RulesInEffect,
} from '@sieve/review'
import { dimensionVerdicts, queueReason } from './queue-rules.js'

export interface ReviewFillerDeps {
  storage: Storage
  setup: ReviewSetup
  metrics: JudgeMetrics
  log: (message: string) => void
  /** How long a project's rules, trust, label and open counts are used before they are read again (ms; default 10 s). */
  refreshMs?: number
  now?: () => number
}

/** What the rules read of a project, read together and kept `refreshMs`. */
interface ProjectState {
  readAt: number
  rules: Map<string, RulesInEffect>
  trust: Map<string, DimensionTrust>
  labelled: Map<string, number>
  open: Map<string, number>
}

/**
 * Fills the review queues from the judge's verdicts as they are stored (the judge's sink passes its
 * rows here once written) and recalibrates a rubric when labels arrive by `/v1/feedback` or a verdict
 * is stored on a trace already in its queue. Runs behind the judge: nothing here delays or fails a
 * verdict; failures are counted (`review_errors{op}`) and logged.
 */
export class ReviewFiller {
  private readonly states = new Map<string, Promise<ProjectState>>()
  private readonly pending = new Set<Promise<unknown>>()
  private readonly now: () => number

  constructor(private readonly deps: ReviewFillerDeps) {
    this.now = deps.now ?? Date.now
  }

  /** The judge's sink with this filler behind it: rows go to the queues once stored. */
  wrap(sink: ScoreSink): ScoreSink {
    return {
      write: async (records) => {
        await sink.write(records)
        this.judged(records)
      },
    }
  }

  /** The rows the judge stored for one trace. */
  judged(records: readonly ScoreRecord[]): void {
    const judged = records.filter((r) => r.kind === 'judge')
    if (!judged.length) return
    this.track(this.consider(judged), 'queue')
  }

  /** Labels of these rubrics arrived in a project (by `/v1/feedback`): its calibration is recomputed. */
  labelsArrived(projectId: string, rubricIds: Iterable<string>): Promise<void> {
    const runs = [...new Set(rubricIds)].flatMap((id) => {
      const rubric = this.deps.setup.rubrics.get(id)
      return rubric ? [this.track(recalibrate(this.deps.storage, projectId, rubric, this.deps.setup.calibration), 'calibrate')] : []
    })
    return Promise.all(runs).then(() => undefined)
  }

  /** Waits for the queue writes and recalibrations under way. */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.all([...this.pending])
  }

  private track(work: Promise<unknown>, op: string): Promise<void> {
    const tracked = work
      .then(() => undefined)
      .catch((err: Error) => {
        this.deps.metrics.inc('review_errors', { op })
        this.deps.log(`review: ${op === 'queue' ? 'filling a review queue' : 'recalibrating'} failed: ${err.message}`)
      })
      .finally(() => this.pending.delete(tracked))
    this.pending.add(tracked)
    return tracked
  }

  private async state(projectId: string): Promise<ProjectState> {
    const cached = this.states.get(projectId)
    if (cached) {
      const state = await cached.catch(() => undefined)
      if (state && this.now() - state.readAt < (this.deps.refreshMs ?? 10_000)) return state
      // Another trace of the project started the next read meanwhile: use it.
      const current = this.states.get(projectId)
      if (current && current !== cached) return current
    }
    const { storage, setup } = this.deps
    const read = Promise.all([
      rulesInEffect(storage, setup.section, projectId, setup.rubrics.keys()),
      readTrust(storage, projectId),
      labelledCounts(storage, projectId),
      openItems(storage, projectId),
    ]).then(([rules, trust, labelled, open]) => ({ readAt: this.now(), rules, trust, labelled, open }))
    this.states.set(projectId, read)
    // A failed read is not kept: the next trace reads again.
    read.catch(() => this.states.get(projectId) === read && this.states.delete(projectId))
    return read
  }

  private async consider(records: ScoreRecord[]): Promise<void> {
    const { projectId, traceId, rubricId } = records[0]!
    const rubric = this.deps.setup.rubrics.get(rubricId)
    if (!rubric) return
    const state = await this.state(projectId)
    const inEffect = state.rules.get(rubricId)!
    const taken = queueReason(traceId, dimensionVerdicts(records), inEffect.rules, {
      trusted: (name) => state.trust.get(name)?.trusted,
      labelled: (name) => state.labelled.get(name) ?? 0,
      minLabels: this.deps.setup.calibration.minLabels,
    })
    const there = (await queuedTraces(this.deps.storage, projectId, rubricId, [traceId])).size > 0
    // Already queued (a person added it before it was judged): its labels now have a verdict to meet.
    if (there) return void (await recalibrate(this.deps.storage, projectId, rubric, this.deps.setup.calibration))
    if (!taken) return
    const open = state.open.get(rubricId) ?? 0
    if (open >= inEffect.rules.maxOpen) {
      this.deps.metrics.inc('review_not_queued', { reason: 'queue_full' })
      return
    }
    const added = await enqueue(this.deps.storage, [
      { projectId, rubricId, traceId, reason: taken.reason, rulesVersion: inEffect.version, dimensions: taken.dimensions, addedBy: '' },
    ])
    if (!added.length) return
    state.open.set(rubricId, open + 1)
    this.deps.metrics.inc('review_queued', { reason: taken.reason })
  }
}
