"""The corpus's support agent as a LlamaIndex workflow agent (`FunctionAgent`, llama-index-core's
tool-calling agent, with llama-index-llms-openai's OpenAI), traced by OpenInference
(openinference-instrumentation-llama-index).

    llamaindex_agent.py openinference [scenario ...]

Sessions use LlamaIndex's own memory: one `Memory` (with the session's id) handed to every turn's
run, which resends the conversation so far. The session and user ids reach the spans through
OpenInference's `using_attributes`, as its users set them. FunctionAgent streams unless told not
to: the plain scenarios run it with `streaming=False`, the streamed one with `streaming=True`.
"""
import asyncio

from corpus_telemetry import Corpus

corpus = Corpus("llamaindex")

if corpus.instrumentation != "openinference":
    raise SystemExit(f"unknown instrumentation {corpus.instrumentation}")

from openinference.instrumentation import using_attributes
from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

LlamaIndexInstrumentor().instrument(tracer_provider=corpus.tracer_provider)

from contextlib import nullcontext

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.memory import Memory
from llama_index.core.tools import FunctionTool
from llama_index.llms.openai import OpenAI


def lookup_order(order_id: str) -> str:
    """Look up an order by its id."""
    return corpus.run_tool("lookup_order", order_id)


def process_refund(order_id: str) -> str:
    """Refund an order."""
    return corpus.run_tool("process_refund", order_id)


async def main():
    tools = [FunctionTool.from_defaults(fn=lookup_order), FunctionTool.from_defaults(fn=process_refund)]
    for name, scenario in corpus.scenarios():
        llm = OpenAI(model=corpus.model, api_base=corpus.base_url, api_key="corpus-key", max_retries=0)
        agent = FunctionAgent(name="support", tools=tools, llm=llm, system_prompt=corpus.system, streaming=scenario["stream"])
        session = scenario.get("session")
        memory = Memory.from_defaults(session_id=session["id"] if session else f"{corpus.prefix}-{name}", token_limit=40000)
        for turn in scenario["turns"]:
            context = using_attributes(session_id=session["id"], user_id=session["userId"]) if session else nullcontext()
            with context:
                handler = agent.run(user_msg=turn["user"], memory=memory)
                if scenario["stream"]:
                    async for _event in handler.stream_events():
                        pass
                await handler


asyncio.run(main())
corpus.shutdown()
