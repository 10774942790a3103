import { spawn } from 'node:child_process'

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
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() && !NOISE.test(l))
  const at = (pattern: RegExp) => lines.findIndex((l) => pattern.test(l.trim()))
  const first = [at(ERROR_LINE), at(SAYS_WHY), 0].find((i) => i >= 0)!
  return lines.slice(first, first + 2).map((l) => l.trim()).join(' ')
}

/** A module path is run with node (TypeScript through tsx); anything else is a shell command. */
export function agentCommand(agent: string): { command: string; args: string[]; shell: boolean } {
  if (/\.(?:[cm]?js|[cm]?ts)$/.test(agent) && !/\s/.test(agent)) {
    return { command: process.execPath, args: ['--conditions=sieve-source', '--import', 'tsx', agent], shell: false }
  }
  return { command: agent, args: [], shell: true }
}

/** One call of the agent: the conversation so far, the user's newest turn last. */
export interface AgentTurn {
  exampleId: string
  messages: { role: string; content: string }[]
  /** 1-based: which of the example's user turns this is, of how many. */
  turn: number
  turns: number
  /** Shared by the turns of one replay, for the agent's `gen_ai.conversation.id`. */
  sessionId: string
  /** A fixed clock for the agent (ISO 8601), as SIEVE_EVAL_NOW. */
  now?: string
  /** More fields of the input beside `messages` (`sieve simulate`: `fixtures`, `simulation`). */
  input?: Record<string, unknown>
  /** More environment variables for the agent (`sieve simulate`: SIEVE_SIMULATION). */
  env?: Record<string, string>
}

/**
 * Runs the agent once, for one user turn of an example. The agent reads `{"messages": [...]}` as
 * JSON from stdin (also in SIEVE_EVAL_INPUT): every earlier turn, user and assistant, then the
 * user's newest turn. It sends its trace to SIEVE_ENDPOINT with the SDK, flushing before it exits;
 * its answer is read from that trace.
 */
export function runAgent(agent: string, turn: AgentTurn, endpoint: string, timeoutMs: number, cwd = process.cwd()): Promise<AgentRun> {
  const { command, args, shell } = agentCommand(agent)
  const input = JSON.stringify({ ...turn.input, messages: turn.messages })
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd,
      shell,
      stdio: ['pipe', 'ignore', 'pipe'],
      env: {
        ...process.env,
        SIEVE_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        SIEVE_EVAL_INPUT: input,
        SIEVE_EVAL_EXAMPLE_ID: turn.exampleId,
        SIEVE_EVAL_TURN: String(turn.turn),
        SIEVE_EVAL_TURNS: String(turn.turns),
        SIEVE_EVAL_SESSION_ID: turn.sessionId,
        ...(turn.now ? { SIEVE_EVAL_NOW: turn.now } : {}),
        ...turn.env,
      },
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
