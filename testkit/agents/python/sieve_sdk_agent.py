"""A support agent traced with Sieve's Python helper (sdk/python), as a Python team would write it:
sieve.init(), the openai client instrumented by whichever GenAI instrumentation is installed, its
turn and its tools decorated, the user's thumbs-down sent as feedback.

MODEL_BASE_URL: the OpenAI-compatible endpoint; SIEVE_ENDPOINT: the Sieve. Prints one JSON line:
the trace id, the answer, the instrumentations turned on, and whether the feedback was stored.
"""
import json
import os

from openai import OpenAI

import sieve

started = sieve.init(service_name="py-support", agent_version="v3", prompt_version="refund-v4-broken", capture_content=True)
assert started.ok, started.error
client = OpenAI(base_url=os.environ["MODEL_BASE_URL"], api_key="k", max_retries=0)
TOOLS = [{"type": "function", "function": {"name": "process_refund", "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}}}}]


@sieve.trace_tool(description="Refund an order to the original payment method")
def process_refund(order_id):
    return {"order_id": order_id, "status": "refunded"}


@sieve.trace_agent("support-agent", user_id="C-17")
def support_turn(question):
    messages = [{"role": "system", "content": "You are the support agent of Acme."}, {"role": "user", "content": question}]
    first = client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS).choices[0].message
    call = first.tool_calls[0]
    result = process_refund(**json.loads(call.function.arguments))
    messages.append({"role": "assistant", "content": first.content, "tool_calls": [{"id": call.id, "type": "function", "function": {"name": call.function.name, "arguments": call.function.arguments}}]})
    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
    support_turn.trace_id = sieve.current_trace_id()
    return client.chat.completions.create(model="gpt-4o-mini", messages=messages, tools=TOOLS).choices[0].message.content


answer = support_turn("Please refund order A-1, it arrived 45 days ago.", sieve_session_id="py-session-1")
rated = sieve.feedback(support_turn.trace_id, -1, comment="refunded outside the policy", user_id="C-17")
sieve.shutdown()
print(json.dumps({"traceId": support_turn.trace_id, "answer": answer, "instrumentations": started.instrumentations, "feedback": rated.ok, "error": rated.message}))
