"""Agent and tool spans with the attributes the TypeScript SDK writes (sdk/src/agent.ts, tool.ts):
`invoke_agent {name}` and `execute_tool {name}`, INTERNAL, names from attributes.py. Recording
never raises into the agent: a problem in it is logged once and the call goes on unchanged."""

import functools
import inspect
import json
import logging
from contextlib import contextmanager
from typing import Any, Callable, Mapping, Optional

from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from . import _state
from .attributes import GEN_AI, OTHER, SIEVE_ATTR

log = logging.getLogger("sieve")
_reported = set()


def _report_once(where: str, err: BaseException) -> None:
    if where not in _reported:
        _reported.add(where)
        log.warning("sieve: instrumentation error in %s (the traced call is unaffected): %s", where, err)


def as_text(value: Any) -> str:
    """Strings as they are, anything else as JSON (or its str() where JSON cannot say it)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, default=str, separators=(",", ":"))
    except (TypeError, ValueError):
        return str(value)


def _messages(role: str, text: str, finish_reason: Optional[str] = None) -> str:
    message = {"role": role, "parts": [{"type": "text", "content": text}]}
    if finish_reason:
        message["finish_reason"] = finish_reason
    return json.dumps([message], ensure_ascii=False)


def _end_with_error(span, err: BaseException) -> None:
    span.set_attribute(OTHER["errorType"], type(err).__name__)
    span.record_exception(err)
    span.set_status(Status(StatusCode.ERROR, str(err)))


def _traced(fn: Callable, open_span: Callable[[tuple, dict], Any], on_value: Callable[[Any, Any], None]) -> Callable:
    """`fn` run inside the span `open_span(args, kwargs)` gives, sync or async; returns or raises what `fn` does."""

    def start(args, kwargs):
        try:
            return open_span(args, kwargs)
        except Exception as err:  # the agent must run whatever happens here
            _report_once(fn.__qualname__, err)
            return None

    def finish(span, value):
        try:
            on_value(span, value)
        except Exception as err:
            _report_once(fn.__qualname__, err)

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def run_async(*args, **kwargs):
            span = start(args, kwargs)
            if span is None:
                return await fn(*args, **kwargs)
            with trace.use_span(span, end_on_exit=True, record_exception=False, set_status_on_exception=False):
                try:
                    value = await fn(*args, **kwargs)
                except BaseException as err:
                    _end_with_error(span, err)
                    raise
                finish(span, value)
                return value

        return run_async

    @functools.wraps(fn)
    def run(*args, **kwargs):
        span = start(args, kwargs)
        if span is None:
            return fn(*args, **kwargs)
        with trace.use_span(span, end_on_exit=True, record_exception=False, set_status_on_exception=False):
            try:
                value = fn(*args, **kwargs)
            except BaseException as err:
                _end_with_error(span, err)
                raise
            finish(span, value)
            return value

    return run


def trace_agent(
    name: str,
    *,
    session_id: Optional[str] = None,
    user_id: Optional[str] = None,
    agent_id: Optional[str] = None,
    description: Optional[str] = None,
    agent_version: Optional[str] = None,
    prompt_version: Optional[str] = None,
    attributes: Optional[Mapping[str, Any]] = None,
) -> Callable[[Callable], Callable]:
    """Decorates one agent invocation: an `invoke_agent {name}` span whose children are the model and
    tool spans inside. With content capture on, a first positional string argument is recorded as the
    user's input and a string result as the answer. A call may pass `sieve_session_id=` and
    `sieve_user_id=` (taken out before the function sees its arguments) when they differ per call."""

    def decorate(fn: Callable) -> Callable:
        def open_span(args, kwargs):
            # First, so that the function never sees them even when what follows fails.
            call_session, call_user = kwargs.pop("sieve_session_id", None), kwargs.pop("sieve_user_id", None)
            config = _state.config()
            attrs = {**(attributes or {}), GEN_AI["operationName"]: "invoke_agent", GEN_AI["agentName"]: name}
            chosen = {
                GEN_AI["agentId"]: agent_id,
                GEN_AI["agentDescription"]: description,
                GEN_AI["agentVersion"]: agent_version or (config and config.agent_version),
                SIEVE_ATTR["promptVersion"]: prompt_version or (config and config.prompt_version),
                GEN_AI["conversationId"]: call_session or session_id,
                OTHER["userId"]: call_user or user_id,
            }
            attrs.update({key: value for key, value in chosen.items() if value})
            if _state.capture() and args and isinstance(args[0], str):
                attrs[GEN_AI["inputMessages"]] = _messages("user", args[0])
            return _state.tracer().start_span(f"invoke_agent {name}", kind=SpanKind.INTERNAL, attributes=attrs)

        def on_value(span, value):
            if _state.capture() and isinstance(value, str):
                span.set_attribute(GEN_AI["outputMessages"], _messages("assistant", value, "stop"))

        return _traced(fn, open_span, on_value)

    return decorate


def trace_tool(name_or_fn=None, *, description: Optional[str] = None, type: str = "function") -> Callable:
    """Decorates a tool: each call is an `execute_tool {name}` span with its arguments and result (with
    content capture on) or its error. `@trace_tool` names it after the function; `@trace_tool("name")`."""

    def decorate(fn: Callable, name: str) -> Callable:
        signature = inspect.signature(fn)

        def arguments(args, kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:
                return {"args": list(args), **kwargs}
            named = {key: value for key, value in bound.arguments.items() if key not in ("self", "cls")}
            # One argument that is already the arguments object (a dict of the model's call): itself.
            if len(named) == 1 and isinstance(next(iter(named.values())), dict):
                return next(iter(named.values()))
            return named

        def open_span(args, kwargs):
            attrs = {GEN_AI["operationName"]: "execute_tool", GEN_AI["toolName"]: name, GEN_AI["toolType"]: type}
            if description:
                attrs[GEN_AI["toolDescription"]] = description
            if _state.capture():
                attrs[GEN_AI["toolCallArguments"]] = as_text(arguments(args, kwargs))
            return _state.tracer().start_span(f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=attrs)

        def on_value(span, value):
            if _state.capture() and value is not None:
                span.set_attribute(GEN_AI["toolCallResult"], as_text(value))

        return _traced(fn, open_span, on_value)

    if callable(name_or_fn):
        return decorate(name_or_fn, name_or_fn.__name__)
    return lambda fn: decorate(fn, name_or_fn or fn.__name__)


def current_trace_id() -> Optional[str]:
    """The active trace's id (32 hex digits), to attach feedback later; None outside any trace."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None
