import { spawn } from 'node:child_process'
import { agentEnvironment, type AgentCallContext, type AgentMessage, type AgentTurnInput } from '@sieve/protocol'

export interface AgentRun {
  exitCode: number | null
  /** The start of the agent's stderr, to explain a failed run (whyItFailed). */
  stderr: string
  timedOut: boolean
}

/** Keep this much of an agent's stderr: where it says why it failed is at the start. */
const STDERR_KEPT = 8000

/** Lines of a crash report that say nothing of why: stack frames, Node's version, an error object's fields, braces. */
const NOISE = /^\s+at |^Node\.js v\d|^\s+\w+: ['"\d[{]|^\s*[{}]\s*$|^\s*\^+\s*$/
/** An error's own line (`TypeError: ...`, `Error [ERR_...]: ...`), else any line saying something failed. */
const ERROR_LINE = /^\w*Error\b/
const SAYS_WHY = /error|denied|not found|no such|cannot|not executable|refused|unexpected/i

/**
 * The first lines of an agent's stderr that say why it failed, two at most, joined: from the error's
 * own line (Node's `Error: ...` under a crash's source excerpt), else the first saying something
 * failed (the shell's "Permission denied"), else the first line with something in it.
 */
export function whyItFailed(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() && !NOISE.test(l))
  const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l.trim()))
  const first = [at(ERROR_LINE), at(SAYS_WHY), 0].find((i) => i >= 0)!
  return lines
    .slice(first, first + 2)
    .map((l) => l.trim())
    .join(' ')
}

/** A module path is run with node (TypeScript through tsx); anything else is a shell command. */
export function agentCommand(agent: string): { command: string; args: string[]; shell: boolean } {
  if (/\.(?:[cm]?js|[cm]?ts)$/.test(agent) && !/\s/.test(agent)) {
    return { command: process.execPath, args: ['--conditions=sieve-source', '--import', 'tsx', agent], shell: false }
  }
  return { command: agent, args: [], shell: true }
}

/**
 * One call of the agent: its context (example, turn of turns, session, clock) and the conversation
 * so far, the user's newest turn last, in the agent protocol's terms (`@sieve/protocol`).
 */
export interface AgentTurn extends AgentCallContext {
  messages: AgentMessage[]
  /** More fields of the input beside `messages` (`sieve simulate`: `fixtures`, `simulation`). */
  input?: Omit<AgentTurnInput, 'messages'>
  /** More environment variables for the agent (`sieve simulate`: SIEVE_SIMULATION). */
  env?: Record<string, string>
}

/** The turn input an agent reads (stdin, SIEVE_EVAL_INPUT, the HTTP body less `sieve`). */
export const agentInput = (turn: AgentTurn): AgentTurnInput => ({ ...turn.input, messages: turn.messages })

/** The call's context, as SIEVE_EVAL_* or the HTTP request's `sieve` field. */
export const callContext = (turn: AgentTurn): AgentCallContext => ({
  exampleId: turn.exampleId,
  turn: turn.turn,
  turns: turn.turns,
  sessionId: turn.sessionId,
  ...(turn.now ? { now: turn.now } : {}),
})

/**
 * Runs a command agent once, for one user turn, in the agent protocol's command form
 * (`@sieve/protocol`, agent-protocol.ts): the turn input on stdin and in the environment with the
 * call's context, its trace sent to `endpoint` before it exits, its answer read from that trace.
 */
export function runAgent(agent: string, turn: AgentTurn, endpoint: string, timeoutMs: number, cwd = process.cwd()): Promise<AgentRun> {
  const { command, args, shell } = agentCommand(agent)
  const input = JSON.stringify(agentInput(turn))
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      shell,
      stdio: ['pipe', 'ignore', 'pipe'],
      env: { ...process.env, ...agentEnvironment(input, callContext(turn), endpoint), ...turn.env },
    })
    let stderr = ''
    let timedOut = false
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < STDERR_KEPT) stderr = (stderr + chunk.toString()).slice(0, STDERR_KEPT)
    })
    child.stdin.on('error', () => {}) // an agent that does not read stdin closes it early
    child.stdin.end(input)
    const timer = setTimeout(() => {
      timedOut = true
      child.kill('SIGKILL')
    }, timeoutMs)
    child.on('error', (err) => {
      clearTimeout(timer)
      resolve({ exitCode: null, stderr: err.message, timedOut })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ exitCode: code, stderr: stderr.trim(), timedOut })
    })
  })
}
