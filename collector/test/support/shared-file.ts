import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A file from the project's `shared/` folder, which sits beside the checkout (or a parent of it). */
export function sharedFile(relative: string): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, 'shared', relative)
    if (existsSync(candidate)) return candidate
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`shared/${relative} not found beside any parent of ${fileURLToPath(import.meta.url)}`)
    dir = parent
  }
}
