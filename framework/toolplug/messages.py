"""The canonical conversation: messages and their parts, pruning, and conversion from UI messages.

Every provider adapter translates these types to and from its wire format; the loop reads and writes
nothing else. A part's ``provider_metadata`` holds what a provider needs back unchanged (reasoning
item ids, thinking-block signatures, encrypted content) and is replayed exactly as received.

The types are slotted dataclasses, not pydantic models: the loop builds several of them per tool call
and the conversation is the hot path. Nothing here mutates a message it was given.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias, cast

from toolplug.definitions import OutputType
from toolplug.errors import InvalidArgumentError

ProviderMetadata: TypeAlias = dict[str, Any]
"""Provider-specific data keyed by provider name (``{"anthropic": {"signature": ...}}``)."""

# --- parts -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class TextPart:
    """Text written by a person or a model."""

    text: str
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "text"


@dataclass(slots=True)
class ReasoningPart:
    """A model's reasoning (thinking). Signatures and encrypted content live in provider_metadata."""

    text: str
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "reasoning"


@dataclass(slots=True)
class FilePart:
    """A file: ``data`` is a URL, a base64 string or raw bytes."""

    data: str | bytes
    media_type: str
    filename: str | None = None
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "file"


@dataclass(slots=True)
class ReasoningFilePart:
    """A file a model produced as part of its reasoning."""

    data: str | bytes
    media_type: str
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "reasoning-file"


@dataclass(slots=True)
class ToolCallPart:
    """A tool call from the model, as parsed and validated by :mod:`toolplug.calls`.

    ``input`` is the parsed JSON arguments; for a call whose input could not be parsed it is the raw
    text the model sent. A repaired or refined call replaces the model's one everywhere.
    """

    tool_call_id: str
    tool_name: str
    input: Any
    provider_executed: bool = False
    """The provider ran (or will run) this call itself; toolplug never executes it."""
    dynamic: bool = False
    """The tool is dynamic, or the call is invalid (see :attr:`invalid`)."""
    invalid: bool = False
    """The call failed parsing or validation; it is never executed and is answered with an error."""
    error: BaseException | None = None
    """Why the call is invalid (NoSuchToolError, InvalidToolInputError, ToolCallRepairError)."""
    title: str | None = None
    """The tool's title, copied from its definition."""
    tool_metadata: dict[str, Any] | None = None
    """The tool's metadata, copied from its definition; apart from provider_metadata."""
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "tool-call"


@dataclass(slots=True)
class ToolResultPart:
    """The result of one tool call, correlated by ``tool_call_id``.

    ``output`` is a string for text, error-text and execution-denied outputs (the reason, or None),
    a JSON value for json and error-json, and a list of content parts for content.
    """

    tool_call_id: str
    tool_name: str
    output: Any
    output_type: OutputType = OutputType.TEXT
    provider_executed: bool = False
    """A result the provider produced for its own call (kept in the assistant turn)."""
    dynamic: bool = False
    title: str | None = None
    tool_metadata: dict[str, Any] | None = None
    provider_metadata: ProviderMetadata | None = None
    """Options of the message part (for example a cache breakpoint)."""
    output_provider_metadata: ProviderMetadata | None = None
    """Options of the output itself; they win over provider_metadata where both set the same thing."""
    type: ClassVar[str] = "tool-result"

    @property
    def is_error(self) -> bool:
        """True for error-text, error-json and execution-denied outputs."""
        return self.output_type.is_error


@dataclass(slots=True)
class ToolApprovalRequestPart:
    """A request to approve a tool call before it runs (kept in the assistant turn; never sent)."""

    approval_id: str
    tool_call_id: str
    is_automatic: bool = False
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "tool-approval-request"


@dataclass(slots=True)
class ToolApprovalResponsePart:
    """The answer to an approval request. Only responses with ``provider_executed`` reach a model."""

    approval_id: str
    approved: bool
    reason: str | None = None
    provider_executed: bool = False
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "tool-approval-response"


UserPart: TypeAlias = TextPart | FilePart
AssistantPart: TypeAlias = (
    TextPart
    | ReasoningPart
    | ReasoningFilePart
    | FilePart
    | ToolCallPart
    | ToolResultPart
    | ToolApprovalRequestPart
)
ToolPart: TypeAlias = ToolResultPart | ToolApprovalResponsePart
Part: TypeAlias = AssistantPart | ToolPart

# --- messages --------------------------------------------------------------------------------------


@dataclass(slots=True)
class SystemMessage:
    """Instructions for the model."""

    content: str
    provider_metadata: ProviderMetadata | None = None
    role: ClassVar[Literal["system"]] = "system"


@dataclass(slots=True)
class UserMessage:
    """What a person said: a string, or text and file parts."""

    content: str | list[UserPart]
    provider_metadata: ProviderMetadata | None = None
    role: ClassVar[Literal["user"]] = "user"

    @property
    def parts(self) -> list[UserPart]:
        """The content as a list of parts."""
        return [TextPart(self.content)] if isinstance(self.content, str) else self.content


@dataclass(slots=True)
class AssistantMessage:
    """One model turn: text, reasoning, files, tool calls, provider-executed results, approval requests."""

    content: str | list[AssistantPart]
    provider_metadata: ProviderMetadata | None = None
    role: ClassVar[Literal["assistant"]] = "assistant"

    @property
    def parts(self) -> list[AssistantPart]:
        """The content as a list of parts."""
        return [TextPart(self.content)] if isinstance(self.content, str) else self.content


@dataclass(slots=True)
class ToolMessage:
    """Tool results and approval responses."""

    content: list[ToolPart]
    provider_metadata: ProviderMetadata | None = None
    role: ClassVar[Literal["tool"]] = "tool"

    @property
    def parts(self) -> list[ToolPart]:
        """The content (always a list of parts)."""
        return self.content


Message: TypeAlias = SystemMessage | UserMessage | AssistantMessage | ToolMessage

# --- pruning ---------------------------------------------------------------------------------------

PruneReasoning: TypeAlias = Literal["none", "all", "before-last-message"]
PruneEmptyMessages: TypeAlias = Literal["remove", "keep"]

_TOOL_PART_TYPES = frozenset({"tool-call", "tool-result", "tool-approval-request", "tool-approval-response"})
_REASONING_TYPES = frozenset({"reasoning", "reasoning-file"})


@dataclass(frozen=True, slots=True)
class PruneToolCallsRule:
    """Which tool calls, results and approvals to prune, and which trailing messages to leave alone.

    Build one with :meth:`all`, :meth:`before_last_message` or :meth:`before_last_messages`.
    ``tools`` limits the rule to those tool names; None prunes every tool.
    """

    keep_last_messages: int | None
    """How many trailing messages stay untouched; None for none."""
    tools: tuple[str, ...] | None = None

    @classmethod
    def all(cls, tools: Iterable[str] | None = None) -> PruneToolCallsRule:
        """Prune in every message."""
        return cls(None, None if tools is None else tuple(tools))

    @classmethod
    def before_last_message(cls, tools: Iterable[str] | None = None) -> PruneToolCallsRule:
        """Prune in every message but the last."""
        return cls(1, None if tools is None else tuple(tools))

    @classmethod
    def before_last_messages(cls, count: int, tools: Iterable[str] | None = None) -> PruneToolCallsRule:
        """Prune in every message but the last ``count``."""
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidArgumentError("count", f"must be a positive integer, got {count!r}")
        return cls(count, None if tools is None else tuple(tools))


def prune_messages(
    messages: Sequence[Message],
    *,
    reasoning: PruneReasoning = "none",
    tool_calls: Sequence[PruneToolCallsRule] = (),
    empty_messages: PruneEmptyMessages = "remove",
) -> list[Message]:
    """Remove reasoning, tool calls, tool results and approvals from a conversation.

    Returns a new list; the input and its messages are never changed. Consecutive tool messages count
    as one message when counting the last messages. Calls, results and approvals in the kept trailing
    messages stay, and so do the tool call behind a kept approval response and every result of a kept
    call. Reasoning that only preceded pruned content goes with it: a run of consecutive reasoning
    parts is one group, pruned when everything after it up to the next reasoning part was pruned.
    """
    if reasoning not in ("none", "all", "before-last-message"):
        raise InvalidArgumentError(
            "reasoning", f"must be 'none', 'all' or 'before-last-message', got {reasoning!r}"
        )
    if empty_messages not in ("remove", "keep"):
        raise InvalidArgumentError("empty_messages", f"must be 'remove' or 'keep', got {empty_messages!r}")
    result: list[Message] = list(messages)
    group_of = _logical_message_indexes(result)
    group_count = group_of[-1] + 1 if group_of else 0

    if reasoning != "none":
        for index, message in enumerate(result):
            if not isinstance(message, AssistantMessage) or isinstance(message.content, str):
                continue
            if reasoning == "before-last-message" and group_of[index] == group_count - 1:
                continue
            kept = [part for part in message.content if part.type not in _REASONING_TYPES]
            if len(kept) != len(message.content):
                result[index] = dataclasses.replace(message, content=kept)

    if tool_calls:
        call_tool_names, approval_tool_calls = _tool_indexes(result)
        for rule in tool_calls:
            result = _apply_tool_rule(
                result, rule, group_of, group_count, call_tool_names, approval_tool_calls
            )

    if empty_messages == "remove":
        result = [message for message in result if len(message.content) > 0]
    return result


def _logical_message_indexes(messages: Sequence[Message]) -> list[int]:
    """For each message, the index of the logical message it belongs to (tool runs merged)."""
    groups: list[int] = []
    current = -1
    previous_was_tool = False
    for message in messages:
        is_tool = isinstance(message, ToolMessage)
        if not (is_tool and previous_was_tool):
            current += 1
        groups.append(current)
        previous_was_tool = is_tool
    return groups


def _tool_indexes(messages: Sequence[Message]) -> tuple[dict[str, str], dict[str, str]]:
    """Tool call id → tool name, and approval id → tool call id, over the whole conversation."""
    call_tool_names: dict[str, str] = {}
    approval_tool_calls: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AssistantMessage) and not isinstance(message.content, str):
            for part in message.content:
                if isinstance(part, ToolCallPart):
                    call_tool_names[part.tool_call_id] = part.tool_name
                elif isinstance(part, ToolApprovalRequestPart):
                    approval_tool_calls[part.approval_id] = part.tool_call_id
    return call_tool_names, approval_tool_calls


def _apply_tool_rule(
    messages: list[Message],
    rule: PruneToolCallsRule,
    group_of: list[int],
    group_count: int,
    call_tool_names: dict[str, str],
    approval_tool_calls: dict[str, str],
) -> list[Message]:
    first_kept_group = (
        group_count if rule.keep_last_messages is None else group_count - rule.keep_last_messages
    )
    kept_call_ids: set[str] = set()
    kept_approval_ids: set[str] = set()
    for index, message in enumerate(messages):
        if group_of[index] < first_kept_group or isinstance(message.content, str):
            continue
        if isinstance(message, AssistantMessage | ToolMessage):
            for part in message.content:
                if isinstance(part, ToolCallPart | ToolResultPart):
                    kept_call_ids.add(part.tool_call_id)
                elif isinstance(part, ToolApprovalRequestPart | ToolApprovalResponsePart):
                    kept_approval_ids.add(part.approval_id)
                    originating_call = approval_tool_calls.get(part.approval_id)
                    if originating_call is not None:
                        kept_call_ids.add(originating_call)
    named_tools = None if rule.tools is None else frozenset(rule.tools)

    def keeps(part: Any) -> bool:
        if isinstance(part, ToolCallPart | ToolResultPart):
            if part.tool_call_id in kept_call_ids:
                return True
            return named_tools is not None and part.tool_name not in named_tools
        if part.approval_id in kept_approval_ids:
            return True
        if named_tools is None:
            return False
        call_id = approval_tool_calls.get(part.approval_id)
        tool_name = None if call_id is None else call_tool_names.get(call_id)
        # An approval whose request is unknown cannot be shown to be about another tool.
        return tool_name is not None and tool_name not in named_tools

    pruned: list[Message] = list(messages)
    for index, message in enumerate(messages):
        if group_of[index] >= first_kept_group or isinstance(message.content, str):
            continue
        if not isinstance(message, AssistantMessage | ToolMessage):
            continue
        content: list[Any] = list(message.content)
        removed = [part.type in _TOOL_PART_TYPES and not keeps(part) for part in content]
        if not any(removed):
            continue
        _mark_orphaned_reasoning(content, removed)
        kept = [part for part, gone in zip(content, removed, strict=True) if not gone]
        pruned[index] = dataclasses.replace(cast(Any, message), content=kept)
    return pruned


def _mark_orphaned_reasoning(content: list[Any], removed: list[bool]) -> None:
    """Mark reasoning groups whose following content (up to the next reasoning) was all pruned."""
    index = 0
    count = len(content)
    while index < count:
        if content[index].type not in _REASONING_TYPES:
            index += 1
            continue
        group_start = index
        while index < count and content[index].type in _REASONING_TYPES:
            index += 1
        segment_end = index
        while segment_end < count and content[segment_end].type not in _REASONING_TYPES:
            segment_end += 1
        if segment_end > index and all(removed[index:segment_end]):
            for position in range(group_start, index):
                removed[position] = True
        index = segment_end


# --- UI messages -----------------------------------------------------------------------------------


@dataclass(slots=True)
class TextUIPart:
    """Text in a chat UI message."""

    text: str
    state: Literal["streaming", "done"] | None = None
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "text"


@dataclass(slots=True)
class ReasoningUIPart:
    """Reasoning in a chat UI message."""

    text: str
    state: Literal["streaming", "done"] | None = None
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "reasoning"


@dataclass(slots=True)
class FileUIPart:
    """A file in a chat UI message, by URL (which may be a data URL)."""

    url: str
    media_type: str
    filename: str | None = None
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "file"


@dataclass(slots=True)
class ReasoningFileUIPart:
    """A file produced during reasoning."""

    url: str
    media_type: str
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "reasoning-file"


@dataclass(slots=True)
class ToolUIApproval:
    """The approval state of a tool UI part."""

    id: str
    approved: bool | None = None
    """None while the request is open."""
    reason: str | None = None
    is_automatic: bool = False


ToolUIState: TypeAlias = Literal[
    "input-streaming",
    "input-available",
    "approval-requested",
    "approval-responded",
    "output-available",
    "output-error",
    "output-denied",
]


@dataclass(slots=True)
class ToolUIPart:
    """A tool call and its outcome in a chat UI (both ``tool-{name}`` and ``dynamic-tool`` parts)."""

    tool_call_id: str
    tool_name: str
    state: ToolUIState
    input: Any = None
    output: Any = None
    error_text: str | None = None
    raw_input: Any = None
    """The unparsed input of a call that failed (output-error)."""
    provider_executed: bool = False
    dynamic: bool = False
    """True for a ``dynamic-tool`` part, False for a ``tool-{name}`` part."""
    title: str | None = None
    approval: ToolUIApproval | None = None
    call_provider_metadata: ProviderMetadata | None = None
    result_provider_metadata: ProviderMetadata | None = None
    preliminary: bool = False
    tool_metadata: dict[str, Any] | None = None
    """The tool's metadata (``toolMetadata``); the converted call and its result carry it."""

    @property
    def type(self) -> str:
        """``dynamic-tool`` or ``tool-{name}``."""
        return "dynamic-tool" if self.dynamic else f"tool-{self.tool_name}"


@dataclass(slots=True)
class DataUIPart:
    """Application data (``data-{name}``); reaches the model only through ``convert_data_part``."""

    name: str
    data: Any
    id: str | None = None

    @property
    def type(self) -> str:
        """``data-{name}``."""
        return f"data-{self.name}"


@dataclass(slots=True)
class StepStartUIPart:
    """Marks the start of a step; it ends the block before it."""

    type: ClassVar[str] = "step-start"


@dataclass(slots=True)
class SourceUrlUIPart:
    """A source shown in the UI; never sent to the model."""

    source_id: str
    url: str
    title: str | None = None
    provider_metadata: ProviderMetadata | None = None
    type: ClassVar[str] = "source-url"


UIPart: TypeAlias = (
    TextUIPart
    | ReasoningUIPart
    | FileUIPart
    | ReasoningFileUIPart
    | ToolUIPart
    | DataUIPart
    | StepStartUIPart
    | SourceUrlUIPart
)


@dataclass(slots=True)
class UIMessage:
    """A message as a chat UI keeps it."""

    id: str
    role: Literal["system", "user", "assistant"]
    parts: list[UIPart] = field(default_factory=list)
    metadata: Any = None


ConvertDataPart: TypeAlias = Callable[[DataUIPart], TextPart | FilePart | None]

TOOL_NO_LONGER_AVAILABLE = "Tool output omitted because the tool is no longer available."


def convert_to_model_messages(
    messages: Sequence[UIMessage],
    *,
    tools: Mapping[str, Any] | None = None,
    ignore_incomplete_tool_calls: bool = False,
    convert_data_part: ConvertDataPart | None = None,
) -> list[Message]:
    """Convert a chat UI's messages into model messages for :func:`toolplug.loop.generate_text`.

    :param tools: the tools by name; the output of a ``tool-{name}`` part whose tool is missing is
        replaced by :data:`TOOL_NO_LONGER_AVAILABLE`.
    :param ignore_incomplete_tool_calls: drop tool parts that have no final result.
    :param convert_data_part: turns a data part into a text or file part; None ignores the part.
        Without it data parts are dropped.

    A step-start part ends a block; each block of an assistant message becomes an assistant message,
    followed by the approval responses and tool results of its tools, each as its own tool message.
    Assistant file and reasoning-file parts are dropped; an approval request keeps only its id, tool
    call id and whether it was automatic.
    """
    converted: list[Message] = []
    for message in messages:
        if message.role == "system":
            texts = [part for part in message.parts if isinstance(part, TextUIPart)]
            metadata: ProviderMetadata = {}
            for text_part in texts:
                if text_part.provider_metadata:
                    metadata.update(text_part.provider_metadata)
            converted.append(SystemMessage("".join(text_part.text for text_part in texts), metadata or None))
        elif message.role == "user":
            user_parts: list[UserPart] = []
            for part in message.parts:
                if isinstance(part, TextUIPart):
                    user_parts.append(TextPart(part.text, part.provider_metadata))
                elif isinstance(part, FileUIPart):
                    user_parts.append(
                        FilePart(part.url, part.media_type, part.filename, part.provider_metadata)
                    )
                elif isinstance(part, DataUIPart) and convert_data_part is not None:
                    data_part = convert_data_part(part)
                    if data_part is not None:
                        user_parts.append(data_part)
            converted.append(UserMessage(user_parts))
        elif message.role == "assistant":
            block: list[UIPart] = []
            for part in message.parts:
                if isinstance(part, StepStartUIPart):
                    _convert_block(block, converted, tools, ignore_incomplete_tool_calls, convert_data_part)
                    block = []
                else:
                    block.append(part)
            _convert_block(block, converted, tools, ignore_incomplete_tool_calls, convert_data_part)
        else:
            raise InvalidArgumentError(
                "messages", f"message {message.id!r} has unknown role {message.role!r}"
            )
    return converted


_INCOMPLETE_STATES = frozenset({"input-streaming", "input-available"})
_RESULT_STATES = frozenset({"output-available", "output-error"})


def _convert_block(
    block: list[UIPart],
    converted: list[Message],
    tools: Mapping[str, Any] | None,
    ignore_incomplete_tool_calls: bool,
    convert_data_part: ConvertDataPart | None,
) -> None:
    content: list[AssistantPart] = []
    tool_parts: list[ToolUIPart] = []
    for part in block:
        if isinstance(part, TextUIPart):
            content.append(TextPart(part.text, part.provider_metadata))
        elif isinstance(part, ReasoningUIPart):
            content.append(ReasoningPart(part.text, part.provider_metadata))
        elif isinstance(part, DataUIPart):
            if convert_data_part is not None:
                data_part = convert_data_part(part)
                if data_part is not None:
                    content.append(data_part)
        elif isinstance(part, ToolUIPart):
            if ignore_incomplete_tool_calls and part.state in _INCOMPLETE_STATES:
                continue
            if part.state == "input-streaming":
                continue
            tool_parts.append(part)
            content += _assistant_tool_parts(part, tools)
        # file, reasoning-file, source and unknown parts never reach the model from an assistant turn
    if content:
        converted.append(AssistantMessage(content))
    for part in tool_parts:
        converted += _tool_messages(part, tools)


def _assistant_tool_parts(part: ToolUIPart, tools: Mapping[str, Any] | None) -> list[AssistantPart]:
    """The call, its approval request, and the result of a call the provider ran, in the assistant turn."""
    call_input = part.input
    if part.state == "output-error" and call_input is None:
        call_input = part.raw_input
    parts: list[AssistantPart] = [
        ToolCallPart(
            part.tool_call_id,
            part.tool_name,
            call_input,
            provider_executed=part.provider_executed,
            dynamic=part.dynamic,
            title=part.title,
            tool_metadata=part.tool_metadata,
            provider_metadata=part.call_provider_metadata,
        )
    ]
    if part.approval is not None:
        parts.append(
            ToolApprovalRequestPart(part.approval.id, part.tool_call_id, is_automatic=part.approval.is_automatic)
        )
    if part.provider_executed and part.state in _RESULT_STATES:
        parts.append(_ui_tool_result(part, tools))
    return parts


def _tool_messages(part: ToolUIPart, tools: Mapping[str, Any] | None) -> list[Message]:
    """The tool messages after the assistant turn: the approval answer, then the result or the denial."""
    messages: list[Message] = []
    if part.approval is not None and part.approval.approved is not None:
        response = ToolApprovalResponsePart(
            part.approval.id,
            part.approval.approved,
            part.approval.reason,
            provider_executed=part.provider_executed,
        )
        messages.append(ToolMessage([response]))
    if part.provider_executed:
        return messages
    if part.state == "output-denied":
        reason = part.approval.reason if part.approval is not None else None
        denied = ToolResultPart(
            part.tool_call_id,
            part.tool_name,
            reason,
            OutputType.EXECUTION_DENIED,
            dynamic=part.dynamic,
            title=part.title,
            tool_metadata=part.tool_metadata,
            provider_metadata=part.result_provider_metadata,
        )
        messages.append(ToolMessage([denied]))
    elif part.state in _RESULT_STATES:
        messages.append(ToolMessage([_ui_tool_result(part, tools)]))
    return messages


def _ui_tool_result(part: ToolUIPart, tools: Mapping[str, Any] | None) -> ToolResultPart:
    if part.state == "output-error":
        output: Any = part.error_text or ""
        output_type = OutputType.ERROR_TEXT
    elif (
        tools is not None and not part.dynamic and not part.provider_executed and part.tool_name not in tools
    ):
        output, output_type = TOOL_NO_LONGER_AVAILABLE, OutputType.TEXT
    else:
        output = part.output
        output_type = OutputType.TEXT if isinstance(output, str) else OutputType.JSON
    return ToolResultPart(
        part.tool_call_id,
        part.tool_name,
        output,
        output_type,
        provider_executed=part.provider_executed,
        dynamic=part.dynamic,
        title=part.title,
        # a provider's own result never carried the tool's metadata; a client result does (as the loop's)
        tool_metadata=None if part.provider_executed else part.tool_metadata,
        provider_metadata=part.result_provider_metadata,
    )


__all__ = [
    "TOOL_NO_LONGER_AVAILABLE",
    "AssistantMessage",
    "AssistantPart",
    "ConvertDataPart",
    "DataUIPart",
    "FilePart",
    "FileUIPart",
    "Message",
    "Part",
    "ProviderMetadata",
    "PruneEmptyMessages",
    "PruneReasoning",
    "PruneToolCallsRule",
    "ReasoningFilePart",
    "ReasoningFileUIPart",
    "ReasoningPart",
    "ReasoningUIPart",
    "SourceUrlUIPart",
    "StepStartUIPart",
    "SystemMessage",
    "TextPart",
    "TextUIPart",
    "ToolApprovalRequestPart",
    "ToolApprovalResponsePart",
    "ToolCallPart",
    "ToolMessage",
    "ToolPart",
    "ToolResultPart",
    "ToolUIApproval",
    "ToolUIPart",
    "ToolUIState",
    "UIMessage",
    "UIPart",
    "UserMessage",
    "UserPart",
    "convert_to_model_messages",
    "prune_messages",
]
