"""The corpus's support agent with the OpenAI Agents SDK (openai-agents: an `Agent` with two
`function_tool`s, run by `Runner` over the Responses API, its default), traced by OpenInference
(openinference-instrumentation-openai-agents).

    openai_agents_agent.py openinference [scenario ...]

The SDK's own tracing is what OpenInference listens to, so it stays on; OpenInference's instrument()
replaces the SDK's trace processors with its own (`exclusive_processor`, its default), so nothing is
exported to OpenAI. (OPENAI_AGENTS_DISABLE_TRACING or set_tracing_disabled(True) would silence
OpenInference too: the SDK then creates no traces for any processor.)

Sessions use the SDK's own memory: a `SQLiteSession` (in memory) holding the conversation, which the
runner resends each turn; its id is also the run's `group_id` (the SDK's conversation grouping) and,
with the user id, reaches the spans through OpenInference's `using_attributes`.
"""
import asyncio

from corpus_telemetry import Corpus

corpus = Corpus("openai-agents")

if corpus.instrumentation != "openinference":
    raise SystemExit(f"unknown instrumentation {corpus.instrumentation}")

from openinference.instrumentation import using_attributes
from openinference.instrumentation.openai_agents import OpenAIAgentsInstrumentor

OpenAIAgentsInstrumentor().instrument(tracer_provider=corpus.tracer_provider)

from contextlib import nullcontext

from agents import Agent, RunConfig, Runner, SQLiteSession, function_tool, set_default_openai_client
from openai import AsyncOpenAI

set_default_openai_client(AsyncOpenAI(base_url=corpus.base_url, api_key="corpus-key", max_retries=0), use_for_tracing=False)


@function_tool
def lookup_order(order_id: str) -> str:
    """Look up an order by its id."""
    return corpus.run_tool("lookup_order", order_id)


@function_tool
def process_refund(order_id: str) -> str:
    """Refund an order."""
    return corpus.run_tool("process_refund", order_id)


agent = Agent(name="support", instructions=corpus.system, tools=[lookup_order, process_refund], model=corpus.model)


async def main():
    for name, scenario in corpus.scenarios():
        session = scenario.get("session")
        memory = SQLiteSession(session["id"]) if session else None
        run_config = RunConfig(group_id=session["id"] if session else None)
        for turn in scenario["turns"]:
            context = using_attributes(session_id=session["id"], user_id=session["userId"]) if session else nullcontext()
            with context:
                if scenario["stream"]:
                    result = Runner.run_streamed(agent, turn["user"], session=memory, run_config=run_config)
                    async for _event in result.stream_events():
                        pass
                else:
                    await Runner.run(agent, turn["user"], session=memory, run_config=run_config)


asyncio.run(main())
corpus.shutdown()
