import type { Storage } from '@sieve/core'
import { migrationsApplied } from '@sieve/core'

/** Why a process that reads or writes storage is not ready, or undefined when it is: reachable and migrated. */
export async function storageNotReady(storage: Storage): Promise<string | undefined> {
  const ping = await storage.ping()
  if (!ping.success) return `storage unreachable: ${ping.error.message}`
  if (!(await migrationsApplied(storage))) return 'migrations not applied: run `sieve migrate`'
  return undefined
}
