import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { genAiFields, readTrace, type Trace } from '@sieve/core'
import { pythonAgents, tsxCommand } from './agent-service.js'
import { callTools, say, type ModelRequest, type Step } from './fake-openai/script.js'
import type { RunningSieve } from './sieve.js'

/*
 * The conventions corpus: the same support agent written with each agent library and traced by each
 * instrumentation as their users run them (no Sieve SDK unless the case is the SDK's), against
 * testkit's fake model, stored by a real Sieve. Every case runs the same scenarios; the agents
 * (agents/python/corpus/, agents/js/corpus/) read them from CORPUS_SPEC, so this file is the one
 * place that says what each scenario sends and what the model answers.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

export const CORPUS_MODEL = 'gpt-4o-mini'

export const CORPUS_SYSTEM =
  'You are the support agent of Acme. Look orders up with lookup_order before you answer. Never refund an order yourself: a colleague does that.'

export const CORPUS_TOOLS = [
  {
    name: 'lookup_order',
    description: 'Look up an order by its id.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
  {
    name: 'process_refund',
    description: 'Refund an order.',
    parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
  },
] as const

export type CorpusToolName = (typeof CORPUS_TOOLS)[number]['name']

/** What each tool returns (the agents add the order id they were called with). */
export const CORPUS_TOOL_RESULTS: Record<CorpusToolName, Record<string, string>> = {
  lookup_order: { status: 'shipped', eta: 'Friday' },
  process_refund: { status: 'refunded' },
}

/** A user turn: its text, and the tool the model calls before it answers (none: it answers at once). */
export interface CorpusTurn {
  user: string
  tool?: { name: CorpusToolName; id: string; arguments: { order_id: string } }
  answer: string
  /** Token usage the model reports: for the tool-call answer (when there is one), then the text answer. */
  usage: { toolCall?: [number, number]; answer: [number, number] }
}

export interface CorpusScenario {
  turns: CorpusTurn[]
  /** The agent asks its library to stream, where it streams. */
  stream: boolean
  /** One session across the turns: the library's own memory resends the conversation so far each turn. */
  session?: { id: string; userId: string; threadId: string }
}

export const CORPUS_SCENARIOS = {
  /** The user asks about an order; the model looks it up and answers in text. */
  clean: {
    stream: false,
    turns: [
      {
        user: 'Where is my order A-1?',
        tool: { name: 'lookup_order', id: 'call_lookup_1', arguments: { order_id: 'A-1' } },
        answer: 'Order A-1 has shipped and arrives on Friday.',
        usage: { toolCall: [120, 18], answer: [160, 12] },
      },
    ],
  },
  /** The model refunds, which the test config prohibits, then answers. */
  forbidden: {
    stream: false,
    turns: [
      {
        user: 'Please refund order A-1.',
        tool: { name: 'process_refund', id: 'call_refund_1', arguments: { order_id: 'A-1' } },
        answer: 'Order A-1 is refunded.',
        usage: { toolCall: [118, 18], answer: [150, 7] },
      },
    ],
  },
  /** Three turns of one session, each a trace of its own that resends the conversation so far. */
  session: {
    stream: false,
    session: { id: 'corpus-session-1', userId: 'corpus-user-1', threadId: 'corpus-thread-1' },
    turns: [
      {
        user: 'Please refund order A-1, it arrived broken.',
        tool: { name: 'process_refund', id: 'call_refund_1', arguments: { order_id: 'A-1' } },
        answer: 'Order A-1 is refunded; sorry it arrived broken.',
        usage: { toolCall: [122, 18], answer: [155, 13] },
      },
      { user: 'Thanks! When will I see the money?', answer: 'Within five business days.', usage: { answer: [180, 6] } },
      { user: 'Will you confirm it by email?', answer: 'Yes, a confirmation email follows today.', usage: { answer: [196, 9] } },
    ],
  },
  /** The clean run, streamed. */
  streamed: {
    stream: true,
    turns: [
      {
        user: 'Where is my order A-1?',
        tool: { name: 'lookup_order', id: 'call_lookup_1', arguments: { order_id: 'A-1' } },
        answer: 'Order A-1 has shipped and arrives on Friday.',
        usage: { toolCall: [120, 18], answer: [160, 12] },
      },
    ],
  },
} satisfies Record<string, CorpusScenario>

export type CorpusScenarioName = keyof typeof CORPUS_SCENARIOS

/** The tool the corpus's checks configuration prohibits: a turn that calls it must fail, and only that turn. */
export const CORPUS_PROHIBITED: CorpusToolName = 'process_refund'

/**
 * A scenario's traces that are turns of the agent, in order: OpenLLMetry's LangChain instrumentation
 * also sends a one-span `create_agent` trace for each agent the program builds.
 */
export const turnTraces = (traces: readonly Trace[]): Trace[] => traces.filter((t) => t.spans.some((s) => genAiFields(s).operation !== 'create_agent'))
export const CORPUS_SCENARIO_NAMES = Object.keys(CORPUS_SCENARIOS) as CorpusScenarioName[]

/** What every corpus agent reads from CORPUS_SPEC. */
export function corpusSpec() {
  return { model: CORPUS_MODEL, system: CORPUS_SYSTEM, tools: CORPUS_TOOLS, toolResults: CORPUS_TOOL_RESULTS, scenarios: CORPUS_SCENARIOS }
}

/** A request's messages reduced to what the script decides on, whichever API it came through. */
interface Said {
  role: 'system' | 'user' | 'assistant' | 'tool'
  text: string
  /** Tool calls an assistant message made (assistant), or the call a result answers (tool). */
  callIds: string[]
}

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (typeof p === 'string' ? p : typeof p?.text === 'string' ? p.text : '')).join('')
  return ''
}

function saidIn(request: ModelRequest): Said[] {
  const body = request.body ?? {}
  if (request.api === 'chat.completions') {
    return (Array.isArray(body.messages) ? body.messages : []).map((m: any): Said => {
      const role = m.role === 'developer' ? 'system' : m.role === 'function' ? 'tool' : m.role
      const callIds = role === 'tool' ? [String(m.tool_call_id ?? '')] : (m.tool_calls ?? []).map((c: any) => String(c.id))
      return { role, text: textOf(m.content), callIds }
    })
  }
  // Responses: `instructions` and `input` (a string, or items: messages, function calls and their outputs).
  const said: Said[] = []
  if (typeof body.instructions === 'string') said.push({ role: 'system', text: body.instructions, callIds: [] })
  const input = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : []
  for (const item of input) {
    if (item.type === 'function_call') {
      const last = said.at(-1)
      if (last?.role === 'assistant') last.callIds.push(String(item.call_id))
      else said.push({ role: 'assistant', text: '', callIds: [String(item.call_id)] })
    } else if (item.type === 'function_call_output') said.push({ role: 'tool', text: textOf(item.output), callIds: [String(item.call_id)] })
    else if (item.role) said.push({ role: item.role === 'developer' ? 'system' : item.role, text: textOf(item.content), callIds: [] })
  }
  return said
}

const ALL_TURNS: CorpusTurn[] = Object.values(CORPUS_SCENARIOS).flatMap((s: CorpusScenario) => s.turns)

/**
 * The fake model's script for every corpus scenario, as a function of the request: the newest user
 * message names the turn; before that turn's tool has been called the model calls it, after (or for a
 * turn with no tool) it answers the turn's text. A request the corpus does not expect is answered
 * with a text saying so, which shows up in the captured conversation rather than failing the run.
 */
export function corpusModelStep(request: ModelRequest): Step {
  const said = saidIn(request)
  const lastUser = said.findLastIndex((m) => m.role === 'user')
  const turn = ALL_TURNS.find((t) => said[lastUser]?.text.includes(t.user))
  if (!turn) return say(`(the corpus model did not expect this request: ${JSON.stringify(request.body).slice(0, 200)})`)
  const since = said.slice(lastUser + 1)
  const called = turn.tool && since.some((m) => m.role === 'assistant' && m.callIds.includes(turn.tool!.id))
  if (turn.tool && !called) {
    const [inputTokens, outputTokens] = turn.usage.toolCall!
    return callTools([{ id: turn.tool.id, name: turn.tool.name, arguments: turn.tool.arguments }], { usage: { inputTokens, outputTokens } })
  }
  const [inputTokens, outputTokens] = turn.usage.answer
  return say(turn.answer, { usage: { inputTokens, outputTokens } })
}

export type CorpusLanguage = 'python' | 'js'

/** One corpus case: a library under one instrumentation (and its settings). */
export interface CorpusCase {
  /** `<library>-<instrumentation>`: the folder its captures go to, and the service names' middle. */
  name: string
  language: CorpusLanguage
  /** The agent: a file under testkit/agents/python/ or testkit/agents/js/corpus/. */
  agent: string
  /** The agent's first argument. */
  instrumentation: string
  /** Environment the instrumentation reads (content capture, semantic-convention opt-ins). */
  env: Record<string, string>
  /** Scenarios this library cannot run, and why. */
  unsupported?: Partial<Record<CorpusScenarioName, string>>
}

const OPT_IN = { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental' }
const CAPTURE = 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'

const python = (name: string, agent: string, instrumentation: string, env: Record<string, string> = {}): CorpusCase => ({
  name,
  language: 'python',
  agent,
  instrumentation,
  env,
})
const js = (name: string, agent: string, instrumentation: string, env: Record<string, string> = {}): CorpusCase => ({
  name,
  language: 'js',
  agent,
  instrumentation,
  env,
})

/** Every case, Python then JavaScript. */
export const CORPUS_CASES: CorpusCase[] = [
  python('langgraph-openinference', 'corpus/langgraph_agent.py', 'openinference'),
  python('langgraph-openllmetry', 'corpus/langgraph_agent.py', 'openllmetry'),
  python('llamaindex-openinference', 'corpus/llamaindex_agent.py', 'openinference'),
  python('openai-agents-openinference', 'corpus/openai_agents_agent.py', 'openinference'),
  python('openai-openinference', 'openai_agent.py', 'openinference'),
  python('openai-openllmetry', 'openai_agent.py', 'openllmetry'),
  // OpenTelemetry's own (opentelemetry-instrumentation-openai-v2) in every capture mode: the default
  // conventions, then the newest ones (gen_ai_latest_experimental), where the mode says where the messages go.
  python('openai-otel', 'openai_agent.py', 'otel'),
  python('openai-otel-true', 'openai_agent.py', 'otel', { [CAPTURE]: 'true' }),
  python('openai-otel-latest', 'openai_agent.py', 'otel', { ...OPT_IN }),
  python('openai-otel-latest-true', 'openai_agent.py', 'otel', { ...OPT_IN, [CAPTURE]: 'true' }),
  python('openai-otel-span_only', 'openai_agent.py', 'otel', { ...OPT_IN, [CAPTURE]: 'span_only' }),
  python('openai-otel-event_only', 'openai_agent.py', 'otel', { ...OPT_IN, [CAPTURE]: 'event_only' }),
  python('openai-otel-span_and_event', 'openai_agent.py', 'otel', { ...OPT_IN, [CAPTURE]: 'span_and_event' }),
  js('js-openai-openinference', 'openai-client.ts', 'openinference'),
  js('js-openai-otel', 'openai-client.ts', 'otel'),
  js('js-ai-sdk-legacy', 'ai-sdk.ts', 'legacy'),
  js('js-ai-sdk-otel', 'ai-sdk.ts', 'otel'),
  js('js-sieve-sdk', 'sieve-sdk.ts', 'sieve'),
]

/** The service.name a case's agent gives one scenario's spans. */
export const corpusServiceName = (c: CorpusCase, scenario: CorpusScenarioName): string => `corpus-${c.name}-${scenario}`

/** Why this machine cannot run a case (Python cases need .cache/python), or false. */
export function corpusSkip(c: CorpusCase): string | false {
  return c.language === 'python' ? pythonAgents().skip : false
}

/** The command that runs a case's agent over the given scenarios. */
export function corpusCommand(c: CorpusCase, scenarios: readonly CorpusScenarioName[]): string[] {
  if (c.language === 'python') return [pythonAgents().python, `${ROOT}testkit/agents/python/${c.agent}`, c.instrumentation, ...scenarios]
  return tsxCommand(`${ROOT}testkit/agents/js/corpus/${c.agent}`, c.instrumentation, ...scenarios)
}

export interface CorpusRun {
  /** Each scenario's stored traces, in start order. */
  traces: Partial<Record<CorpusScenarioName, Trace[]>>
  /** How long the agent process ran. */
  seconds: number
  /** What it printed (warnings, the libraries' own logging). */
  stderr: string
  /** The requests the model received from it, in order: what each scenario really cost in model calls. */
  requests: ModelRequest[]
}

/**
 * Runs one case's agent (a process of its own, all the scenarios in sequence) against a running Sieve
 * and a fake model, and returns each scenario's stored traces. The model's script is set to
 * `corpusModelStep`; the caller owns both servers.
 */
export async function runCorpusCase(
  c: CorpusCase,
  servers: { sieve: RunningSieve; model: { baseURL: string; requests: ModelRequest[]; setScript(script: (r: ModelRequest) => Step): void } },
  options: { scenarios?: readonly CorpusScenarioName[]; timeoutMs?: number; projectId?: string } = {},
): Promise<CorpusRun> {
  const skip = corpusSkip(c)
  if (skip) throw new Error(`corpus case ${c.name} cannot run here: ${skip}`)
  const scenarios = (options.scenarios ?? CORPUS_SCENARIO_NAMES).filter((s) => !c.unsupported?.[s])
  servers.model.setScript(corpusModelStep)
  const [program, ...args] = corpusCommand(c, scenarios)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...c.env,
    CORPUS_SPEC: JSON.stringify(corpusSpec()),
    MODEL_BASE_URL: servers.model.baseURL,
    OPENAI_BASE_URL: servers.model.baseURL,
    OPENAI_API_KEY: 'corpus-key',
    OTEL_EXPORTER_OTLP_ENDPOINT: servers.sieve.url,
    SERVICE_NAME: `corpus-${c.name}`,
    // Nothing may call out: the libraries' own telemetry and tracing services stay off.
    LANGCHAIN_TRACING_V2: 'false',
    LANGSMITH_TRACING: 'false',
    TRACELOOP_TELEMETRY: 'false',
    ANONYMIZED_TELEMETRY: 'false',
    DO_NOT_TRACK: '1',
    PYTHONDONTWRITEBYTECODE: '1',
    PYTHONUNBUFFERED: '1',
  }
  const firstRequest = servers.model.requests.length
  const started = performance.now()
  const stderr = await new Promise<string>((resolve, reject) => {
    const child = spawn(program!, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolve(out)
      else reject(new Error(`corpus agent ${c.name} (${[program, ...args].join(' ')}) exited ${code ?? signal}:\n${out.slice(-4000)}`))
    })
  })
  const seconds = (performance.now() - started) / 1000
  const traces: CorpusRun['traces'] = {}
  for (const scenario of scenarios) traces[scenario] = await storedTraces(servers.sieve, corpusServiceName(c, scenario), options.projectId)
  return { traces, seconds, stderr, requests: servers.model.requests.slice(firstRequest) }
}

/** A service's stored traces, in start order (each with the GenAI events its logs carried). */
export async function storedTraces(sieve: RunningSieve, service: string, projectId = 'default'): Promise<Trace[]> {
  const rows = await (
    await sieve.storage.query({
      query: `SELECT trace_id FROM spans FINAL WHERE project_id = {projectId:String} AND service_name = {service:String}
        GROUP BY trace_id ORDER BY min(start_time), trace_id`,
      query_params: { projectId, service },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string }>()
  const traces: Trace[] = []
  for (const { trace_id } of rows) {
    const trace = await readTrace(sieve.storage, projectId, trace_id)
    if (trace) traces.push(trace)
  }
  return traces
}
