import { createHash } from 'node:crypto'
import { join } from 'node:path'

const KEPT = /^[A-Za-z0-9_-]$/

/** Longest folder name written as is; longer ones end in a hash (file systems allow 255 bytes). */
const MAX_SEGMENT = 120

/**
 * A project id as one path segment: letters, digits, `_` and `-` kept, every other byte of its
 * UTF-8 written `%XX` (so `.`, `..`, `/` and `\` can never walk out of the folder), one-to-one so
 * two projects never share a folder. An empty id is refused: no project is called that.
 */
export function projectSegment(projectId: string): string {
  if (!projectId) throw new Error('a dataset belongs to a project; the project id is empty')
  const encoded = Array.from(Buffer.from(projectId, 'utf8'), (byte) => {
    const char = String.fromCharCode(byte)
    return KEPT.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }).join('')
  if (encoded.length <= MAX_SEGMENT) return encoded
  // `~` never appears in an encoded id, so a shortened name cannot equal a whole one.
  return `${encoded.slice(0, MAX_SEGMENT - 17)}~${createHash('sha256').update(projectId).digest('hex').slice(0, 16)}`
}

/** Where the dashboard's "export to dataset" appends a project's examples: `<dataDir>/datasets/<project>/golden.jsonl`. */
export function projectDatasetPath(dataDir: string, projectId: string): string {
  return join(dataDir, 'datasets', projectSegment(projectId), 'golden.jsonl')
}
