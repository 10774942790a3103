"""What init() set up, for the decorators and feedback() to read."""

from typing import Optional

from opentelemetry import trace

from ._config import Config

_config: Optional[Config] = None
_provider = None
_tracer = None
_owned = False


def set(config: Optional[Config], provider, owned: bool = False) -> None:
    """`owned`: the provider is init()'s to shut down, not the app's own."""
    global _config, _provider, _tracer, _owned
    _config, _provider, _owned = config, provider, owned
    _tracer = provider.get_tracer("sieve-sdk") if provider is not None else None


def config() -> Optional[Config]:
    return _config


def provider():
    return _provider


def owned() -> bool:
    return _owned


def capture() -> bool:
    return bool(_config and _config.capture_content)


def tracer():
    # Before init() (or with tracing off): the global tracer, a no-op unless the app set up its own.
    return _tracer or trace.get_tracer("sieve-sdk")
