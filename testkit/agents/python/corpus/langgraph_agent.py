"""The corpus's support agent as a LangGraph agent (LangChain 1.x `create_agent`, the successor of
langgraph.prebuilt's `create_react_agent`, with langchain-openai's ChatOpenAI), traced by
OpenInference (openinference-instrumentation-langchain) or OpenLLMetry (Traceloop's
opentelemetry-instrumentation-langchain).

    langgraph_agent.py openinference|openllmetry [scenario ...]

Sessions use LangGraph's own memory: a checkpointer thread (`configurable.thread_id`) that resends the
conversation each turn. The session and user ids go in the run's metadata (`session_id`, `user_id`), as
LangChain users give them to their tracing (OpenLLMetry makes each metadata key a
`traceloop.association.properties.<key>`; OpenInference reads `session_id` and, for the user,
`using_attributes`).
"""
import os

os.environ.setdefault("LANGCHAIN_TRACING_V2", "false")
os.environ.setdefault("LANGSMITH_TRACING", "false")

from corpus_telemetry import Corpus

corpus = Corpus("langgraph")

if corpus.instrumentation == "openinference":
    from openinference.instrumentation import using_attributes
    from openinference.instrumentation.langchain import LangChainInstrumentor

    LangChainInstrumentor().instrument(tracer_provider=corpus.tracer_provider)
elif corpus.instrumentation == "openllmetry":
    from opentelemetry.instrumentation.langchain import LangchainInstrumentor

    LangchainInstrumentor().instrument(tracer_provider=corpus.tracer_provider, logger_provider=corpus.logger_provider)
else:
    raise SystemExit(f"unknown instrumentation {corpus.instrumentation}")

from contextlib import nullcontext

from langchain.agents import create_agent
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order by its id."""
    return corpus.run_tool("lookup_order", order_id)


@tool
def process_refund(order_id: str) -> str:
    """Refund an order."""
    return corpus.run_tool("process_refund", order_id)


def turn_context(session):
    if session and corpus.instrumentation == "openinference":
        return using_attributes(session_id=session["id"], user_id=session["userId"])
    return nullcontext()


for name, scenario in corpus.scenarios():
    model = ChatOpenAI(model=corpus.model, base_url=corpus.base_url, api_key="corpus-key", max_retries=0, stream_usage=True)
    session = scenario.get("session")
    agent = create_agent(
        model,
        [lookup_order, process_refund],
        system_prompt=corpus.system,
        checkpointer=InMemorySaver() if session else None,
        name="support",
    )
    config = {}
    if session:
        config = {"configurable": {"thread_id": session["threadId"]}, "metadata": {"session_id": session["id"], "user_id": session["userId"]}}
    for turn in scenario["turns"]:
        inputs = {"messages": [{"role": "user", "content": turn["user"]}]}
        with turn_context(session):
            if scenario["stream"]:
                for _chunk, _metadata in agent.stream(inputs, config, stream_mode="messages"):
                    pass
            else:
                agent.invoke(inputs, config)

corpus.shutdown()
