import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { contentAbsent } from './absent-inputs.js'
import { counted, defineCheck } from './check.js'
import { regexParam } from './regex-param.js'

/** Defaults that are wrong in any product's answers: boilerplate refusals of old models and leaked secrets. */
export const DEFAULT_BANNED_PHRASES = ['as an ai language model']
export const DEFAULT_BANNED_PATTERNS = [
  '\\bsk-[A-Za-z0-9_-]{20,}', // OpenAI-style API keys
  '\\bAKIA[0-9A-Z]{16}\\b', // AWS access key ids
  '-----BEGIN [A-Z ]*PRIVATE KEY-----',
]

const compiled = new Map<string, RegExp>()
function compile(source: string): RegExp {
  let re = compiled.get(source)
  if (!re) {
    re = new RegExp(source, 'iu')
    compiled.set(source, re)
  }
  return re
}

const excerpt = (text: string, at: number, length: number): string =>
  text.slice(Math.max(0, at - 30), Math.min(text.length, at + length + 30)).replace(/\s+/g, ' ')

export const bannedContent = defineCheck({
  name: 'banned_content',
  version: '2',
  description: 'No assistant output contains a banned phrase (case-insensitive) or matches a banned pattern.',
  params: z.object({
    phrases: z.array(z.string().min(1)).default(DEFAULT_BANNED_PHRASES),
    patterns: z.array(regexParam).default(DEFAULT_BANNED_PATTERNS),
  }),
  evaluate(trace, { phrases, patterns }) {
    const view = traceView(trace)
    const texts = view.assistantTexts
    if (!texts.length) return contentAbsent(view) ?? { skipped: 'the agent said nothing in this trace' }
    const lowered = phrases.map((p) => p.toLowerCase())
    const matches: { spanId: string; phrase: string; excerpt: string }[] = []
    // The agent's answer is usually on the root span and on the last model call: scan each text once.
    const found = new Map<string, { phrase: string; excerpt: string }[]>()
    for (const { spanId, text } of texts) {
      let inText = found.get(text)
      if (!inText) {
        inText = []
        const lower = text.toLowerCase()
        lowered.forEach((phrase, i) => {
          const at = lower.indexOf(phrase)
          if (at >= 0) inText!.push({ phrase: phrases[i]!, excerpt: excerpt(text, at, phrase.length) })
        })
        for (const source of patterns) {
          const m = compile(source).exec(text)
          if (m) inText.push({ phrase: source, excerpt: excerpt(text, m.index, m[0].length) })
        }
        found.set(text, inText)
      }
      for (const m of inText) matches.push({ spanId, ...m })
    }
    return {
      value: matches.length ? 0 : 1,
      passed: matches.length === 0,
      detail: {
        message: matches.length
          ? matches.map((m) => `banned '${m.phrase}' in span ${m.spanId}: "${m.excerpt}"`).join('; ')
          : `no banned phrase in ${counted(texts.length, 'assistant output')}`,
        matches,
      },
    }
  },
})
