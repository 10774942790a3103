"""Sieve's Python helper: sends an agent's OpenTelemetry traces to Sieve.

    import sieve
    sieve.init(endpoint="http://localhost:4318", service_name="support-bot", capture_content=True)

    @sieve.trace_tool
    def check_order_status(order_id): ...

    @sieve.trace_agent("support-turn")
    def answer(question): ...   # model calls inside: the installed GenAI instrumentation's spans

    sieve.feedback(trace_id, -1, comment="refunded without asking")

It does not reinvent tracing: init() sets up OpenTelemetry's SDK with its OTLP/HTTP exporter and
turns on the OpenInference or OpenTelemetry GenAI instrumentations that are installed; the
decorators write the attributes the TypeScript SDK writes (attributes.py).
"""

import logging
from dataclasses import dataclass, field
from typing import List, Optional

from opentelemetry import trace
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

from . import _config, _instrument, _state
from ._config import SieveConfigError
from ._feedback import FeedbackResult, feedback
from ._spans import current_trace_id, trace_agent, trace_tool
from .attributes import GEN_AI, OTHER, SIEVE_ATTR

__version__ = "0.1.0"
__all__ = ["init", "flush", "shutdown", "trace_agent", "trace_tool", "feedback", "current_trace_id", "InitResult", "FeedbackResult", "SieveConfigError"]
log = logging.getLogger("sieve")


@dataclass(frozen=True)
class InitResult:
    ok: bool
    error: Optional[str] = None
    #: The instrumentation modules turned on (openinference.instrumentation.openai, ...).
    instrumentations: List[str] = field(default_factory=list)
    #: global: this helper's provider is the process's; joined: spans go through the app's own provider.
    mode: Optional[str] = None


def init(
    endpoint: Optional[str] = None,
    api_key: Optional[str] = None,
    service_name: Optional[str] = None,
    service_version: Optional[str] = None,
    environment: Optional[str] = None,
    agent_version: Optional[str] = None,
    prompt_version: Optional[str] = None,
    capture_content: Optional[bool] = None,
    instrument: bool = True,
) -> InitResult:
    """Sets up tracing to Sieve. Arguments win over SIEVE_* variables, which win over OTEL_* ones.
    Never raises: an invalid setting leaves tracing off and is returned (and logged)."""
    options = dict(endpoint=endpoint, api_key=api_key, service_name=service_name, service_version=service_version,
                   environment=environment, agent_version=agent_version, prompt_version=prompt_version, capture_content=capture_content)
    try:
        config = _config.resolve(options)
    except SieveConfigError as err:
        log.error("sieve: %s", err)
        return InitResult(False, error=str(err))
    resource = {OTHER["serviceName"]: config.service_name, OTHER["distroName"]: "sieve-sdk", OTHER["distroVersion"]: __version__}
    optional = {
        OTHER["serviceVersion"]: config.service_version,
        OTHER["environment"]: config.environment,
        SIEVE_ATTR["agentVersion"]: config.agent_version,
        SIEVE_ATTR["promptVersion"]: config.prompt_version,
    }
    resource.update({key: value for key, value in optional.items() if value})
    processor = BatchSpanProcessor(OTLPSpanExporter(endpoint=config.traces_url, headers=config.headers, timeout=config.timeout_s))
    existing = trace.get_tracer_provider()
    if isinstance(existing, TracerProvider):
        # The app set up OpenTelemetry already: its provider (and resource) stays, Sieve receives its spans too.
        existing.add_span_processor(processor)
        provider, mode = existing, "joined"
    else:
        provider = TracerProvider(resource=Resource.create(resource))
        provider.add_span_processor(processor)
        trace.set_tracer_provider(provider)
        mode = "global"
    _state.set(config, provider, owned=mode == "global")
    _instrument.content_settings(config.capture_content)
    turned_on = _instrument.instrument(provider) if instrument else []
    return InitResult(True, instrumentations=turned_on, mode=mode)


def flush(timeout_s: float = 5.0) -> bool:
    """Sends what is queued; True when it all went within the time."""
    provider = _state.provider()
    return provider.force_flush(int(timeout_s * 1000)) if provider is not None else True


def shutdown() -> None:
    """Flushes and stops the provider init() made (an app's own provider is left to the app)."""
    provider = _state.provider()
    if provider is not None:
        provider.shutdown() if _state.owned() else provider.force_flush()
    _state.set(None, None)
