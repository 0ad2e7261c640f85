"""Turning a model's tool call into a validated call: parse, validate, repair, refine.

A call is checked against the tools the model was offered. Its input is parsed as JSON (empty input is
``{}``) and validated against the tool's compiled schema. A call that fails carries
:class:`~toolplug.errors.NoSuchToolError` or :class:`~toolplug.errors.InvalidToolInputError`; a
``repair_tool_call`` function gets one chance to fix it (its own failure is a
:class:`~toolplug.errors.ToolCallRepairError`). A valid call may then be refined per tool. The result
is a new :class:`~toolplug.messages.ToolCallPart` that replaces the model's call everywhere; an invalid
one has ``invalid`` and ``dynamic`` set and the failure in ``error``.

:func:`format_tool_error` writes every error text the model reads: ``Name: message``, no stack trace.
"""

from __future__ import annotations

import inspect
import json
import reprlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

from toolplug.definitions import ToolKind
from toolplug.errors import (
    InvalidArgumentError,
    InvalidToolInputError,
    NoSuchToolError,
    ToolCallError,
    ToolCallRepairError,
    ToolChoiceViolationError,
    ToolInputRefineError,
)
from toolplug.execution import redact_arguments, redact_sensitive_text
from toolplug.messages import Message, SystemMessage, ToolCallPart
from toolplug.registry import RegisteredTool
from toolplug.schema import SchemaProblem
from toolplug.strict import strict_conversion

# --- tool choice ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolChoice:
    """Whether the model may, must or must not call tools, or which one it must call.

    Use :attr:`AUTO`, :attr:`REQUIRED`, :attr:`NONE` or :meth:`tool`; :meth:`parse` also accepts
    ``"auto"``, ``"required"``, ``"none"`` and ``{"type": "tool", "tool_name": ...}``.
    """

    mode: Literal["auto", "required", "none", "tool"]
    tool_name: str | None = None
    """The tool the model must call, for mode ``tool``."""

    AUTO: ClassVar[ToolChoice]
    REQUIRED: ClassVar[ToolChoice]
    NONE: ClassVar[ToolChoice]

    @classmethod
    def tool(cls, tool_name: str) -> ToolChoice:
        """The model must call ``tool_name``."""
        if not isinstance(tool_name, str) or not tool_name:
            raise InvalidArgumentError(
                "tool_choice", f"a named tool choice needs a tool name, got {tool_name!r}"
            )
        return cls("tool", tool_name)

    @classmethod
    def parse(cls, value: ToolChoiceLike) -> ToolChoice:
        """Normalise any accepted spelling; raises InvalidArgumentError for anything else."""
        if isinstance(value, ToolChoice):
            return value
        if value == "auto":
            return cls.AUTO
        if value == "required":
            return cls.REQUIRED
        if value == "none":
            return cls.NONE
        if isinstance(value, Mapping) and value.get("type") == "tool":
            return cls.tool(value.get("tool_name") or value.get("toolName"))  # type: ignore[arg-type]
        raise InvalidArgumentError(
            "tool_choice",
            f"{value!r} is not a tool choice; use 'auto', 'required', 'none' or ToolChoice.tool(name)",
        )

    def violation(self, call: ToolCallPart) -> ToolChoiceViolationError | None:
        """The error for a call this choice forbids, or None. Provider-executed calls are never checked."""
        if call.provider_executed:
            return None
        if self.mode == "none":
            return ToolChoiceViolationError(
                f"Model called tool {call.tool_name!r} although the tool choice is 'none'; "
                "the call was not executed.",
                tool_name=call.tool_name,
                tool_call_id=call.tool_call_id,
            )
        if self.mode == "tool" and call.tool_name != self.tool_name:
            return ToolChoiceViolationError(
                f"Model called tool {call.tool_name!r} although the tool choice requires {self.tool_name!r}; "
                "the call was not executed.",
                tool_name=call.tool_name,
                tool_call_id=call.tool_call_id,
            )
        return None


ToolChoice.AUTO = ToolChoice("auto")
ToolChoice.REQUIRED = ToolChoice("required")
ToolChoice.NONE = ToolChoice("none")

ToolChoiceLike: TypeAlias = ToolChoice | Literal["auto", "required", "none"] | Mapping[str, Any]

# --- error text -------------------------------------------------------------------------------------


def format_tool_error(error: BaseException) -> str:
    """The text a model reads for an error: ``Name: message``, never a stack trace."""
    name = error.error_name if isinstance(error, ToolCallError) else type(error).__name__
    message = str(error)
    return f"{name}: {message}" if message else name


# --- repair and refine ------------------------------------------------------------------------------


@dataclass(slots=True)
class ToolCallRepairContext:
    """What a repair function gets: the failed call, the offered tools, the error, the conversation."""

    tool_call: ToolCallPart
    tools: Mapping[str, RegisteredTool] | None
    """The tools the model was offered, by name (None when no tools were set)."""
    error: NoSuchToolError | InvalidToolInputError
    messages: Sequence[Message] = ()
    """The conversation of the step."""
    instructions: Sequence[SystemMessage] = ()
    """The step's instructions (system messages)."""

    def input_schema(self, tool_name: str) -> dict[str, Any] | None:
        """The JSON Schema of ``tool_name``'s input, or None for an unknown tool."""
        tool = None if self.tools is None else self.tools.get(tool_name)
        return None if tool is None else tool.definition.function.parameters


RepairResult: TypeAlias = "ToolCallPart | Awaitable[ToolCallPart | None] | None"
RepairToolCall: TypeAlias = Callable[[ToolCallRepairContext], RepairResult]
"""Returns a repaired call, or None to keep the error; may be async."""

RefineToolInput: TypeAlias = Callable[[Any], Any]
"""Returns a refined input for a valid call's input (may be async)."""


# --- parsing ----------------------------------------------------------------------------------------


async def parse_tool_call(
    call: ToolCallPart,
    tools: Mapping[str, RegisteredTool] | None,
    *,
    repair_tool_call: RepairToolCall | None = None,
    refine_tool_input: Mapping[str, RefineToolInput] | None = None,
    messages: Sequence[Message] = (),
    instructions: Sequence[SystemMessage] = (),
) -> ToolCallPart:
    """Parse and validate ``call`` against ``tools``; repair it once and refine it when asked.

    Never raises for a bad call: the returned call has ``invalid`` set and its error in ``error``.
    Cancelling the task cancels a pending repair or refine.
    """
    parsed = check_tool_call(call, tools)
    if parsed.invalid and repair_tool_call is not None and not call.provider_executed:
        parsed = await _repair(parsed, call, tools, repair_tool_call, messages, instructions)
    if not parsed.invalid and refine_tool_input and not parsed.provider_executed:
        refine = refine_tool_input.get(parsed.tool_name)
        if refine is not None and tools is not None:
            parsed = await _refine(parsed, tools[parsed.tool_name], refine)
    return parsed


def check_tool_call(call: ToolCallPart, tools: Mapping[str, RegisteredTool] | None) -> ToolCallPart:
    """Parse and validate ``call`` without repair or refine; returns a new call (invalid on failure)."""
    tool = None if tools is None else tools.get(call.tool_name)
    if tool is None:
        if call.provider_executed and call.dynamic:
            return _valid(call, None, _parse_lenient(call.input))
        available = None if tools is None else list(tools)
        return _invalid(call, NoSuchToolError(call.tool_name, available, tool_call_id=call.tool_call_id))
    definition = tool.definition
    if definition.kind is ToolKind.CUSTOM and isinstance(call.input, str):
        return _valid(call, tool, call.input)
    try:
        arguments = parse_input(call.input)
    except ValueError as exc:
        raw = call.input if isinstance(call.input, str) else repr(call.input)
        return _invalid(
            call,
            InvalidToolInputError(
                call.tool_name, raw, f"not valid JSON: {exc}", tool_call_id=call.tool_call_id
            ),
        )
    if definition.kind is ToolKind.PROVIDER_DEFINED and call.provider_executed:
        if not definition.metadata.get("has_input_schema"):
            return _valid(call, tool, arguments)
        arguments = _drop_undeclared(arguments, definition.function.parameters)
    if definition.function.strict and isinstance(arguments, dict):
        arguments = drop_strict_nulls(arguments, definition.function.parameters)
    try:
        valid = tool.validator.is_valid(arguments)
    except SchemaProblem as exc:  # the registry checks every schema; this is the last line of defence
        shown = _shown(arguments, tool.implementation.sensitive_argument_names)
        return _invalid(call, InvalidToolInputError(call.tool_name, shown, str(exc), tool_call_id=call.tool_call_id))
    if valid:
        return _valid(call, tool, arguments)
    return _invalid(call, _schema_error(tool, arguments, call.tool_call_id))


def drop_strict_nulls(arguments: dict[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """Undo the strict conversion on a model's arguments: exactly the nulls it added become absent.

    OpenAI's strict mode makes every property required and the optional ones nullable, so a model
    sends ``null`` for what it leaves out; the canonical schema says "absent". The conversion records
    the properties it made nullable (inside arrays, ``$ref`` targets and ``anyOf`` branches too), and
    only those nulls are dropped; a null the canonical schema itself accepts is kept. A schema without
    a strict form was sent without strict mode, so nothing is undone.
    """
    conversion = strict_conversion(schema)
    if not conversion.convertible:
        return arguments
    undone: dict[str, Any] = conversion.undo(arguments)
    return undone


def parse_input(raw: Any) -> Any:
    """A call's input as JSON: empty or missing input is ``{}``; a string is parsed; raises ValueError."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        text = raw.strip()
        try:
            return json.loads(text) if text else {}
        except RecursionError:
            raise ValueError("the JSON is nested too deeply") from None
    return raw


def _parse_lenient(raw: Any) -> Any:
    try:
        return parse_input(raw)
    except ValueError:
        return raw


def _schema_error(tool: RegisteredTool, arguments: Any, call_id: str) -> InvalidToolInputError:
    # The model reads this text: it repeats no value of a sensitive argument, as traces do not.
    sensitive = tool.implementation.sensitive_argument_names
    problems = "; ".join(tool.validator.problems(arguments)[:5]) or "does not match the schema"
    try:
        problems = redact_sensitive_text(problems, arguments, sensitive)
    except RecursionError:  # arguments too deep to search; say nothing that could quote them
        problems = "does not match the schema"
    return InvalidToolInputError(tool.name, _shown(arguments, sensitive), problems, tool_call_id=call_id)


def _shown(arguments: Any, sensitive: frozenset[str] = frozenset()) -> str:
    """The arguments as the model reads them in an error: sensitive values redacted, at most 500 characters."""
    try:
        redacted = redact_arguments(arguments, sensitive) if isinstance(arguments, Mapping) else arguments
        return json.dumps(redacted, ensure_ascii=False)[:500]
    except RecursionError:
        return "(arguments nested too deeply to show)"
    except (TypeError, ValueError):
        return reprlib.repr(redacted)[:500]


def _drop_undeclared(arguments: Any, schema: Mapping[str, Any]) -> Any:
    """Drop properties the schema does not declare, unless additionalProperties allows them."""
    if not isinstance(arguments, dict):
        return arguments
    additional = schema.get("additionalProperties")
    if additional is True or isinstance(additional, Mapping):
        return arguments
    declared = schema.get("properties") or {}
    return {key: value for key, value in arguments.items() if key in declared}


def _valid(call: ToolCallPart, tool: RegisteredTool | None, arguments: Any) -> ToolCallPart:
    definition = None if tool is None else tool.definition
    return ToolCallPart(
        call.tool_call_id,
        call.tool_name,
        arguments,
        provider_executed=call.provider_executed,
        dynamic=call.dynamic or (definition is not None and definition.kind is ToolKind.DYNAMIC),
        invalid=False,
        error=None,
        title=None if definition is None else definition.title,
        tool_metadata=None if definition is None or not definition.metadata else definition.metadata,
        provider_metadata=call.provider_metadata,
    )


def _invalid(call: ToolCallPart, error: ToolCallError) -> ToolCallPart:
    return ToolCallPart(
        call.tool_call_id,
        call.tool_name,
        call.input,
        provider_executed=call.provider_executed,
        dynamic=True,
        invalid=True,
        error=error,
        title=call.title,
        tool_metadata=call.tool_metadata,
        provider_metadata=call.provider_metadata,
    )


async def _repair(
    parsed: ToolCallPart,
    original: ToolCallPart,
    tools: Mapping[str, RegisteredTool] | None,
    repair_tool_call: RepairToolCall,
    messages: Sequence[Message],
    instructions: Sequence[SystemMessage],
) -> ToolCallPart:
    error = parsed.error
    if not isinstance(error, NoSuchToolError | InvalidToolInputError):
        return parsed
    context = ToolCallRepairContext(original, tools, error, messages, instructions)
    try:
        repaired = repair_tool_call(context)
        if inspect.isawaitable(repaired):
            repaired = await repaired
    except Exception as exc:  # the repair function is user code; its failure belongs to this call
        return _invalid(original, ToolCallRepairError(error, exc))
    if repaired is None:
        return parsed
    if not isinstance(repaired, ToolCallPart):
        cause = TypeError(f"repair_tool_call returned {type(repaired).__name__}, not a ToolCallPart or None")
        return _invalid(original, ToolCallRepairError(error, cause))
    return check_tool_call(repaired, tools)


async def _refine(call: ToolCallPart, tool: RegisteredTool, refine: RefineToolInput) -> ToolCallPart:
    try:
        refined = refine(call.input)
        if inspect.isawaitable(refined):
            refined = await refined
    except Exception as exc:  # the refine function is user code; its failure belongs to this call
        return _invalid(call, ToolInputRefineError(call.tool_name, call.tool_call_id, exc))
    if not tool.validator.is_valid(refined):
        return _invalid(call, _schema_error(tool, refined, call.tool_call_id))
    call.input = refined  # ``call`` is the parser's own copy, never the model's
    return call


__all__ = [
    "RefineToolInput",
    "RepairToolCall",
    "ToolCallRepairContext",
    "ToolChoice",
    "ToolChoiceLike",
    "check_tool_call",
    "drop_strict_nulls",
    "format_tool_error",
    "parse_input",
    "parse_tool_call",
]
