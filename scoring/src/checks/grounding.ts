import { z } from 'zod'
import { traceView } from '../trace/view.js'
import { defineCheck } from './check.js'
import { regexParam } from './regex-param.js'

const DEFAULT_CITATION = '\\[(?:doc|source|ref|kb)[:#]\\s*([A-Za-z0-9_.:/-]+)\\]'

/**
 * Every document id the answer cites exists in the context retrieved in the same trace: ids from
 * `gen_ai.retrieval.documents` on retrieval spans and `id`/`doc_id`-like fields of tool results.
 * Citations are found with `citationPattern`, whose first capture group is the id.
 */
export const grounding = defineCheck({
  name: 'grounding',
  version: '1',
  description: 'Every cited document id appears in the retrieved context of the trace.',
  params: z.object({
    citationPattern: regexParam.default(DEFAULT_CITATION),
    /** Fail an answer that cites nothing although documents were retrieved. */
    requireCitations: z.boolean().default(false),
  }),
  evaluate(trace, { citationPattern, requireCitations }) {
    const view = traceView(trace)
    const answer = view.finalAnswer
    if (!answer) return { skipped: 'no answer content captured' }
    const cited = [...new Set([...answer.text.matchAll(new RegExp(citationPattern, 'gu'))].map((m) => m[1] ?? m[0]))]
    if (!cited.length) {
      if (requireCitations && view.retrievedDocIds.size) {
        return {
          value: 0,
          passed: false,
          detail: { message: `answer in span ${answer.spanId} cites none of the ${view.retrievedDocIds.size} retrieved documents`, cited, ungrounded: [] },
        }
      }
      return { skipped: 'the answer cites no documents' }
    }
    const ungrounded = cited.filter((id) => !view.retrievedDocIds.has(id))
    return {
      value: 1 - ungrounded.length / cited.length,
      passed: ungrounded.length === 0,
      detail: {
        message: ungrounded.length
          ? `answer in span ${answer.spanId} cites ${ungrounded.join(', ')}, not in the retrieved context (retrieved: ${[...view.retrievedDocIds].slice(0, 20).join(', ') || 'nothing'})`
          : `all ${cited.length} cited documents were retrieved`,
        spanId: answer.spanId,
        cited,
        ungrounded,
      },
    }
  },
})
