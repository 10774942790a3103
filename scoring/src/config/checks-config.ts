import { createHash } from 'node:crypto'
import { isAbsolute, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError, zodProblems } from '@sieve/core'
import { z } from 'zod'
import { canonicalJson } from '../canonical-json.js'
import { DEFAULT_CHECKS } from '../checks/builtin.js'
import type { CheckDefinition } from '../checks/check.js'
import { resolveScorecards, type Scorecards } from '../scorecard/scorecard-config.js'

/**
 * The `checks` section of the config file: which checks run, with which parameters, per agent.
 *
 *   checks:
 *     modules: [./checks/refund-window.ts]     # user checks, run by default like built-ins
 *     defaults:                                 # every agent
 *       latency_budget: { maxMs: 30000 }
 *     agents:
 *       support-agent:                          # gen_ai.agent.name, else service.name
 *         prohibited_tools: { tools: [process_refund] }
 *         pii_echo: false                       # off for this agent
 *
 * An agent's parameters for a check are merged key by key over `defaults`. With no section at all
 * every default check runs with its default parameters.
 */
const checkEntry = z.union([z.boolean(), z.record(z.string(), z.unknown())])
const checkEntries = z.record(z.string(), checkEntry)

export const checksSectionSchema = z
  .object({
    modules: z.array(z.string().min(1)).default([]),
    defaults: checkEntries.default({}),
    agents: z.record(z.string().min(1), checkEntries).default({}),
  })
  .strict()

export type ChecksSection = z.output<typeof checksSectionSchema>

export interface ConfiguredCheck {
  check: CheckDefinition
  params: unknown
  /** Hash of check name, version and parameters: a score row says exactly which config produced it. */
  configHash: string
}

export interface CheckProfile {
  /** The agents key that matched, or 'default'. */
  name: string
  checks: ConfiguredCheck[]
}

export interface ChecksConfig {
  /** Every check known (built-in and user modules), in run order. */
  available: readonly CheckDefinition[]
  defaultProfile: CheckProfile
  agents: ReadonlyMap<string, CheckProfile>
  /** The profile for a trace: by agent name first, then service name. */
  profileFor(agentName: string, serviceName: string): CheckProfile
  /** The `scorecards` section: how each agent's scores add up to one verdict. */
  scorecards: Scorecards
}

export function configHash(name: string, version: string, params: unknown): string {
  return createHash('sha256').update(canonicalJson({ name, version, params })).digest('hex').slice(0, 16)
}

function isCheckDefinition(value: unknown): value is CheckDefinition {
  const v = value as CheckDefinition | undefined
  return !!v && typeof v.name === 'string' && typeof v.version === 'string' && typeof v.run === 'function' && typeof v.params?.safeParse === 'function'
}

/** Imports user check modules; each must default-export a `defineCheck(...)` value (or an array of them). */
export async function loadCheckModules(paths: string[], baseDir: string): Promise<CheckDefinition[]> {
  const checks: CheckDefinition[] = []
  const problems: string[] = []
  for (const path of paths) {
    const file = isAbsolute(path) ? path : resolve(baseDir, path)
    try {
      const mod = (await import(pathToFileURL(file).href)) as { default?: unknown }
      const exported = Array.isArray(mod.default) ? mod.default : [mod.default]
      for (const value of exported) {
        if (isCheckDefinition(value)) checks.push(value)
        else problems.push(`checks.modules: ${path} must default-export a check made with defineCheck() from @sieve/scoring`)
      }
    } catch (err) {
      problems.push(`checks.modules: cannot load ${file}: ${(err as Error).message}`)
    }
  }
  if (problems.length) throw new ConfigError(problems)
  return checks
}

function buildProfile(
  name: string,
  available: readonly CheckDefinition[],
  defaults: ChecksSection['defaults'],
  overrides: ChecksSection['defaults'],
  path: string,
  problems: string[],
): CheckProfile {
  const checks: ConfiguredCheck[] = []
  for (const check of available) {
    const base = defaults[check.name]
    const own = overrides[check.name]
    const entry = own ?? base ?? true
    if (entry === false) continue
    const params = {
      ...(typeof base === 'object' ? base : {}),
      ...(typeof own === 'object' ? own : {}),
    }
    const parsed = check.params.safeParse(params)
    if (!parsed.success) {
      const at = own !== undefined ? path : 'checks.defaults'
      for (const issue of parsed.error.issues) problems.push(`${at}.${[check.name, ...issue.path].join('.')}: ${issue.message}`)
      continue
    }
    checks.push({ check, params: parsed.data, configHash: configHash(check.name, check.version, parsed.data) })
  }
  return { name, checks }
}

/** Validates the section against the known checks; every problem is reported at once, with its path. */
export function resolveChecksConfig(section: unknown, userChecks: CheckDefinition[] = [], scorecardsSection?: unknown): ChecksConfig {
  const parsed = checksSectionSchema.safeParse(section ?? {})
  if (!parsed.success) {
    throw new ConfigError(zodProblems(parsed.error, { at: 'checks' }))
  }
  const { defaults, agents } = parsed.data
  const problems: string[] = []
  const available: CheckDefinition[] = [...DEFAULT_CHECKS]
  for (const check of userChecks) {
    if (available.some((c) => c.name === check.name)) problems.push(`checks.modules: a check named '${check.name}' already exists`)
    else available.push(check)
  }
  const known = new Set(available.map((c) => c.name))
  const unknown = (entries: Record<string, unknown>, path: string) => {
    for (const name of Object.keys(entries)) {
      if (!known.has(name)) problems.push(`${path}.${name}: unknown check (known: ${[...known].join(', ')})`)
    }
  }
  unknown(defaults, 'checks.defaults')
  for (const [agent, entries] of Object.entries(agents)) unknown(entries, `checks.agents.${agent}`)

  const defaultProfile = buildProfile('default', available, defaults, {}, 'checks.defaults', problems)
  const agentProfiles = new Map<string, CheckProfile>()
  for (const [agent, entries] of Object.entries(agents)) {
    agentProfiles.set(agent, buildProfile(agent, available, defaults, entries, `checks.agents.${agent}`, problems))
  }
  const { scorecards, problems: cardProblems } = resolveScorecards(scorecardsSection, known)
  problems.push(...cardProblems)
  if (problems.length) throw new ConfigError([...new Set(problems)])

  return {
    available,
    defaultProfile,
    agents: agentProfiles,
    scorecards,
    profileFor(agentName, serviceName) {
      return (agentName && agentProfiles.get(agentName)) || (serviceName && agentProfiles.get(serviceName)) || defaultProfile
    },
  }
}

/** Reads `config.sections.checks` and `.scorecards`, loading user check modules relative to the config file's folder. */
export async function loadChecksConfig(sections: Record<string, unknown>, baseDir = process.cwd()): Promise<ChecksConfig> {
  const raw = sections.checks
  const modules =
    raw && typeof raw === 'object' && Array.isArray((raw as { modules?: unknown }).modules)
      ? ((raw as { modules: unknown[] }).modules.filter((m) => typeof m === 'string') as string[])
      : []
  const userChecks = await loadCheckModules(modules, baseDir)
  return resolveChecksConfig(raw, userChecks, sections.scorecards)
}
