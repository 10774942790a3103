"""What every corpus agent shares: the scenarios (CORPUS_SPEC, written by testkit/src/corpus.ts), the
tools, and OpenTelemetry set up as an app using an ecosystem instrumentation sets it up: a
TracerProvider with a SimpleSpanProcessor and the OTLP/HTTP protobuf exporters for traces and logs
(the GenAI events some instrumentations send as log records), flushed before the process exits.

One process runs several scenarios (the libraries take seconds to import), so the spans of each
scenario get a service.name of their own, SERVICE_NAME-<scenario>: the resource is chosen when a span
starts, for the scenario running then.

Environment: CORPUS_SPEC (JSON), MODEL_BASE_URL (the OpenAI-compatible endpoint),
OTEL_EXPORTER_OTLP_ENDPOINT (where traces and logs go), SERVICE_NAME (the services' prefix).
"""
import json
import os
import sys

from opentelemetry import trace
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk._logs import LoggerProvider, LogRecordProcessor
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor


class _ScenarioResource(SpanProcessor):
    """Gives each span, as it starts, the resource of the scenario running then."""

    def __init__(self, corpus):
        self._corpus = corpus

    def on_start(self, span, parent_context=None):
        span._resource = self._corpus.resource


class _ScenarioLogResource(LogRecordProcessor):
    """The same for log records, ahead of the exporting processor."""

    def __init__(self, corpus, then):
        self._corpus = corpus
        self._then = then

    def on_emit(self, log_record):
        record = getattr(log_record, "log_record", log_record)
        try:
            record.resource = self._corpus.resource
        except AttributeError:
            pass
        self._then.on_emit(log_record)

    def shutdown(self):
        self._then.shutdown()

    def force_flush(self, timeout_millis=30000):
        return self._then.force_flush(timeout_millis)


class Corpus:
    def __init__(self, library: str):
        if len(sys.argv) < 2:
            sys.exit(f"usage: {sys.argv[0]} <instrumentation> [scenario ...]")
        self.instrumentation = sys.argv[1]
        self.spec = json.loads(os.environ["CORPUS_SPEC"])
        names = sys.argv[2:] or list(self.spec["scenarios"])
        unknown = [n for n in names if n not in self.spec["scenarios"]]
        if unknown:
            sys.exit(f"unknown scenarios {unknown}; the spec has {list(self.spec['scenarios'])}")
        self.scenario_names = names
        self.prefix = os.environ.get("SERVICE_NAME", f"corpus-{library}-{self.instrumentation}")
        self.model = self.spec["model"]
        self.system = self.spec["system"]
        self.base_url = os.environ["MODEL_BASE_URL"]
        self.resource = Resource.create({"service.name": self.prefix})
        endpoint = os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"].rstrip("/")
        self.tracer_provider = TracerProvider(resource=self.resource)
        self.tracer_provider.add_span_processor(_ScenarioResource(self))
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{endpoint}/v1/traces")))
        trace.set_tracer_provider(self.tracer_provider)
        self.logger_provider = LoggerProvider(resource=self.resource)
        self.logger_provider.add_log_record_processor(
            _ScenarioLogResource(self, SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"{endpoint}/v1/logs")))
        )
        set_logger_provider(self.logger_provider)

    def scenarios(self):
        """(name, scenario) in turn, each with its spans under SERVICE_NAME-<name>."""
        for name in self.scenario_names:
            self.resource = Resource.create({"service.name": f"{self.prefix}-{name}"})
            yield name, self.spec["scenarios"][name]
        self.resource = Resource.create({"service.name": self.prefix})

    def tool_definitions(self):
        """The tools as Chat Completions function definitions."""
        return [
            {"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["parameters"]}}
            for t in self.spec["tools"]
        ]

    def run_tool(self, name: str, order_id: str) -> str:
        """What the tool returns: a JSON object, as a string."""
        return json.dumps({"order_id": order_id, **self.spec["toolResults"][name]}, separators=(",", ":"))

    def shutdown(self):
        self.tracer_provider.shutdown()
        self.logger_provider.shutdown()
