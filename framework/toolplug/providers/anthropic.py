"""The Anthropic Messages adapter (``api = "anthropic"``).

The model's turn is one assistant message whose content blocks mix text, thinking and tool_use; it
goes back unchanged — thinking blocks with their signatures, redacted thinking with its data, the
provider's own server-tool blocks as received, the calls as the loop parsed them. All results of a
round go into ONE user message of ``tool_result`` blocks (splitting them teaches the model to stop
asking for several tools at once); a failed, blocked or denied call's block says ``is_error: true``.

A final-answer round offers no tools, but a conversation holding tool_use blocks must still declare
them, so the tools of the previous round are resent with tool choice ``none``.

Conversion (the ``anthropic_*`` functions and :class:`AnthropicStreamAssembler`) is pure and apart
from HTTP.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolplug.calls import ToolChoice
from toolplug.definitions import OutputType
from toolplug.errors import ProviderResponseError
from toolplug.messages import (
    AssistantMessage,
    AssistantPart,
    FilePart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from toolplug.providers._adapter_base import (
    DENIED_TEXT,
    HTTPAdapterFactory,
    HTTPProviderAdapter,
    StreamAssembler,
    base64_data,
    dumps,
    file_placeholder,
    finish_with_calls,
    is_file_part,
    is_url,
    map_settings,
    parse_arguments,
    part_media_type,
    start_body,
    stream_error,
    vendor_meta,
)
from toolplug.providers.base import (
    FinishReason,
    ReasoningDelta,
    Round,
    RoundDelta,
    RoundRequest,
    TextDelta,
    ToolInputDelta,
    ToolInputEndDelta,
    ToolInputStartDelta,
    Usage,
)
from toolplug.providers.http import ServerSentEvent
from toolplug.providers.wire_tools import to_anthropic_tool

API = "anthropic"
DEFAULT_BASE_URL = "https://api.anthropic.com"
PATH = "/v1/messages"
API_VERSION = "2023-06-01"
VENDOR = "anthropic"
DEFAULT_MAX_TOKENS = 4096
"""``max_tokens`` is required by the API; used when neither the settings nor extra parameters set it."""

_STOP_REASONS: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool-calls",
    "refusal": "content-filter",
    "pause_turn": "other",
}
_SERVER_CALLS = frozenset({"server_tool_use", "mcp_tool_use"})


# --- canonical → wire --------------------------------------------------------------------------------


def anthropic_messages(messages: Iterable[Message]) -> tuple[list[dict[str, Any]], list[SystemMessage]]:
    """The conversation as Messages API messages, and the texts of system messages found inside it.

    Consecutive tool messages (and a user message right after them) share one user message, so the
    results of a round always travel together.
    """
    wire: list[dict[str, Any]] = []
    system: list[SystemMessage] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            system.append(message)
        elif isinstance(message, UserMessage):
            _append_user(wire, anthropic_user_content(message))
        elif isinstance(message, AssistantMessage):
            blocks = anthropic_assistant_content(message.parts)
            if blocks:
                wire.append({"role": "assistant", "content": blocks})
        elif isinstance(message, ToolMessage):
            converted = (anthropic_tool_result(p) for p in message.content if isinstance(p, ToolResultPart))
            results = [r for r in converted if r is not None]
            if results:
                _append_user(wire, results)
    return wire, system


def _append_user(wire: list[dict[str, Any]], content: list[dict[str, Any]]) -> None:
    last = wire[-1] if wire else None
    if last is not None and last["role"] == "user":
        last["content"] = [*last["content"], *content]
    else:
        wire.append({"role": "user", "content": list(content)})


def anthropic_user_content(message: UserMessage) -> list[dict[str, Any]]:
    """A user message as content blocks: text, image and document blocks."""
    if isinstance(message.content, str):
        return [{"type": "text", "text": message.content}]
    blocks: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, FilePart):
            blocks.append(_file_block(part))
    return blocks


_IMAGE_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
"""The image types the Messages API reads; any other file is a document or text."""


def _file_block(part: FilePart) -> dict[str, Any]:
    return file_block(part.data, part.media_type)


def file_block(data: str | bytes, media_type: str) -> dict[str, Any]:
    """A file as the Messages API takes it: an image block for its image types, a document for PDF and
    plain text, and a text block saying what it was for anything else (never an invalid image)."""
    media_type = media_type.split(";", 1)[0].strip().lower()
    if media_type in _IMAGE_TYPES or (media_type == "application/pdf"):
        kind = "image" if media_type in _IMAGE_TYPES else "document"
        if is_url(data):
            return {"type": kind, "source": {"type": "url", "url": data}}
        return {"type": kind, "source": {"type": "base64", "media_type": media_type, "data": base64_data(data)}}
    if media_type.startswith("text/") and not is_url(data):
        text = _decoded_text(data)
        if text is not None:
            return {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": text}}
    return {"type": "text", "text": dumps(file_placeholder({"type": "file", "media_type": media_type}))}


def _decoded_text(data: str | bytes) -> str | None:
    try:
        raw = base64.b64decode(base64_data(data), validate=True) if isinstance(data, str) else data
        return raw.decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None


def anthropic_assistant_content(parts: Sequence[AssistantPart]) -> list[dict[str, Any]]:
    """The model's turn as it came: thinking with its signature, text, tool_use, the provider's own blocks.

    Reasoning without an Anthropic signature (another provider's) cannot be sent and is left out.
    """
    blocks: list[dict[str, Any]] = []
    for part in parts:
        meta = vendor_meta(part, VENDOR)
        if isinstance(part, ReasoningPart):
            if "redacted_data" in meta:
                blocks.append({"type": "redacted_thinking", "data": meta["redacted_data"]})
            elif "signature" in meta:
                blocks.append({"type": "thinking", "thinking": part.text, "signature": meta["signature"]})
        elif isinstance(part, TextPart):
            if part.text:
                block: dict[str, Any] = {"type": "text", "text": part.text}
                if meta.get("citations"):
                    block["citations"] = copy.deepcopy(meta["citations"])
                blocks.append(block)
        elif isinstance(part, ToolCallPart):
            raw = meta.get("block")
            if part.provider_executed:
                if isinstance(raw, dict):
                    blocks.append(copy.deepcopy(raw))
                continue
            call_input = part.input
            if not isinstance(call_input, dict):
                parsed = parse_arguments(call_input)
                call_input = parsed if isinstance(parsed, dict) else {}
            blocks.append({"type": "tool_use", "id": part.tool_call_id, "name": part.tool_name, "input": call_input})
        elif isinstance(part, ToolResultPart) and part.provider_executed:
            raw = meta.get("block")
            if isinstance(raw, dict):
                blocks.append(copy.deepcopy(raw))
    return blocks


def anthropic_tool_result(result: ToolResultPart) -> dict[str, Any] | None:
    """One result as a ``tool_result`` block; ``is_error`` for failed, blocked and denied calls."""
    if result.provider_executed:
        return None
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": result.tool_call_id}
    output = result.output
    output_type = result.output_type
    if output_type is OutputType.EXECUTION_DENIED:
        block["content"] = output if isinstance(output, str) and output else DENIED_TEXT
    elif output_type is OutputType.CONTENT:
        block["content"] = _content_blocks(output)
    elif isinstance(output, str) and output_type is not OutputType.JSON and output_type is not OutputType.ERROR_JSON:
        block["content"] = output
    else:
        block["content"] = dumps(output)
    if result.is_error:
        block["is_error"] = True
    return block


def _content_blocks(output: Any) -> Any:
    if not isinstance(output, list):
        return dumps(output)
    blocks: list[dict[str, Any]] = []
    for item in output:
        if isinstance(item, dict) and item.get("type") == "text":
            blocks.append({"type": "text", "text": str(item.get("text", ""))})
        elif is_file_part(item):
            default = "image/png" if item.get("type") == "image" else "application/octet-stream"
            blocks.append(file_block(item["data"], part_media_type(item, default)))
        else:
            blocks.append({"type": "text", "text": dumps(item)})
    return blocks


def anthropic_tool_choice(choice: ToolChoice) -> dict[str, Any]:
    """auto → auto, required → any, none → none, a named tool → tool."""
    if choice.mode == "required":
        return {"type": "any"}
    if choice.mode == "tool":
        return {"type": "tool", "name": choice.tool_name}
    return {"type": choice.mode}


def anthropic_request_body(
    *,
    model: str,
    system: Sequence[SystemMessage | str],
    messages: Sequence[dict[str, Any]],
    request: RoundRequest,
    tools: Sequence[dict[str, Any]],
    extra: Mapping[str, Any] | None = None,
    provider_options: Mapping[str, Any] | None = None,
    stream: bool = False,
    resend_tools: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The body of one round (``resend_tools``: the previous tools, for a final-answer round)."""
    body = start_body(model, extra, map_settings(request.settings, _SETTINGS, _SETTINGS_AS_IS), provider_options)
    body.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
    system_blocks = [block for block in map(system_block, system) if block["text"]]
    if system_blocks:
        body["system"] = system_blocks
    else:
        body.pop("system", None)
    body["messages"] = list(messages)
    if tools:
        body["tools"] = list(tools)
        body["tool_choice"] = anthropic_tool_choice(request.tool_choice)
    elif resend_tools:
        body["tools"] = list(resend_tools)
        body["tool_choice"] = {"type": "none"}
    if stream:
        body["stream"] = True
    return body


_SETTINGS = {"max_output_tokens": "max_tokens"}


def system_block(message: SystemMessage | str) -> dict[str, Any]:
    """One system text block; a message's ``anthropic`` provider metadata adds its fields
    (``cache_control`` for prompt caching)."""
    if isinstance(message, str):
        return {"type": "text", "text": message}
    block: dict[str, Any] = {"type": "text", "text": message.content}
    for key, value in vendor_meta(message, VENDOR).items():
        if key not in block:
            block[key] = value
    return block


_SETTINGS_AS_IS = ("stop_sequences", "temperature", "top_p", "top_k")


# --- wire → canonical --------------------------------------------------------------------------------


def parse_anthropic_message(data: Mapping[str, Any]) -> Round:
    """A message as a round: every block in order, with what must be replayed in provider metadata."""
    content: list[AssistantPart] = []
    server_names: dict[str, str] = {}
    for block in data.get("content") or ():
        kind = block.get("type")
        if kind == "text":
            meta = {VENDOR: {"citations": block["citations"]}} if block.get("citations") else None
            content.append(TextPart(str(block.get("text", "")), meta))
        elif kind == "thinking":
            signature = {VENDOR: {"signature": block.get("signature", "")}}
            content.append(ReasoningPart(str(block.get("thinking", "")), signature))
        elif kind == "redacted_thinking":
            content.append(ReasoningPart("", {VENDOR: {"redacted_data": block.get("data", "")}}))
        elif kind == "tool_use":
            content.append(ToolCallPart(str(block["id"]), str(block["name"]), block.get("input") or {}))
        elif kind in _SERVER_CALLS:
            name = str(block.get("name") or kind)
            server_names[str(block["id"])] = name
            content.append(
                ToolCallPart(
                    str(block["id"]),
                    name,
                    block.get("input") or {},
                    provider_executed=True,
                    provider_metadata={VENDOR: {"block": block}},
                )
            )
        elif isinstance(kind, str) and kind.endswith("_tool_result") and "tool_use_id" in block:
            call_id = str(block["tool_use_id"])
            result = block.get("content")
            failed = isinstance(result, Mapping) and str(result.get("type", "")).endswith("_error")
            content.append(
                ToolResultPart(
                    call_id,
                    server_names.get(call_id, kind.removesuffix("_tool_result")),
                    result,
                    OutputType.ERROR_JSON if failed or block.get("is_error") else OutputType.JSON,
                    provider_executed=True,
                    provider_metadata={VENDOR: {"block": block}},
                )
            )
    raw_stop = data.get("stop_reason")
    has_calls = any(isinstance(p, ToolCallPart) and not p.provider_executed for p in content)
    finish = finish_with_calls(_STOP_REASONS.get(str(raw_stop), "other") if raw_stop else "other", has_calls)
    return Round(
        content,
        finish,
        anthropic_usage(data.get("usage")),
        model=str(data.get("model") or ""),
        response_id=data.get("id"),
        provider_metadata={VENDOR: {"stop_sequence": data.get("stop_sequence")}} if data.get("stop_sequence") else None,
        raw_finish_reason=None if raw_stop is None else str(raw_stop),
    )


def anthropic_usage(usage: Any) -> Usage:
    """Token counts; cached input (read and written) counts as input too."""
    if not isinstance(usage, Mapping):
        return Usage()
    read = usage.get("cache_read_input_tokens")
    created = usage.get("cache_creation_input_tokens")
    base = usage.get("input_tokens")
    total_input = None if base is None else base + (read or 0) + (created or 0)
    return Usage(total_input, usage.get("output_tokens"), None, read)


class AnthropicStreamAssembler(StreamAssembler):
    """Assembles a streamed message from its events: blocks by index, deltas appended, ``message_stop`` ends."""

    def __init__(self) -> None:
        self.done = False
        self._message: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json: dict[int, list[str]] = {}
        self._usage: dict[str, Any] = {}
        self._events = 0

    def feed(self, event: ServerSentEvent) -> list[RoundDelta]:
        """The deltas of one event."""
        if not event.data.strip():
            return []
        data = event.json()
        kind = data.get("type") or event.event
        self._events += 1
        if kind == "message_start":
            self._message = dict(data.get("message") or {})
            self._usage.update(self._message.get("usage") or {})
            return []
        if kind == "content_block_start":
            index = int(data["index"])
            block = copy.deepcopy(data.get("content_block") or {})
            self._blocks[index] = block
            if block.get("type") in ("tool_use", *_SERVER_CALLS):
                self._json[index] = []
                return [
                    ToolInputStartDelta(
                        str(block.get("id")), str(block.get("name")), provider_executed=block.get("type") != "tool_use"
                    )
                ]
            text = block.get("text") or block.get("thinking")
            if isinstance(text, str) and text:
                return [TextDelta(text) if block.get("type") == "text" else ReasoningDelta(text)]
            return []
        if kind == "content_block_delta":
            return self._delta(int(data["index"]), data.get("delta") or {})
        if kind == "content_block_stop":
            index = int(data["index"])
            block = self._blocks.get(index, {})
            if index in self._json:
                raw = "".join(self._json.pop(index))
                block["input"] = json.loads(raw) if raw.strip() else (block.get("input") or {})
                return [ToolInputEndDelta(str(block.get("id")))]
            return []
        if kind == "message_delta":
            delta = data.get("delta") or {}
            for key in ("stop_reason", "stop_sequence"):
                if key in delta:
                    self._message[key] = delta[key]
            self._usage.update({k: v for k, v in (data.get("usage") or {}).items() if v is not None})
            return []
        if kind == "message_stop":
            self.done = True
            return []
        if kind == "error":
            error = data.get("error") or {}
            raise stream_error(error.get("message") or error, error.get("type") or "no type")
        return []  # ping, and events added to the API later

    def _delta(self, index: int, delta: Mapping[str, Any]) -> list[RoundDelta]:
        block = self._blocks.setdefault(index, {"type": "text", "text": ""})
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text", ""))
            block["text"] = block.get("text", "") + text
            return [TextDelta(text)] if text else []
        if kind == "thinking_delta":
            text = str(delta.get("thinking", ""))
            block["thinking"] = block.get("thinking", "") + text
            return [ReasoningDelta(text)] if text else []
        if kind == "signature_delta":
            block["signature"] = block.get("signature", "") + str(delta.get("signature", ""))
            return []
        if kind == "input_json_delta":
            piece = str(delta.get("partial_json", ""))
            self._json.setdefault(index, []).append(piece)
            return [ToolInputDelta(str(block.get("id")), piece)] if piece else []
        if kind == "citations_delta":
            block.setdefault("citations", []).append(delta.get("citation"))
        return []

    def finish(self) -> Round:
        """The assembled message as a round."""
        return parse_anthropic_message(self.snapshot())

    def progress(self) -> str:
        """What arrived before the stream broke off."""
        texts = sum(len(b.get("text", "")) for b in self._blocks.values())
        return f"{self._events} events, {len(self._blocks)} content blocks, {texts} characters of text, no message_stop"

    def snapshot(self) -> dict[str, Any]:
        """The message as assembled so far."""
        message = dict(self._message)
        message["content"] = [self._blocks[i] for i in sorted(self._blocks)]
        message["usage"] = dict(self._usage)
        return message


# --- the adapter -------------------------------------------------------------------------------------


class AnthropicAdapter(HTTPProviderAdapter):
    """Messages, stateful for one call. Results are buffered and sent as one user message per round."""

    path = PATH
    api_name = "Anthropic Messages"
    tool_shape = staticmethod(to_anthropic_tool)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.messages: list[dict[str, Any]] = []
        self.system: list[SystemMessage] = []
        self._pending: list[dict[str, Any]] = []
        self._last_tools: list[dict[str, Any]] = []

    def begin(self, messages: Sequence[Message]) -> None:
        """Start with the conversation so far."""
        self.messages, self.system = anthropic_messages(messages)

    def build_body(self, request: RoundRequest, *, stream: bool) -> dict[str, Any]:
        """The body of one round; the results of the last round go out as one user message."""
        self._flush_results()
        tools = self._tools(request.tools)
        if tools:
            self._last_tools = tools
        return anthropic_request_body(
            model=self.model_id,
            system=[*request.instructions, *self.system],
            messages=self.messages,
            request=request,
            tools=tools,
            extra=self.extra,
            provider_options=self.provider_options(request, VENDOR),
            stream=stream,
            resend_tools=self._last_tools if request.final_answer else (),
        )

    def parse_response(self, data: Any, request: RoundRequest) -> Round:
        """A message as a round."""
        if data.get("type") == "error":
            raise ProviderResponseError(f"the answer is an error: {data.get('error')}", provider=self.provider_id)
        return parse_anthropic_message(data)

    def stream_assembler(self, request: RoundRequest) -> StreamAssembler:
        """A fresh assembler."""
        return AnthropicStreamAssembler()

    def record_model_turn(self, round: Round) -> None:
        """Append the assistant turn, its blocks unchanged."""
        self._flush_results()
        blocks = anthropic_assistant_content(round.content)
        if blocks:
            self.messages.append({"role": "assistant", "content": blocks})

    def record_tool_result(self, call_id: str, result: ToolResultPart) -> None:
        """Buffer one ``tool_result`` block; the round's results are sent together."""
        block = anthropic_tool_result(result)
        if block is not None:
            block["tool_use_id"] = call_id
            self._pending.append(block)

    def _flush_results(self) -> None:
        if self._pending:
            _append_user(self.messages, self._pending)
            self._pending = []


ADAPTER_FACTORY = HTTPAdapterFactory(
    api=API,
    adapter_type=AnthropicAdapter,
    default_base_url=DEFAULT_BASE_URL,
    auth_headers=lambda key: {"x-api-key": key},
    static_headers=(("anthropic-version", API_VERSION),),
    path_prefix="/v1",
)
"""Makes Anthropic Messages adapters (``api = "anthropic"``)."""


__all__ = [
    "ADAPTER_FACTORY",
    "API",
    "AnthropicAdapter",
    "AnthropicStreamAssembler",
    "anthropic_assistant_content",
    "anthropic_messages",
    "anthropic_request_body",
    "anthropic_tool_choice",
    "anthropic_tool_result",
    "anthropic_usage",
    "anthropic_user_content",
    "parse_anthropic_message",
]
