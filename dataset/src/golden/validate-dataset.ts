import { readFileSync } from 'node:fs'
import { goldenExampleSchema, type GoldenExample } from './golden-example.js'

/** A problem in a dataset file, located so an editor can jump to it. */
export interface DatasetProblem {
  line: number
  field: string
  message: string
}

export interface DatasetContents {
  examples: { line: number; example: GoldenExample }[]
  problems: DatasetProblem[]
}

/** Parses and validates every line of a JSONL dataset; blank lines are allowed. */
export function parseDataset(text: string): DatasetContents {
  const examples: DatasetContents['examples'] = []
  const problems: DatasetProblem[] = []
  const ids = new Map<string, number>()
  text.split('\n').forEach((raw, index) => {
    const line = index + 1
    if (!raw.trim()) return
    let value: unknown
    try {
      value = JSON.parse(raw)
    } catch (err) {
      problems.push({ line, field: '', message: `not valid JSON: ${(err as Error).message}` })
      return
    }
    const result = goldenExampleSchema.safeParse(value)
    if (!result.success) {
      for (const issue of result.error.issues) problems.push({ line, field: issue.path.join('.'), message: issue.message })
      return
    }
    const seen = ids.get(result.data.id)
    if (seen) problems.push({ line, field: 'id', message: `duplicate of the example on line ${seen}` })
    else ids.set(result.data.id, line)
    examples.push({ line, example: result.data })
  })
  return { examples, problems }
}

export function readDataset(path: string): DatasetContents {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { examples: [], problems: [] }
    throw err
  }
  return parseDataset(text)
}

export function formatProblem(path: string, p: DatasetProblem): string {
  return `${path}:${p.line}: ${p.field ? `${p.field}: ` : ''}${p.message}`
}
