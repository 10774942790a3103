"""The Python openai client traced by an ecosystem instrumentation (no Sieve SDK) and exported over
OTLP/HTTP protobuf, as a Python team would.

    openai_agent.py openinference|openllmetry|otel                 the two-turn support conversation
    openai_agent.py openinference|openllmetry|otel [scenario ...]   with CORPUS_SPEC: the corpus's scenarios

`otel` is OpenTelemetry's own instrumentation (opentelemetry-instrumentation-openai-v2); where it puts
the messages is OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT's (span_only: on the span;
event_only: a log record, exported to /v1/logs), which the caller sets.

MODEL_BASE_URL: the OpenAI-compatible endpoint; OTEL_EXPORTER_OTLP_ENDPOINT: where traces and logs go;
SERVICE_NAME: service.name (default support-<instrumentation>; in the corpus, the prefix of each
scenario's service name).

The corpus's scenarios (testkit/src/corpus.ts) run as a plain client app does: each turn is a span of
the app's own around the calls, resending the whole messages list; the model's tool calls are run and
their results appended until it answers in text. A session's ids are given the way each
instrumentation's users give them: OpenInference's `using_attributes` (session.id, user.id on its
spans); for OpenLLMetry, whose openai instrumentation reads none without Traceloop's SDK, the app's
turn span carries the association properties Traceloop's SDK would set
(traceloop.association.properties.session_id / user_id); for OpenTelemetry's own, the app's turn span
carries gen_ai.conversation.id and user.id.
"""
import json
import os
import sys

from openai import OpenAI
from opentelemetry import trace


def instrument(instrumentation, tracer_provider, logger_provider):
    if instrumentation == "openinference":
        from openinference.instrumentation.openai import OpenAIInstrumentor
    elif instrumentation == "otel":
        from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    elif instrumentation == "openllmetry":
        from opentelemetry.instrumentation.openai import OpenAIInstrumentor
    else:
        raise SystemExit(f"unknown instrumentation {instrumentation}")
    OpenAIInstrumentor().instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)


def completion(client, model, messages, tools, stream):
    """One model call: the assistant message as the app appends it (text and tool calls)."""
    if not stream:
        message = client.chat.completions.create(model=model, messages=messages, tools=tools).choices[0].message
        calls = [{"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}} for c in message.tool_calls or []]
        return {"role": "assistant", "content": message.content, **({"tool_calls": calls} if calls else {})}
    text, calls = "", {}
    for chunk in client.chat.completions.create(model=model, messages=messages, tools=tools, stream=True, stream_options={"include_usage": True}):
        for choice in chunk.choices:
            delta = choice.delta
            text += delta.content or ""
            for c in delta.tool_calls or []:
                call = calls.setdefault(c.index, {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                call["id"] = c.id or call["id"]
                if c.function:
                    call["function"]["name"] += c.function.name or ""
                    call["function"]["arguments"] += c.function.arguments or ""
    ordered = [calls[i] for i in sorted(calls)]
    return {"role": "assistant", "content": text or None, **({"tool_calls": ordered} if ordered else {})}


def corpus_main():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus"))
    from contextlib import nullcontext

    from corpus_telemetry import Corpus

    corpus = Corpus("openai")
    instrument(corpus.instrumentation, corpus.tracer_provider, corpus.logger_provider)
    client = OpenAI(base_url=corpus.base_url, api_key="corpus-key", max_retries=0)
    tools = corpus.tool_definitions()
    tracer = trace.get_tracer("support-app")
    for _name, scenario in corpus.scenarios():
        session = scenario.get("session")
        attributes, context = {}, nullcontext
        if session and corpus.instrumentation == "openinference":
            from openinference.instrumentation import using_attributes

            context = lambda: using_attributes(session_id=session["id"], user_id=session["userId"])
        elif session and corpus.instrumentation == "openllmetry":
            attributes = {"traceloop.association.properties.session_id": session["id"], "traceloop.association.properties.user_id": session["userId"]}
        elif session:
            attributes = {"gen_ai.conversation.id": session["id"], "user.id": session["userId"]}
        messages = [{"role": "system", "content": corpus.system}]
        for turn in scenario["turns"]:
            messages.append({"role": "user", "content": turn["user"]})
            with context(), tracer.start_as_current_span("support turn", attributes=attributes):
                for _ in range(5):
                    answer = completion(client, corpus.model, messages, tools, scenario["stream"])
                    messages.append(answer)
                    if not answer.get("tool_calls"):
                        break
                    for call in answer["tool_calls"]:
                        order_id = json.loads(call["function"]["arguments"])["order_id"]
                        messages.append({"role": "tool", "tool_call_id": call["id"], "content": corpus.run_tool(call["function"]["name"], order_id)})
    corpus.shutdown()


if "CORPUS_SPEC" in os.environ:
    corpus_main()
    sys.exit(0)

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

instrument(instrumentation, provider, logger_provider)

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
