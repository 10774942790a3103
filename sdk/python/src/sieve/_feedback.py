"""A user's judgement of a trace, `POST <endpoint>/v1/feedback`, with the body @sieve/protocol's
feedbackSchema validates. Never raises: the result says whether it was stored and, if not, why
(the TypeScript SDK's codes)."""

import json
import math
import re
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from typing import Mapping, Optional

from . import _config, _state

TRACE_ID = re.compile(r"^[0-9a-fA-F]{32}$")
SPAN_ID = re.compile(r"^[0-9a-fA-F]{16}$")
SOURCE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


@dataclass(frozen=True)
class FeedbackResult:
    ok: bool
    feedback_id: Optional[str] = None
    code: Optional[str] = None  # FEEDBACK_INVALID, FEEDBACK_REJECTED, FEEDBACK_UNREACHABLE, SDK_CONFIG_INVALID
    message: Optional[str] = None


def _problems(trace_id, score, source, span_id, comment) -> list:
    problems = []
    if not isinstance(trace_id, str) or not TRACE_ID.match(trace_id):
        problems.append(f"trace_id: must be 32 hex digits (16 bytes) (got {trace_id!r})")
    if span_id is not None and (not isinstance(span_id, str) or not SPAN_ID.match(span_id)):
        problems.append(f"span_id: must be 16 hex digits (8 bytes) (got {span_id!r})")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        problems.append(f"score: must be a finite number (got {score!r})")
    if source is not None and (not isinstance(source, str) or not SOURCE.match(source)):
        problems.append(f"source: must be 1-64 letters, digits, _ . - (got {source!r})")
    if comment is not None and (not isinstance(comment, str) or len(comment) > 10_000):
        problems.append("comment: must be a string of at most 10000 characters")
    return problems


def feedback(
    trace_id: str,
    score: float,
    *,
    comment: Optional[str] = None,
    source: Optional[str] = None,
    user_id: Optional[str] = None,
    span_id: Optional[str] = None,
    attributes: Optional[Mapping[str, str]] = None,
    feedback_id: Optional[str] = None,
) -> FeedbackResult:
    """Sends a thumbs (1 / -1), a rating or a comment on a trace. A feedback_id (random unless given) makes a resend idempotent."""
    problems = _problems(trace_id, score, source, span_id, comment)
    if problems:
        return FeedbackResult(False, code="FEEDBACK_INVALID", message="; ".join(problems))
    config = _state.config()
    if config is None:
        try:
            config = _config.resolve({})
        except _config.SieveConfigError as err:
            return FeedbackResult(False, code="SDK_CONFIG_INVALID", message=str(err))
    feedback_id = feedback_id or str(uuid.uuid4())
    body = {"traceId": trace_id.lower(), "score": score, "feedbackId": feedback_id}
    optional = {"comment": comment, "source": source, "userId": user_id, "spanId": span_id and span_id.lower(), "attributes": dict(attributes) if attributes else None}
    body.update({key: value for key, value in optional.items() if value is not None})
    request = urllib.request.Request(
        config.feedback_url, data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json", **config.headers}
    )
    try:
        with urllib.request.urlopen(request, timeout=config.timeout_s):
            return FeedbackResult(True, feedback_id=feedback_id)
    except urllib.error.HTTPError as err:
        text = err.read().decode("utf-8", "replace")
        try:
            text = json.loads(text).get("error", {}).get("message", text)
        except (ValueError, AttributeError):
            pass
        return FeedbackResult(False, code="FEEDBACK_REJECTED", message=f"HTTP {err.code}: {text}")
    except (urllib.error.URLError, OSError) as err:
        return FeedbackResult(False, code="FEEDBACK_UNREACHABLE", message=f"{config.feedback_url}: {err}")
