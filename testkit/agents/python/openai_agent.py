"""A two-turn support conversation through the Python openai client, traced by an ecosystem
instrumentation (no Sieve SDK) and exported over OTLP/HTTP protobuf, as a Python team would.

    openai_agent.py openinference|openllmetry|otel

`otel` is OpenTelemetry's own instrumentation (opentelemetry-instrumentation-openai-v2); where it puts
the messages is OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT's (span_only: on the span;
event_only: a log record, exported to /v1/logs), which the caller sets.

MODEL_BASE_URL: the OpenAI-compatible endpoint; OTEL_EXPORTER_OTLP_ENDPOINT: where traces and logs go;
SERVICE_NAME: service.name (default support-<instrumentation>).
"""
import json
import os
import sys

from openai import OpenAI
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry._logs import set_logger_provider
from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor

SYSTEM = "You are the support agent of Acme."
FIRST = "Hi, I am ann@example.com. Please refund order A-1."
SECOND = "Thanks! When will I see the money?"

instrumentation = sys.argv[1]
provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("SERVICE_NAME", f"support-{instrumentation}")}))
provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{os.environ['OTEL_EXPORTER_OTLP_ENDPOINT']}/v1/traces")))
trace.set_tracer_provider(provider)
logger_provider = LoggerProvider(resource=provider.resource)
logger_provider.add_log_record_processor(SimpleLogRecordProcessor(OTLPLogExporter(endpoint=f"{os.environ['OTEL_EXPORTER_OTLP_ENDPOINT']}/v1/logs")))
set_logger_provider(logger_provider)

if instrumentation == "openinference":
    from openinference.instrumentation.openai import OpenAIInstrumentor
elif instrumentation == "otel":
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
else:
    from opentelemetry.instrumentation.openai import OpenAIInstrumentor
OpenAIInstrumentor().instrument(tracer_provider=provider, logger_provider=logger_provider)

client = OpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key="k", max_retries=0)
tools = [{"type": "function", "function": {"name": "process_refund", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}}]
messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": FIRST}]
tracer = trace.get_tracer("agent")

with tracer.start_as_current_span("turn 1"):
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools).choices[0].message
    call = first.tool_calls[0]
    messages.append({"role": "assistant", "content": first.content, "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.function.name, "arguments": call.function.arguments}}]})
    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps({"order_id": "A-1", "status": "refunded"}, separators=(",", ":"))})
    answer = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools).choices[0].message
    messages.append({"role": "assistant", "content": answer.content})

with tracer.start_as_current_span("turn 2"):
    messages.append({"role": "user", "content": SECOND})
    client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=tools)

provider.shutdown()
logger_provider.shutdown()
