"""Running one tool call: the context a tool sees, results, traces with redaction, ToolExecutor.

The executor validates the arguments against the compiled schema before any tool code runs,
turns a :class:`ToolExecutionBlockedError` into a blocked call whose message the model reads, and any
other exception into ``Tool execution failed: ...``. Every call leaves a :class:`ToolTrace`
with sensitive arguments redacted; secret setting values are scrubbed from everything the call
produces — text, JSON, sources, error messages, logs and traces.
"""

from __future__ import annotations

import contextlib
import copy
import enum
import json
import logging
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic_core import PydanticSerializationError, to_jsonable_python

from toolplug import secrets as _secrets
from toolplug.definitions import ConfidenceLevel, OutputType, SettingKind, Source, ToolExecutionResult
from toolplug.errors import (
    InvalidToolInputError,
    ToolExecutionBlockedError,
    ToolExecutionFailedError,
    ToolResultError,
)
from toolplug.secrets import REDACTED, SecretScrubber, exception_chain, register_secrets, scrubber

if TYPE_CHECKING:
    from toolplug.registry import RegisteredTool

logger = logging.getLogger("toolplug.execution")

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
    """Turn what a tool returned into a ToolExecutionResult: ``str`` is text, anything else JSON.

    Values are serialised with pydantic's JSON mode (datetimes, enums, sets, pydantic models,
    dataclasses...). Raises :class:`ToolResultError` for bytes anywhere in a plain value (a model
    reads text; return a file content part for binary data) and for anything JSON cannot hold.
    """
    if isinstance(value, str):
        return ToolExecutionResult(text_content=value)
    if isinstance(value, ToolExecutionResult):
        update: dict[str, Any] = {}
        if value.json_content is not None:
            update["json_content"] = to_json_value(value.json_content)
        if value.content is not None:
            update["content"] = to_json_value(value.content, "the content parts")
        return value.model_copy(update=update) if update else value
    return ToolExecutionResult(json_content=to_json_value(value))


_JSON_SCALARS = (str, int, float, bool, type(None))
_JSON_SCALAR_TYPES = frozenset(_JSON_SCALARS)
_NO_SETTINGS: Mapping[str, Any] = MappingProxyType({})
_PLAIN_SCALARS = (str, int, bool, type(None))


def to_json_value(value: Any, what: str = "the value") -> Any:
    """``value`` as plain JSON (pydantic's JSON mode); raises :class:`ToolResultError` when it cannot be."""
    if type(value) in _PLAIN_SCALARS:
        return value
    path = _bytes_path(value)
    if path is not None:
        raise ToolResultError(
            f"the tool returned bytes in {what}{path}, which a model cannot read; return text, "
            "a JSON value, or a ToolExecutionResult with a file content part for binary data"
        )
    try:
        return to_jsonable_python(value, inf_nan_mode="null")
    except (PydanticSerializationError, ValueError, TypeError, RecursionError) as exc:
        raise ToolResultError(
            f"the tool returned {what} of type {type(value).__name__}, which cannot be serialised as JSON "
            f"({_first_line(exc)}); return text, a JSON value, a pydantic model or a ToolExecutionResult"
        ) from exc


def _bytes_path(value: Any, limit: int = 100_000) -> str | None:
    """Where a bytes value sits inside plain containers (`` at items[2]``), or None when there is none."""
    pending: list[tuple[Any, str]] = [(value, "")]
    seen = 0
    while pending and seen < limit:
        current, path = pending.pop()
        seen += 1
        if isinstance(current, bytes | bytearray | memoryview):
            return f" at {path}" if path else ""
        if isinstance(current, Mapping):
            pending.extend((item, f"{path}.{key}" if path else str(key)) for key, item in current.items())
        elif isinstance(current, list | tuple | set | frozenset):
            pending.extend((item, f"{path}[{index}]") for index, item in enumerate(current))
    return None


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


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


def sensitive_values(arguments: Any, sensitive: frozenset[str]) -> list[Any]:
    """The values held under a sensitive key, at any depth."""
    found: list[Any] = []
    pending = [arguments]
    while pending:
        current = pending.pop()
        if isinstance(current, Mapping):
            for key, value in current.items():
                if key in sensitive:
                    found.append(value)
                else:
                    pending.append(value)
        elif isinstance(current, list | tuple):
            pending.extend(current)
    return found


def redact_sensitive_text(text: str, arguments: Any, sensitive: frozenset[str]) -> str:
    """``text`` (a schema problem, an error message) without the values of sensitive arguments.

    Each value is replaced in its JSON and Python forms, as validators quote it.
    """
    if not sensitive:
        return text
    forms: set[str] = set()
    for value in sensitive_values(arguments, sensitive):
        for form in _quoted_forms(value):
            forms.add(form)
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, REDACTED)
    return text


def _quoted_forms(value: Any) -> list[str]:
    forms = [repr(value)]
    with contextlib.suppress(TypeError, ValueError):
        forms += [json.dumps(value), json.dumps(value, ensure_ascii=False), json.dumps(value, separators=(",", ":"))]
    if not isinstance(value, str):
        forms.append(str(value))
    return [form for form in forms if form]


def _copy_arguments(arguments: Any) -> Any:
    """A deep copy of JSON arguments, so a tool that mutates its own can never rewrite the recorded call."""
    if type(arguments) is not dict:
        return _copy_value(arguments)
    for value in arguments.values():
        if type(value) not in _JSON_SCALAR_TYPES:
            return _copy_value(arguments)
    return dict(arguments)  # the common case: flat arguments, a shallow copy is a deep one


def _copy_value(value: Any) -> Any:
    if type(value) in _JSON_SCALARS:
        return value
    if isinstance(value, dict):
        return {k: v if type(v) in _JSON_SCALARS else _copy_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [v if type(v) in _JSON_SCALARS else _copy_value(v) for v in value]
    return copy.deepcopy(value)


def scrub_result(scrub: SecretScrubber, result: ToolExecutionResult) -> ToolExecutionResult:
    """``result`` with every secret replaced in text, JSON, sources, content parts, display content and
    metadata (a copy only when something had to be replaced)."""
    update: dict[str, Any] = {}
    if result.text_content is not None and scrub.contains(result.text_content):
        update["text_content"] = scrub.text(result.text_content)
    if result.json_content is not None and scrub.contains_json(result.json_content):
        update["json_content"] = scrub.json(result.json_content)
    if any(scrub.contains(s.url) or scrub.contains(s.title) for s in result.sources):
        update["sources"] = [Source(url=scrub.text(s.url), title=scrub.text(s.title)) for s in result.sources]
    if result.content is not None and scrub.contains_json(result.content):
        update["content"] = scrub.json(result.content)
    if result.display_content is not None and scrub.contains_json(result.display_content):
        update["display_content"] = scrub.json(result.display_content)
    if result.metadata and scrub.contains_json(result.metadata):
        update["metadata"] = scrub.json(result.metadata)
    return result.model_copy(update=update) if update else result


SettingsLookup = Callable[["RegisteredTool"], tuple[Mapping[str, Any], Sequence[str]]]
"""Returns a tool's effective settings and the values of its secret settings."""


def _no_settings(tool: RegisteredTool) -> tuple[Mapping[str, Any], Sequence[str]]:
    return {}, ()


class ExecutorTimeoutError(TimeoutError):
    """The executor's own time limit ended the call (a tool's own TimeoutError is not one)."""

    def __init__(self, limit: float) -> None:
        super().__init__(f"timed out after {limit} seconds")
        self.limit = limit


class ToolExecutor:
    """Runs one validated tool call and records its trace.

    A tool receives a deep copy of its arguments, so the call recorded in the history and the trace is
    what the model sent. Everything a tool raises is that call's failure (``SystemExit`` and a
    ``TimeoutError`` of its own included), except ``KeyboardInterrupt`` and the cancellation of the
    task running the call, which always reach the host. What it returns is serialised with pydantic's
    JSON mode, or the call fails with a clear message.

    :param settings_lookup: gives a tool's effective settings and its secret values (the host passes
        :meth:`toolplug.settings.ToolSettingsService.for_execution`).
    :param guard: the prompt-injection guard handed to tools in their context.
    """

    def __init__(self, settings_lookup: SettingsLookup | None = None, guard: Any = None) -> None:
        self._settings_lookup = settings_lookup or _no_settings
        self.guard = guard

    def validate_arguments(self, tool: RegisteredTool, arguments: Any) -> dict[str, Any]:
        """Return the arguments when the schema accepts them; raise InvalidToolInputError otherwise.

        The error's text never repeats the values of the tool's sensitive arguments.
        """
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise InvalidToolInputError(
                tool.name, repr(arguments)[:200], f"arguments must be a JSON object, not {type(arguments).__name__}"
            )
        if not tool.validator.is_valid(arguments):
            sensitive = tool.implementation.sensitive_argument_names
            problems = "; ".join(tool.validator.problems(arguments)[:5])
            shown = repr(redact_arguments(arguments, sensitive))[:200]
            raise InvalidToolInputError(tool.name, shown, redact_sensitive_text(problems, arguments, sensitive))
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
        started = time.perf_counter()
        context = ToolExecutionContext(
            tool_id=tool.definition.id, call_id=call_id, scope=scope, settings=_NO_SETTINGS, messages=messages,
            guard=self.guard,
        )
        limit = timeout if timeout is not None else tool.implementation.timeout
        error: BaseException | None = None
        try:
            if tool.definition.settings_schema.fields or scope.provider_confidence is not None:
                self._prepare(tool, context)
            if limit is None:
                raw = await tool.implementation.execute(_copy_arguments(arguments), context)
            else:
                raw = await self._run_with_limit(tool, _copy_arguments(arguments), context, limit)
            result = normalize_result(raw)
            status = CallStatus.OK
        except (ToolExecutionBlockedError, ToolExecutionFailedError) as exc:
            # A refusal or an explained failure: the tool's own words (or result), no traceback.
            error, result = exc, _explained_result(tool, exc)
            status = CallStatus.BLOCKED if isinstance(exc, ToolExecutionBlockedError) else CallStatus.ERROR
        except BaseException as exc:  # a tool's failure, SystemExit included, must never end the chat
            if isinstance(exc, KeyboardInterrupt | GeneratorExit) or _cancels_this_call(exc):
                raise  # the host's Ctrl-C, a closing coroutine, the call's own cancellation
            error, status, result = exc, CallStatus.ERROR, self._failure(tool, exc)
        return self._outcome(tool, arguments, context, result, status, error, started)

    def _prepare(self, tool: RegisteredTool, context: ToolExecutionContext) -> None:
        """The checks before the tool runs (its provider's confidence) and its settings, secrets registered."""
        definition = tool.definition
        minimum = definition.minimum_provider_confidence
        confidence = context.scope.provider_confidence
        if confidence is not None and confidence < minimum:
            raise ToolExecutionBlockedError(
                f"Tool '{definition.id}' needs a provider with confidence {minimum.label} or higher; "
                f"this provider has {confidence.label}."
            )
        if definition.settings_schema.fields:
            settings, secrets = self._settings_lookup(tool)
            if secrets:
                register_secrets(secrets)
            context.settings = settings

    @staticmethod
    async def _run_with_limit(
        tool: RegisteredTool, arguments: Any, context: ToolExecutionContext, limit: float
    ) -> Any:
        import asyncio  # a call runs on asyncio, so this is loaded already; start-up does not pay for it

        deadline = asyncio.timeout(limit)
        try:
            async with deadline:
                return await tool.implementation.execute(arguments, context)
        except TimeoutError:
            if deadline.expired():
                raise ExecutorTimeoutError(limit) from None
            raise

    @staticmethod
    def _failure(tool: RegisteredTool, exc: BaseException) -> ToolExecutionResult:
        if isinstance(exc, Exception):
            detail = str(exc) or type(exc).__name__
        else:
            detail = f"the tool raised {type(exc).__name__}" + (f": {exc}" if str(exc) else "")
        details = scrubber().text("".join(traceback.format_exception(exc)))
        logger.error("Tool %s (plugin %s) failed: %s", tool.definition.id, tool.plugin, details)
        return ToolExecutionResult(text_content=FAILED_PREFIX + detail, output_type=OutputType.ERROR_TEXT)

    @staticmethod
    def _outcome(
        tool: RegisteredTool,
        arguments: dict[str, Any],
        context: ToolExecutionContext,
        result: ToolExecutionResult,
        status: CallStatus,
        error: BaseException | None,
        started: float,
    ) -> ToolCallOutcome:
        duration_ms = (time.perf_counter() - started) * 1000.0
        sensitive = tool.implementation.sensitive_argument_names
        trace_arguments = redact_arguments(arguments, sensitive) if sensitive else dict(arguments)
        warnings = context.warnings
        scrub = _secrets._scrubber  # the process-wide scrubber, read without a call on this hot path
        if scrub.active:
            result = scrub_result(scrub, result)
            if scrub.contains_json(trace_arguments):
                trace_arguments = scrub.json(trace_arguments)
            warnings = [scrub.text(w) for w in warnings]
            if error is not None:
                error = _without_secrets(error, scrub, _has_secret_settings(tool))
        trace = ToolTrace(
            tool_id=tool.definition.id,
            call_id=context.call_id,
            plugin=tool.plugin,
            arguments=trace_arguments,
            status=status,
            duration_ms=duration_ms,
            result_chars=len(result.text_content) if result.text_content is not None else len(result.model_text()),
            error=None if error is None else result.text_content,
            warnings=warnings,
            guard_reports=context.guard_reports,
        )
        return ToolCallOutcome(result=result, status=status, trace=trace, error=error)


def _cancels_this_call(error: BaseException) -> bool:
    """True when ``error`` is the cancellation of the task running the call (not a tool's own)."""
    import asyncio

    if not isinstance(error, asyncio.CancelledError):
        return False
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


def _has_secret_settings(tool: RegisteredTool) -> bool:
    return any(f.kind is SettingKind.SECRET for f in tool.definition.settings_schema.fields)


def _without_secrets(error: BaseException, scrub: SecretScrubber, had_secrets: bool) -> BaseException:
    """The error to keep for the host: a scrubbed copy when its chain holds a secret.

    A tool that has secret settings may hold them in its frames' local variables, so the
    tracebacks of its exception chain are dropped too (the log has the scrubbed traceback).
    """
    clean = scrub.exception(error)
    if clean is error and had_secrets:
        for link in exception_chain(error):
            link.__traceback__ = None
    return clean


def _explained_result(
    tool: RegisteredTool, exc: ToolExecutionBlockedError | ToolExecutionFailedError
) -> ToolExecutionResult:
    """What the model reads for a refusal or an explained failure: the tool's result, else the message."""
    blocked = isinstance(exc, ToolExecutionBlockedError)
    message = str(exc) if blocked else FAILED_PREFIX + str(exc)
    if not blocked:
        logger.info("Tool %s (plugin %s) failed: %s", tool.definition.id, tool.plugin, scrubber().text(str(exc)))
    given = getattr(exc, "result", None)  # a subclass may not have called the base __init__
    if isinstance(given, ToolExecutionResult):
        try:
            return normalize_result(given)
        except ToolResultError as problem:
            message += f" (its result could not be used: {problem})"
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
    scrub = scrubber()
    text = scrub.text(reason or "Tool call execution denied.")
    result = ToolExecutionResult(text_content=text, output_type=OutputType.EXECUTION_DENIED)
    trace = ToolTrace(
        tool_id=tool_id,
        call_id=call_id,
        plugin=plugin,
        arguments=scrub.json(redact_arguments(arguments, sensitive)),
        status=CallStatus.DENIED,
        duration_ms=0.0,
        result_chars=len(text),
        error=text,
    )
    return ToolCallOutcome(result=result, status=CallStatus.DENIED, trace=trace)


__all__ = [
    "CallScope",
    "CallStatus",
    "ExecutorTimeoutError",
    "SecretScrubber",
    "ToolCallOutcome",
    "ToolExecutionContext",
    "ToolExecutor",
    "ToolTrace",
    "denied_outcome",
    "normalize_result",
    "redact_arguments",
    "redact_sensitive_text",
    "scrub_result",
    "to_json_value",
]
