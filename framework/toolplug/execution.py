"""Running one tool call: the context a tool sees, results, traces with redaction, ToolExecutor.

The executor validates the arguments against the compiled schema before any tool code runs,
turns a :class:`ToolExecutionBlockedError` into a blocked call whose message the model reads, and any
other exception into ``Tool execution failed: ...``. Every call leaves a :class:`ToolTrace`
with sensitive arguments redacted; secret setting values are scrubbed from everything the call
produces — text, JSON, sources, error messages, logs and traces.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from toolplug.definitions import ConfidenceLevel, OutputType, Source, ToolExecutionResult
from toolplug.errors import (
    InvalidToolInputError,
    ToolExecutionBlockedError,
    ToolExecutionFailedError,
    ToolFailedError,
)

if TYPE_CHECKING:
    from toolplug.registry import RegisteredTool

logger = logging.getLogger("toolplug.execution")

REDACTED = "[redacted]"
FAILED_PREFIX = "Tool execution failed: "


class CallStatus(enum.StrEnum):
    """How a call ended, as traces and the CLI report it."""

    OK = "ok"
    ERROR = "error"
    BLOCKED = "blocked"
    DENIED = "denied"


@dataclass(frozen=True, slots=True)
class CallScope:
    """Who is calling: the component, and the provider whose model asked (None for a person)."""

    component: str = "chat"
    provider_id: str | None = None
    provider_confidence: ConfidenceLevel | None = None
    """None when no model is involved (a person calling a tool from the CLI)."""
    provider_trusted: bool = False
    """The provider is listed among the host's trusted provider ids."""
    model: str | None = None


@dataclass(slots=True)
class ToolExecutionContext:
    """What a tool may know about the call it is running."""

    tool_id: str
    call_id: str
    scope: CallScope
    settings: Mapping[str, Any]
    """The tool's effective settings: locked, then the user's, then defaults; secrets included."""
    messages: Sequence[Any] = ()
    """The conversation the model saw when it made this call (canonical messages)."""
    guard: Any = None
    """The host's prompt-injection guard (:class:`toolplug.guard.PromptInjectionGuard`)."""
    warnings: list[str] = field(default_factory=list)
    """User-visible warnings the tool adds with :meth:`warn`; they end up in the trace."""
    guard_reports: list[Any] = field(default_factory=list)
    """What the prompt-injection guard neutralised in this call (:class:`toolplug.guard.GuardReport`,
    one per guarded batch that found something); they end up in the trace."""

    @property
    def provider_confidence(self) -> ConfidenceLevel | None:
        """The confidence level of the provider whose model made the call."""
        return self.scope.provider_confidence

    @property
    def provider_trusted(self) -> bool:
        """True when the provider is one of the host's trusted provider ids."""
        return self.scope.provider_trusted

    def warn(self, message: str) -> None:
        """Record a warning the user should see (e.g. a filter that could not run)."""
        self.warnings.append(message)


@dataclass(slots=True)
class ToolTrace:
    """What happened in one call, safe to show and log."""

    tool_id: str
    call_id: str
    plugin: str
    arguments: dict[str, Any]
    """The arguments with sensitive ones replaced by ``[redacted]``."""
    status: CallStatus
    duration_ms: float
    result_chars: int
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    guard_reports: list[Any] = field(default_factory=list)
    """What the prompt-injection guard neutralised in the call's results, grouped by source
    (:class:`toolplug.guard.GuardReport`)."""

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return {
            "tool_id": self.tool_id,
            "call_id": self.call_id,
            "plugin": self.plugin,
            "arguments": self.arguments,
            "status": self.status.value,
            "duration_ms": round(self.duration_ms, 3),
            "result_chars": self.result_chars,
            "error": self.error,
            "warnings": list(self.warnings),
            "guard": [report.as_dict() for report in self.guard_reports],
        }


@dataclass(slots=True)
class ToolCallOutcome:
    """A finished call: the result for the model, its status and trace, and the original error."""

    result: ToolExecutionResult
    status: CallStatus
    trace: ToolTrace
    error: BaseException | None = None
    """The exception the tool raised, kept for the host (never sent to the model)."""

    @property
    def is_error(self) -> bool:
        """True for failed, blocked and denied calls."""
        return self.status is not CallStatus.OK

    @property
    def text(self) -> str:
        """The result as the model reads it."""
        return self.result.model_text()


def normalize_result(value: Any) -> ToolExecutionResult:
    """Turn what a tool returned into a ToolExecutionResult: ``str`` is text, anything else JSON."""
    if isinstance(value, ToolExecutionResult):
        return value
    if isinstance(value, str):
        return ToolExecutionResult(text_content=value)
    return ToolExecutionResult(json_content=value)


def redact_arguments(arguments: Mapping[str, Any], sensitive: frozenset[str]) -> dict[str, Any]:
    """A copy of ``arguments`` with every key in ``sensitive`` (at any depth) replaced."""
    if not sensitive:
        return dict(arguments)
    return {k: (REDACTED if k in sensitive else _redact_nested(v, sensitive)) for k, v in arguments.items()}


def _redact_nested(value: Any, sensitive: frozenset[str]) -> Any:
    if isinstance(value, Mapping):
        return redact_arguments(value, sensitive)
    if isinstance(value, list):
        return [_redact_nested(item, sensitive) for item in value]
    return value


class SecretScrubber:
    """Replaces known secret values wherever they appear in text or JSON."""

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Sequence[str]) -> None:
        # Longest first, so a secret that contains another is replaced whole.
        self._secrets = sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, value: str) -> str:
        """``value`` with every secret replaced by ``[redacted]``."""
        for secret in self._secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value

    def json(self, value: Any) -> Any:
        """A copy of a JSON value with every secret replaced in keys and strings."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.json(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.json(v) for v in value]
        return value

    def result(self, result: ToolExecutionResult) -> ToolExecutionResult:
        """A copy of ``result`` with every secret replaced."""
        return result.model_copy(
            update={
                "text_content": None if result.text_content is None else self.text(result.text_content),
                "json_content": self.json(result.json_content),
                "sources": [Source(url=self.text(s.url), title=self.text(s.title)) for s in result.sources],
                "content": None if result.content is None else self.json(result.content),
            }
        )


_NO_SECRETS = SecretScrubber(())

SettingsLookup = Callable[["RegisteredTool"], tuple[Mapping[str, Any], Sequence[str]]]
"""Returns a tool's effective settings and the values of its secret settings."""


def _no_settings(tool: RegisteredTool) -> tuple[Mapping[str, Any], Sequence[str]]:
    return {}, ()


class ToolExecutor:
    """Runs one validated tool call and records its trace.

    :param settings_lookup: gives a tool's effective settings and its secret values (the host passes
        :meth:`toolplug.settings.ToolSettingsService.for_execution`).
    :param guard: the prompt-injection guard handed to tools in their context.
    """

    def __init__(self, settings_lookup: SettingsLookup | None = None, guard: Any = None) -> None:
        self._settings_lookup = settings_lookup or _no_settings
        self.guard = guard

    def validate_arguments(self, tool: RegisteredTool, arguments: Any) -> dict[str, Any]:
        """Return the arguments when the schema accepts them; raise InvalidToolInputError otherwise."""
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidToolInputError(
                tool.name, repr(arguments)[:200], f"arguments must be a JSON object, not {type(arguments).__name__}"
            )
        if not tool.validator.is_valid(arguments):
            problems = "; ".join(tool.validator.problems(arguments)[:5])
            raise InvalidToolInputError(tool.name, repr(arguments)[:200], problems)
        return arguments

    async def execute(
        self,
        tool: RegisteredTool,
        arguments: Any,
        *,
        scope: CallScope = CallScope(),
        call_id: str = "",
        messages: Sequence[Any] = (),
        validated: bool = False,
        timeout: float | None = None,
    ) -> ToolCallOutcome:
        """Validate, run and trace one call.

        Raises :class:`InvalidToolInputError` for arguments the schema rejects (nothing runs);
        every failure of the tool itself becomes an outcome with status ``error`` or ``blocked``.
        ``timeout`` (seconds) overrides the tool's own ``timeout``.
        """
        if not validated:
            arguments = self.validate_arguments(tool, arguments)
        implementation = tool.implementation
        definition = tool.definition
        started = time.perf_counter()
        settings, secrets = self._settings_lookup(tool) if definition.settings_schema.fields else ({}, ())
        scrub = SecretScrubber(secrets) if secrets else _NO_SECRETS
        context = ToolExecutionContext(
            tool_id=definition.id, call_id=call_id, scope=scope, settings=settings, messages=messages, guard=self.guard
        )
        error: BaseException | None = None
        limit = timeout if timeout is not None else implementation.timeout
        try:
            minimum = definition.minimum_provider_confidence
            confidence = scope.provider_confidence
            if confidence is not None and confidence < minimum:
                raise ToolExecutionBlockedError(
                    f"Tool '{definition.id}' needs a provider with confidence {minimum.label} or higher; "
                    f"this provider has {confidence.label}."
                )
            if limit is None:
                raw = await implementation.execute(arguments, context)
            else:
                raw = await asyncio.wait_for(implementation.execute(arguments, context), limit)
            result = normalize_result(raw)
            if scrub:
                result = scrub.result(result)
            status = CallStatus.OK
        except (ToolExecutionBlockedError, ToolExecutionFailedError) as exc:
            # A refusal or an explained failure: the tool's own words (or result), no traceback.
            error = exc
            blocked = isinstance(exc, ToolExecutionBlockedError)
            status = CallStatus.BLOCKED if blocked else CallStatus.ERROR
            message = scrub.text(str(exc)) if scrub else str(exc)
            result = _explained_result(exc, message if blocked else FAILED_PREFIX + message)
            if scrub:
                result = scrub.result(result)
            if scrub and message != str(exc):
                error = ToolExecutionBlockedError(message) if blocked else ToolExecutionFailedError(message)
            if not blocked:
                logger.info("Tool %s (plugin %s) failed: %s", definition.id, tool.plugin, message)
        except Exception as exc:  # a tool's failure must never end the chat
            error = exc
            status = CallStatus.ERROR
            if isinstance(exc, TimeoutError) and limit is not None:
                detail = f"timed out after {limit} seconds"
            else:
                detail = str(exc) or type(exc).__name__
            message = FAILED_PREFIX + (scrub.text(detail) if scrub else detail)
            result = ToolExecutionResult(text_content=message, output_type=OutputType.ERROR_TEXT)
            details = "".join(traceback.format_exception(exc))
            logger.error(
                "Tool %s (plugin %s) failed: %s", definition.id, tool.plugin, scrub.text(details) if scrub else details
            )
            if scrub and scrub.text(str(exc)) != str(exc):
                # The original exception text holds a secret: keep only a scrubbed copy for the host.
                error = ToolFailedError(f"{type(exc).__name__}: {scrub.text(str(exc))}")
        duration_ms = (time.perf_counter() - started) * 1000.0
        trace_arguments = redact_arguments(arguments, implementation.sensitive_argument_names)
        if scrub:
            trace_arguments = scrub.json(trace_arguments)
        trace = ToolTrace(
            tool_id=definition.id,
            call_id=call_id,
            plugin=tool.plugin,
            arguments=trace_arguments,
            status=status,
            duration_ms=duration_ms,
            result_chars=len(result.text_content) if result.text_content is not None else len(result.model_text()),
            error=None if error is None else result.text_content,
            warnings=[scrub.text(w) for w in context.warnings] if scrub else context.warnings,
            guard_reports=list(context.guard_reports),
        )
        return ToolCallOutcome(result=result, status=status, trace=trace, error=error)


def _explained_result(exc: ToolExecutionBlockedError | ToolExecutionFailedError, message: str) -> ToolExecutionResult:
    """What the model reads for a refusal or an explained failure: the tool's result, else the message."""
    given = getattr(exc, "result", None)  # a subclass may not have called the base __init__
    if isinstance(given, ToolExecutionResult):
        return given
    return ToolExecutionResult(text_content=message, output_type=OutputType.ERROR_TEXT)


def denied_outcome(
    tool_id: str,
    call_id: str,
    plugin: str,
    arguments: Mapping[str, Any],
    reason: str | None,
    sensitive: frozenset[str] = frozenset(),
) -> ToolCallOutcome:
    """The outcome of a call the user (or an approval callback) refused; nothing ran."""
    text = reason or "Tool call execution denied."
    result = ToolExecutionResult(text_content=text, output_type=OutputType.EXECUTION_DENIED)
    trace = ToolTrace(
        tool_id=tool_id,
        call_id=call_id,
        plugin=plugin,
        arguments=redact_arguments(arguments, sensitive),
        status=CallStatus.DENIED,
        duration_ms=0.0,
        result_chars=len(text),
        error=text,
    )
    return ToolCallOutcome(result=result, status=CallStatus.DENIED, trace=trace)


__all__ = [
    "CallScope",
    "CallStatus",
    "SecretScrubber",
    "ToolCallOutcome",
    "ToolExecutionContext",
    "ToolExecutor",
    "ToolTrace",
    "denied_outcome",
    "normalize_result",
    "redact_arguments",
]
