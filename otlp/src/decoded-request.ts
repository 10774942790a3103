import type { Span } from '@sieve/core'

/** How many rejection reasons a response spells out; the count covers them all. */
const MAX_REASONS = 5

/** An account of the items (spans, log records) of one OTLP request that were rejected, and why. */
export class RequestAccount {
  rejected = 0
  readonly reasons: string[] = []

  /** `noun`: what the request's items are, as the error message counts them. */
  constructor(readonly noun = 'span') {}

  reject(where: string, why: string): void {
    this.rejected++
    if (this.reasons.length < MAX_REASONS) this.reasons.push(`${where}: ${why}`)
  }

  /** The `error_message` of a partial success; '' when nothing was rejected. */
  get errorMessage(): string {
    if (this.rejected === 0) return ''
    const more = this.rejected - this.reasons.length
    return `rejected ${this.rejected} ${this.noun}${this.rejected === 1 ? '' : 's'}: ${this.reasons.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
  }
}

/** What one OTLP request turned into: the spans kept and an account of those rejected. */
export class DecodedRequest extends RequestAccount {
  readonly spans: Span[] = []
}

export const spanPath = (resource: number, scope: number, span: number): string => `resourceSpans[${resource}].scopeSpans[${scope}].spans[${span}]`
