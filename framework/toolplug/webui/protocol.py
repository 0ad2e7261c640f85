"""The AI SDK chat transport's request, read into toolplug's types; signed approval requests.

A chat front end (the page of ``toolplug web``, or an AI SDK ``useChat``/``Chat`` with its
``DefaultChatTransport``) posts ``{"id", "messages", "trigger", "messageId", ...}``; the messages are
UIMessages in the SDK's JSON shape (camelCase, parts typed ``text``, ``reasoning``, ``tool-{name}``,
``dynamic-tool``, ``step-start``, ``source-url``, ``file``, ``data-*``). :func:`parse_chat_request`
checks every field it reads and says where a field is wrong; parts that never reach a model (custom
content, document sources, steering) are skipped.

Approvals travel with the history the client holds, so the client could claim an approval for a call
the model never asked for. :class:`ApprovalSigner` signs each ``tool-approval-request`` (call id, tool
name, input) with a key that stays on the server; an approved call whose signature does not match is
refused before anything runs.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from toolplug.errors import ToolplugError
from toolplug.messages import (
    DataUIPart,
    FileUIPart,
    ReasoningFileUIPart,
    ReasoningUIPart,
    SourceUrlUIPart,
    StepStartUIPart,
    TextUIPart,
    ToolUIApproval,
    ToolUIPart,
    UIMessage,
    UIPart,
)

MAX_MESSAGES = 2000
"""The most messages one request may hold."""

_TOOL_STATES = frozenset(
    {
        "input-streaming",
        "input-available",
        "approval-requested",
        "approval-responded",
        "output-available",
        "output-error",
        "output-denied",
    }
)
_SKIPPED_PARTS = frozenset({"custom", "source-document", "steering-message"})
_ROLES = frozenset({"system", "user", "assistant"})


class ChatRequestError(ToolplugError, ValueError):
    """A chat request that cannot be run; the message names the field (``messages[2].parts[0].text``)."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}")
        self.where = where
        self.problem = problem


@dataclass(slots=True)
class ChatRequest:
    """One POST of the chat transport."""

    chat_id: str
    messages: list[UIMessage]
    trigger: Literal["submit-message", "regenerate-message"] = "submit-message"
    message_id: str | None = None
    signatures: dict[str, str] = field(default_factory=dict)
    """The ``approval.signature`` of each tool part, by approval id."""

    @property
    def continues_assistant(self) -> bool:
        """True when the last message is the assistant's (a run continued with approval responses)."""
        return bool(self.messages) and self.messages[-1].role == "assistant"


# --- reading ------------------------------------------------------------------------------------------


def _string(value: Any, where: str, *, optional: bool = False) -> str | None:
    if value is None and optional:
        return None
    if not isinstance(value, str):
        raise ChatRequestError(where, f"must be a string, got {type(value).__name__}")
    return value


def _object(value: Any, where: str, *, optional: bool = False) -> dict[str, Any] | None:
    if value is None and optional:
        return None
    if not isinstance(value, dict):
        raise ChatRequestError(where, f"must be an object, got {type(value).__name__}")
    return value


def _required_string(value: Any, where: str) -> str:
    text = _string(value, where)
    assert text is not None
    return text


def _text_state(value: Any, where: str) -> Literal["streaming", "done"] | None:
    if value is None:
        return None
    if value not in ("streaming", "done"):
        raise ChatRequestError(where, f"must be 'streaming' or 'done', got {value!r}")
    return cast(Literal["streaming", "done"], value)


def _approval(value: Any, where: str) -> tuple[ToolUIApproval | None, str | None]:
    data = _object(value, where, optional=True)
    if data is None:
        return None, None
    approved = data.get("approved")
    if approved is not None and not isinstance(approved, bool):
        raise ChatRequestError(f"{where}.approved", f"must be true or false, got {approved!r}")
    reason = _string(data.get("reason"), f"{where}.reason", optional=True)
    approval = ToolUIApproval(
        _required_string(data.get("id"), f"{where}.id"),
        approved,
        reason,
        is_automatic=bool(data.get("isAutomatic", False)),
    )
    return approval, _string(data.get("signature"), f"{where}.signature", optional=True)


def _tool_part(data: dict[str, Any], kind: str, where: str) -> tuple[ToolUIPart, str | None]:
    dynamic = kind == "dynamic-tool"
    name = _required_string(data.get("toolName"), f"{where}.toolName") if dynamic else kind[len("tool-") :]
    if not name:
        raise ChatRequestError(f"{where}.type", "a tool part needs a tool name")
    state = data.get("state")
    if state not in _TOOL_STATES:
        raise ChatRequestError(f"{where}.state", f"unknown tool state {state!r}")
    approval, signature = _approval(data.get("approval"), f"{where}.approval")
    if state in ("approval-requested", "approval-responded", "output-denied") and approval is None:
        raise ChatRequestError(f"{where}.approval", f"a part in state {state!r} needs its approval")
    if state == "approval-responded" and approval is not None and approval.approved is None:
        raise ChatRequestError(f"{where}.approval.approved", "an answered approval says true or false")
    error_text = _string(data.get("errorText"), f"{where}.errorText", optional=True)
    if state == "output-error" and error_text is None:
        raise ChatRequestError(f"{where}.errorText", "a part in state 'output-error' needs its error text")
    part = ToolUIPart(
        _required_string(data.get("toolCallId"), f"{where}.toolCallId"),
        name,
        cast(Any, state),
        input=data.get("input"),
        output=data.get("output"),
        error_text=error_text,
        raw_input=data.get("rawInput"),
        provider_executed=bool(data.get("providerExecuted", False)),
        dynamic=dynamic,
        title=_string(data.get("title"), f"{where}.title", optional=True),
        approval=approval,
        call_provider_metadata=_object(
            data.get("callProviderMetadata"), f"{where}.callProviderMetadata", optional=True
        ),
        result_provider_metadata=_object(
            data.get("resultProviderMetadata"), f"{where}.resultProviderMetadata", optional=True
        ),
        preliminary=bool(data.get("preliminary", False)),
        tool_metadata=_object(data.get("toolMetadata"), f"{where}.toolMetadata", optional=True),
    )
    return part, signature


def _part(data: Any, where: str, signatures: dict[str, str]) -> UIPart | None:
    part = _object(data, where)
    assert part is not None
    kind = _required_string(part.get("type"), f"{where}.type")
    metadata = _object(part.get("providerMetadata"), f"{where}.providerMetadata", optional=True)
    if kind == "text":
        text = _required_string(part.get("text"), f"{where}.text")
        return TextUIPart(text, _text_state(part.get("state"), where), metadata)
    if kind == "reasoning":
        text = _required_string(part.get("text"), f"{where}.text")
        return ReasoningUIPart(text, _text_state(part.get("state"), where), metadata)
    if kind == "step-start":
        return StepStartUIPart()
    if kind == "source-url":
        source_id = _required_string(part.get("sourceId"), f"{where}.sourceId")
        title = _string(part.get("title"), f"{where}.title", optional=True)
        return SourceUrlUIPart(source_id, _required_string(part.get("url"), f"{where}.url"), title, metadata)
    if kind in ("file", "reasoning-file"):
        url = _required_string(part.get("url"), f"{where}.url")
        media_type = _required_string(part.get("mediaType"), f"{where}.mediaType")
        if kind == "reasoning-file":
            return ReasoningFileUIPart(url, media_type, metadata)
        filename = _string(part.get("filename"), f"{where}.filename", optional=True)
        return FileUIPart(url, media_type, filename, metadata)
    if kind.startswith("data-"):
        return DataUIPart(kind[len("data-") :], part.get("data"), _string(part.get("id"), f"{where}.id", optional=True))
    if kind == "dynamic-tool" or kind.startswith("tool-"):
        tool_part, signature = _tool_part(part, kind, where)
        if signature is not None and tool_part.approval is not None:
            signatures[tool_part.approval.id] = signature
        return tool_part
    if kind in _SKIPPED_PARTS:
        return None
    raise ChatRequestError(f"{where}.type", f"unknown part type {kind!r}")


def parse_ui_messages(value: Any, where: str = "messages") -> tuple[list[UIMessage], dict[str, str]]:
    """Read UIMessages in the AI SDK's JSON shape; returns them and the approval signatures by id.

    :raises ChatRequestError: a field is missing or has the wrong type (the message says which).
    """
    if not isinstance(value, list):
        raise ChatRequestError(where, f"must be a list of messages, got {type(value).__name__}")
    if len(value) > MAX_MESSAGES:
        raise ChatRequestError(where, f"holds {len(value)} messages; at most {MAX_MESSAGES} are accepted")
    messages: list[UIMessage] = []
    signatures: dict[str, str] = {}
    for index, item in enumerate(value):
        at = f"{where}[{index}]"
        data = _object(item, at)
        assert data is not None
        role = data.get("role")
        if role not in _ROLES:
            raise ChatRequestError(f"{at}.role", f"must be 'system', 'user' or 'assistant', got {role!r}")
        raw_parts = data.get("parts")
        if not isinstance(raw_parts, list):
            raise ChatRequestError(f"{at}.parts", "must be a list of parts")
        parts = [
            part
            for number, raw in enumerate(raw_parts)
            if (part := _part(raw, f"{at}.parts[{number}]", signatures)) is not None
        ]
        messages.append(UIMessage(_required_string(data.get("id"), f"{at}.id"), role, parts, data.get("metadata")))
    return messages, signatures


def parse_chat_request(body: Any) -> ChatRequest:
    """Read the chat transport's request body (already decoded from JSON).

    :raises ChatRequestError: the body is not the transport's shape.
    """
    data = _object(body, "body")
    assert data is not None
    chat_id = _required_string(data.get("id"), "id")
    if not chat_id or len(chat_id) > 200:
        raise ChatRequestError("id", "must be a non-empty chat id of at most 200 characters")
    messages, signatures = parse_ui_messages(data.get("messages"))
    if not messages:
        raise ChatRequestError("messages", "holds no message")
    trigger = data.get("trigger", "submit-message")
    if trigger not in ("submit-message", "regenerate-message"):
        raise ChatRequestError("trigger", f"must be 'submit-message' or 'regenerate-message', got {trigger!r}")
    message_id = _string(data.get("messageId"), "messageId", optional=True)
    return ChatRequest(chat_id, messages, trigger, message_id, signatures)


# --- writing --------------------------------------------------------------------------------------------


def ui_message_to_json(message: UIMessage) -> dict[str, Any]:
    """A UIMessage in the AI SDK's JSON shape (the inverse of :func:`parse_ui_messages`)."""
    parts: list[dict[str, Any]] = []
    for part in message.parts:
        parts.append(_part_to_json(part))
    data: dict[str, Any] = {"id": message.id, "role": message.role, "parts": parts}
    if message.metadata is not None:
        data["metadata"] = message.metadata
    return data


def _part_to_json(part: UIPart) -> dict[str, Any]:
    if isinstance(part, TextUIPart | ReasoningUIPart):
        data: dict[str, Any] = {"type": part.type, "text": part.text}
        if part.state is not None:
            data["state"] = part.state
    elif isinstance(part, StepStartUIPart):
        data = {"type": "step-start"}
    elif isinstance(part, SourceUrlUIPart):
        data = {"type": "source-url", "sourceId": part.source_id, "url": part.url}
        if part.title is not None:
            data["title"] = part.title
    elif isinstance(part, FileUIPart | ReasoningFileUIPart):
        data = {"type": part.type, "url": part.url, "mediaType": part.media_type}
        if isinstance(part, FileUIPart) and part.filename is not None:
            data["filename"] = part.filename
    elif isinstance(part, DataUIPart):
        data = {"type": part.type, "data": part.data}
        if part.id is not None:
            data["id"] = part.id
    else:
        data = _tool_part_to_json(part)
    metadata = getattr(part, "provider_metadata", None)
    if metadata:
        data["providerMetadata"] = metadata
    return data


def _tool_part_to_json(part: ToolUIPart) -> dict[str, Any]:
    data: dict[str, Any] = {"type": part.type, "toolCallId": part.tool_call_id, "state": part.state}
    if part.dynamic:
        data["toolName"] = part.tool_name
    optional = {
        "input": part.input,
        "output": part.output,
        "errorText": part.error_text,
        "rawInput": part.raw_input,
        "title": part.title,
        "toolMetadata": part.tool_metadata,
        "callProviderMetadata": part.call_provider_metadata,
        "resultProviderMetadata": part.result_provider_metadata,
    }
    data.update({key: value for key, value in optional.items() if value is not None})
    if part.provider_executed:
        data["providerExecuted"] = True
    if part.preliminary:
        data["preliminary"] = True
    if part.approval is not None:
        approval: dict[str, Any] = {"id": part.approval.id}
        if part.approval.approved is not None:
            approval["approved"] = part.approval.approved
        if part.approval.reason is not None:
            approval["reason"] = part.approval.reason
        if part.approval.is_automatic:
            approval["isAutomatic"] = True
        data["approval"] = approval
    return data


# --- signed approvals -----------------------------------------------------------------------------------


def canonical_json(value: Any) -> str:
    """JSON text that survives a trip through a browser: sorted keys, integral floats written as integers.

    JavaScript has one number type, so ``1.0`` comes back as ``1``; both must sign the same.
    """

    def normal(item: Any) -> Any:
        if isinstance(item, float) and math.isfinite(item) and item.is_integer() and abs(item) < 2**53:
            return int(item)
        if isinstance(item, Mapping):
            return {str(key): normal(inner) for key, inner in item.items()}
        if isinstance(item, list | tuple):
            return [normal(inner) for inner in item]
        return item

    return json.dumps(normal(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class ApprovalSigner:
    """Signs approval requests so only the calls this server asked about can be approved.

    :param key: the signing key; a random one by default (approvals then hold for this process only).
    """

    def __init__(self, key: bytes | None = None) -> None:
        self._key = key if key is not None else secrets.token_bytes(32)

    def sign(self, chat_id: str, approval_id: str, tool_call_id: str, tool_name: str, tool_input: Any) -> str:
        """The signature of one approval request."""
        payload = "\x1f".join((chat_id, approval_id, tool_call_id, tool_name, canonical_json(tool_input)))
        return hmac.new(self._key, payload.encode(), hashlib.sha256).hexdigest()

    def check(self, request: ChatRequest) -> None:
        """Refuse a request that approves a call this server did not ask about (or whose input changed).

        :raises ChatRequestError: naming the approval.
        """
        for message_index, message in enumerate(request.messages):
            for part_index, part in enumerate(message.parts):
                if not isinstance(part, ToolUIPart) or part.approval is None:
                    continue
                if part.state != "approval-responded" or part.approval.approved is not True:
                    continue
                if part.provider_executed:
                    continue  # the provider checks its own approvals
                given = request.signatures.get(part.approval.id, "")
                expected = self.sign(
                    request.chat_id, part.approval.id, part.tool_call_id, part.tool_name, part.input
                )
                if not hmac.compare_digest(given, expected):
                    raise ChatRequestError(
                        f"messages[{message_index}].parts[{part_index}].approval",
                        f"approval {part.approval.id!r} of {part.tool_name!r} was not asked for by this server "
                        "(or its input changed since); the call does not run. Send the message again to ask anew.",
                    )


def sign_chunks(
    chunks: Iterable[dict[str, Any]], signer: ApprovalSigner, chat_id: str, calls: dict[str, tuple[str, Any]]
) -> list[dict[str, Any]]:
    """Add a signature to each ``tool-approval-request``; ``calls`` (call id to name and input) is
    filled from the ``tool-input-available`` chunks seen so far."""
    signed: list[dict[str, Any]] = []
    for chunk in chunks:
        kind = chunk.get("type")
        if kind == "tool-input-available":
            calls[chunk["toolCallId"]] = (chunk["toolName"], chunk.get("input"))
        elif kind == "tool-approval-request":
            name, tool_input = calls.get(chunk["toolCallId"], ("", None))
            chunk = {
                **chunk,
                "signature": signer.sign(chat_id, chunk["approvalId"], chunk["toolCallId"], name, tool_input),
            }
        signed.append(chunk)
    return signed


__all__ = [
    "MAX_MESSAGES",
    "ApprovalSigner",
    "ChatRequest",
    "ChatRequestError",
    "canonical_json",
    "parse_chat_request",
    "parse_ui_messages",
    "sign_chunks",
    "ui_message_to_json",
]
