import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'

/**
 * The process that owns an embedded store. chDB locks its data directory: while `sieve up` runs,
 * no other process can open it, so CLI commands find the owner here and do their work through it
 * (its HTTP operations, its configuration). Written once `sieve up` listens, readable by the user
 * who runs it only (the token opens every project's data), removed when it stops.
 */
export const ownerSchema = z.object({
  pid: z.number().int().positive(),
  /** Where its HTTP server listens: `http://127.0.0.1:4318`. */
  url: z.url(),
  /** Bearer token of its /ops routes; new at each start. */
  token: z.string().min(32),
  startedAt: z.iso.datetime(),
  version: z.string(),
  /** SIEVE_CONFIG_FILE it was started with ('' for none), said by each command that used its configuration. */
  configFile: z.string(),
})

export type StoreOwner = z.output<typeof ownerSchema>

export const ownerPath = (dataDir: string) => join(dataDir, 'owner.json')

export const newOwnerToken = () => randomBytes(32).toString('hex')

/** Written whole or not at all: a command reading it mid-write sees the previous file or none. */
export function writeOwner(dataDir: string, owner: StoreOwner): void {
  mkdirSync(dataDir, { recursive: true })
  const temporary = `${ownerPath(dataDir)}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(owner, null, 2)}\n`, { mode: 0o600 })
  renameSync(temporary, ownerPath(dataDir))
}

/** Removes the file if it is still this owner's (a second `sieve up` refused at start must not remove the first's). */
export function removeOwner(dataDir: string, token: string): void {
  if (readOwnerFile(dataDir)?.token === token) rmSync(ownerPath(dataDir), { force: true })
}

function readOwnerFile(dataDir: string): StoreOwner | undefined {
  let text: string
  try {
    text = readFileSync(ownerPath(dataDir), 'utf8')
  } catch {
    return undefined
  }
  try {
    const parsed = ownerSchema.safeParse(JSON.parse(text))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    // EPERM: the process exists, owned by another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The running owner of the data directory; none when the file is missing, invalid or left by a process that died (kill -9). */
export function findOwner(dataDir: string): StoreOwner | undefined {
  const owner = readOwnerFile(dataDir)
  return owner && alive(owner.pid) ? owner : undefined
}
