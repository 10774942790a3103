import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { contentAbsent } from './absent-inputs.js'
import { defineCheck } from './check.js'

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`)\]}]+/gi

const normalize = (url: string): string =>
  url
    .replace(/[.,;:!?*_]+$/, '')
    .replace(/\/+$/, '')
    .toLowerCase()

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase()
  } catch {
    return ''
  }
}

/**
 * URLs in the agent's answers must come from somewhere: the user, the system prompt, a tool result
 * or retrieved context of the same trace, or a domain the config allows. Anything else was made up.
 */
export const inventedUrls = defineCheck({
  name: 'invented_urls',
  version: '2',
  description: 'Every URL in assistant output appears in an input, tool result or retrieved context of the trace, or is on an allowed domain.',
  params: z.object({
    /** Hosts (and their subdomains) the agent may always link to. */
    allowedDomains: z.array(z.string().min(1)).default([]),
  }),
  evaluate(trace, { allowedDomains }) {
    const view = traceView(trace)
    if (!view.assistantTexts.length) return contentAbsent(view) ?? { skipped: 'the agent said nothing in this trace' }
    const allowed = allowedDomains.map((d) => d.toLowerCase().replace(/^\*?\./, ''))
    // A URL has no whitespace, so it is found in the joined text only inside one source; as
    // written (already lower-case) is the common case, the lower-cased join is built only when needed.
    let lowered: string | undefined
    const inSources = (key: string): boolean =>
      view.sourceTexts.some((t) => t.includes(key)) || (lowered ??= view.sourceTexts.join('\n').toLowerCase()).includes(key)
    const seen = new Set<string>()
    const scanned = new Set<string>()
    const invented: { spanId: string; url: string }[] = []
    for (const { spanId, text } of view.assistantTexts) {
      // The same text again (the answer on the root span and on the last model call) only has URLs already seen.
      if (scanned.has(text)) continue
      scanned.add(text)
      for (const match of text.matchAll(URL_PATTERN)) {
        const url = match[0].replace(/[.,;:!?*_]+$/, '')
        const key = normalize(url)
        if (seen.has(key)) continue
        seen.add(key)
        const host = hostOf(url)
        if (allowed.some((d) => host === d || host.endsWith(`.${d}`))) continue
        if (!inSources(key)) invented.push({ spanId, url })
      }
    }
    if (!seen.size) return { value: 1, passed: true, detail: { message: 'no URLs in assistant output', invented } }
    return {
      value: 1 - invented.length / seen.size,
      passed: invented.length === 0,
      detail: {
        message: invented.length
          ? invented.map((i) => `URL ${i.url} in span ${i.spanId} appears in no input, tool result or context`).join('; ')
          : `${seen.size} URLs, all found in the trace's inputs or allowed domains`,
        invented,
      },
    }
  },
})
