"""The helper's settings: init() arguments win over SIEVE_* variables, which win over the standard
OTEL_* ones, as in the TypeScript SDK. Checked once; a problem names the setting, the rule and the
value given."""

import os
import re
from dataclasses import dataclass
from typing import Dict, Mapping, Optional

# The environment variables each setting reads, first one set wins.
ENV = {
    "endpoint": ("SIEVE_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT"),
    "api_key": ("SIEVE_API_KEY",),
    "service_name": ("SIEVE_SERVICE_NAME", "OTEL_SERVICE_NAME"),
    "service_version": ("SIEVE_SERVICE_VERSION",),
    "environment": ("SIEVE_ENVIRONMENT",),
    "agent_version": ("SIEVE_AGENT_VERSION",),
    "prompt_version": ("SIEVE_PROMPT_VERSION",),
    "capture_content": ("SIEVE_CAPTURE_CONTENT",),
}
TRUE, FALSE = ("true", "1", "yes"), ("false", "0", "no")
URL = re.compile(r"^https?://[^\s/]+(/\S*)?$")


class SieveConfigError(ValueError):
    """Every problem with the settings, one line each."""

    def __init__(self, problems):
        self.problems = problems
        super().__init__("Invalid Sieve settings:\n" + "\n".join(f"  - {p}" for p in problems))


@dataclass(frozen=True)
class Config:
    endpoint: str
    headers: Dict[str, str]
    service_name: str
    service_version: Optional[str]
    environment: Optional[str]
    agent_version: Optional[str]
    prompt_version: Optional[str]
    capture_content: bool
    timeout_s: float = 10.0

    @property
    def traces_url(self) -> str:
        return f"{self.endpoint}/v1/traces"

    @property
    def feedback_url(self) -> str:
        return f"{self.endpoint}/v1/feedback"


def resolve(options: Mapping[str, object], env: Mapping[str, str] = os.environ) -> Config:
    values, source = {}, {}
    for key, names in ENV.items():
        name = next((n for n in names if env.get(n, "").strip()), None)
        if name:
            values[key], source[key] = env[name].strip(), name
    for key, value in options.items():
        if value is not None:
            values[key], source[key] = value, f"init({key}=...)"
    problems = []

    def problem(key, rule):
        problems.append(f"{source[key]}: {rule} (got {values[key]!r})")

    endpoint = str(values.get("endpoint", "http://localhost:4318")).rstrip("/")
    if "endpoint" in values and not URL.match(endpoint):
        problem("endpoint", "must be an http(s) URL such as http://localhost:4318")
    for key in ("api_key", "service_name", "service_version", "environment", "agent_version", "prompt_version"):
        if key in values and (not isinstance(values[key], str) or not values[key].strip()):
            problem(key, "must be a non-empty string")
    capture = values.get("capture_content", False)
    if isinstance(capture, str):
        if capture.lower() not in TRUE + FALSE:
            problem("capture_content", "must be true or false")
        capture = capture.lower() in TRUE
    elif not isinstance(capture, bool):
        problem("capture_content", "must be true or false")
    if problems:
        raise SieveConfigError(problems)
    headers = {"Authorization": f"Bearer {values['api_key']}"} if "api_key" in values else {}
    return Config(
        endpoint=endpoint,
        headers=headers,
        service_name=values.get("service_name") or _resource_service_name(env) or "unknown_service:python",
        service_version=values.get("service_version"),
        environment=values.get("environment"),
        agent_version=values.get("agent_version"),
        prompt_version=values.get("prompt_version"),
        capture_content=bool(capture),
    )


def _resource_service_name(env: Mapping[str, str]) -> Optional[str]:
    for pair in env.get("OTEL_RESOURCE_ATTRIBUTES", "").split(","):
        key, _, value = pair.partition("=")
        if key.strip() == "service.name" and value.strip():
            return value.strip()
    return None
