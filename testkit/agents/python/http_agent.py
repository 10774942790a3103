"""A support agent served over HTTP, as a Python team would run one behind `sieve simulate` and
`sieve eval` (replay/DESIGN.md, "Over HTTP"): each turn POSTed as JSON, run under the request's
traceparent, the openai client traced by OpenInference (no Sieve SDK), a tool span for each tool it
runs, the trace flushed before the answer goes back as {"answer": ...}. Prints its URL once listening.

    http_agent.py

MODEL_BASE_URL: the OpenAI-compatible endpoint; OTEL_EXPORTER_OTLP_ENDPOINT: where traces go.
"""
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor
from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.propagate import extract
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

provider = TracerProvider(resource=Resource.create({"service.name": "support-python"}))
provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"{os.environ['OTEL_EXPORTER_OTLP_ENDPOINT']}/v1/traces")))
OpenAIInstrumentor().instrument(tracer_provider=provider)
tracer = provider.get_tracer("support-python")
client = OpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key="k", max_retries=0)

SYSTEM = "You are the support agent of Acme."
TOOLS = [{"type": "function", "function": {"name": "process_refund", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}}]


def run_tool(call):
    with tracer.start_as_current_span(f"execute_tool {call.function.name}", attributes={
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.function.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.call.arguments": call.function.arguments,
    }):
        return json.dumps({"status": "refunded"})


def answer_turn(body):
    messages = [{"role": "system", "content": SYSTEM}] + [{"role": m["role"], "content": m["content"]} for m in body["messages"]]
    while True:
        message = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS).choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append({"role": "assistant", "content": message.content, "tool_calls": [
            {"id": c.id, "type": "function", "function": {"name": c.function.name, "arguments": c.function.arguments}} for c in message.tool_calls]})
        for call in message.tool_calls:
            messages.append({"role": "tool", "tool_call_id": call.id, "content": run_tool(call)})


class Turn(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        attributes = {"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "support-python", "gen_ai.conversation.id": body["sieve"]["sessionId"]}
        with tracer.start_as_current_span("invoke_agent support-python", context=extract(dict(self.headers)), attributes=attributes):
            answer = answer_turn(body)
        provider.force_flush()
        payload = json.dumps({"answer": answer}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Turn)
print(f"listening on http://127.0.0.1:{server.server_address[1]}/turn", flush=True)
server.serve_forever()
