"""Turns on the GenAI instrumentations that are installed: for each library, OpenInference's when it
is there, else OpenTelemetry's own. Sieve reads either scheme (collector/README.md, "Traces from
other instrumentations"), so the helper adds no instrumentation of its own for model calls."""

import importlib
import os
from typing import List

# (library, [(module, class), ...] in order of preference)
CHOICES = [
    ("openai", [("openinference.instrumentation.openai", "OpenAIInstrumentor"), ("opentelemetry.instrumentation.openai_v2", "OpenAIInstrumentor")]),
    ("langchain", [("openinference.instrumentation.langchain", "LangChainInstrumentor")]),
    ("llama_index", [("openinference.instrumentation.llama_index", "LlamaIndexInstrumentor")]),
    ("openai_agents", [("openinference.instrumentation.openai_agents", "OpenAIAgentsInstrumentor")]),
]


def content_settings(capture: bool) -> None:
    """Content capture as each instrumentation reads it, where the user has not set it already."""
    if capture:
        # OpenTelemetry's own records messages only on the latest (experimental) conventions, when told where.
        os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
        os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "span_only")
    else:
        # OpenInference records content unless told not to; the GenAI conventions make it opt-in.
        for name in ("OPENINFERENCE_HIDE_INPUTS", "OPENINFERENCE_HIDE_OUTPUTS"):
            os.environ.setdefault(name, "true")


def instrument(tracer_provider) -> List[str]:
    """Instruments every library one of whose instrumentations is installed; returns their modules."""
    turned_on = []
    for _library, candidates in CHOICES:
        for module_name, class_name in candidates:
            try:
                instrumentor = getattr(importlib.import_module(module_name), class_name)()
            except ImportError:
                continue
            if not instrumentor.is_instrumented_by_opentelemetry:
                # Skips (and logs) when the library it instruments is missing or of another version.
                instrumentor.instrument(tracer_provider=tracer_provider)
            if instrumentor.is_instrumented_by_opentelemetry:
                turned_on.append(module_name)
                break
    return turned_on
