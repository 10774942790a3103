import { context, trace } from '@opentelemetry/api'
import { logs } from '@opentelemetry/api-logs'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-proto'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BatchLogRecordProcessor, LoggerProvider } from '@opentelemetry/sdk-logs'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import type { CorpusScenario, CorpusScenarioName, corpusSpec } from '../../../src/corpus.js'

/*
 * What the JavaScript corpus agents share, as the Python ones share corpus_telemetry.py: the
 * scenarios (CORPUS_SPEC), the tools, and OpenTelemetry set up as an app does (a tracer provider with
 * a simple span processor and the OTLP/HTTP protobuf exporters for traces and logs). Each scenario
 * gets providers of its own whose service.name is SERVICE_NAME-<scenario>, flushed and shut down
 * when it ends; the agent hands them to its instrumentation.
 *
 *   <agent>.ts <instrumentation> [scenario ...]
 */

export type Spec = ReturnType<typeof corpusSpec>

export interface ScenarioRun {
  name: CorpusScenarioName
  scenario: CorpusScenario
  tracerProvider: BasicTracerProvider
  loggerProvider: LoggerProvider
}

export class CorpusTelemetry {
  readonly spec: Spec
  readonly instrumentation: string
  readonly scenarioNames: CorpusScenarioName[]
  readonly baseURL: string
  private readonly prefix: string
  private readonly endpoint: string

  constructor(library: string) {
    const [instrumentation, ...names] = process.argv.slice(2)
    if (!instrumentation) throw new Error(`usage: ${process.argv[1]} <instrumentation> [scenario ...]`)
    this.instrumentation = instrumentation
    this.spec = JSON.parse(process.env.CORPUS_SPEC!) as Spec
    this.scenarioNames = (names.length ? names : Object.keys(this.spec.scenarios)) as CorpusScenarioName[]
    const unknown = this.scenarioNames.filter((n) => !(n in this.spec.scenarios))
    if (unknown.length) throw new Error(`unknown scenarios ${unknown.join(', ')}`)
    this.prefix = process.env.SERVICE_NAME ?? `corpus-${library}-${instrumentation}`
    this.baseURL = process.env.MODEL_BASE_URL!
    this.endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/$/, '')
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  }

  scenario(name: CorpusScenarioName): CorpusScenario {
    return this.spec.scenarios[name] as CorpusScenario
  }

  /** Runs `body` for each scenario in turn with that scenario's providers, registered globally too. */
  async eachScenario(body: (run: ScenarioRun) => Promise<void>): Promise<void> {
    for (const name of this.scenarioNames) {
      const resource = resourceFromAttributes({ 'service.name': `${this.prefix}-${name}` })
      const tracerProvider = new BasicTracerProvider({
        resource,
        spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${this.endpoint}/v1/traces` }))],
      })
      const loggerProvider = new LoggerProvider({
        resource,
        // The batch processor, as NodeSDK sets it up: the simple one exports each record in a request of
        // its own, and records of one call share a millisecond, so their order would be the network's.
        processors: [new BatchLogRecordProcessor({ exporter: new OTLPLogExporter({ url: `${this.endpoint}/v1/logs` }) })],
      })
      trace.disable()
      trace.setGlobalTracerProvider(tracerProvider)
      logs.disable()
      logs.setGlobalLoggerProvider(loggerProvider)
      try {
        await body({ name, scenario: this.scenario(name), tracerProvider, loggerProvider })
      } finally {
        await tracerProvider.forceFlush()
        await loggerProvider.forceFlush()
        await tracerProvider.shutdown()
        await loggerProvider.shutdown()
      }
    }
  }

  /** The tools as Chat Completions function definitions. */
  toolDefinitions() {
    return this.spec.tools.map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: t.parameters as Record<string, unknown> },
    }))
  }

  /** What a tool returns: a JSON object, as a string. */
  runTool(name: string, orderId: string): string {
    return JSON.stringify({ order_id: orderId, ...this.spec.toolResults[name as keyof Spec['toolResults']] })
  }
}
