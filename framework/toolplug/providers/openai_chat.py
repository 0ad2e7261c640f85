"""The OpenAI Chat Completions adapter (``api = "openai-chat"``; any OpenAI-compatible server).

Tool calls arrive in ``message.tool_calls``; each result goes back as its own ``role: "tool"``
message. A call without an id gets one here, because the id only has to match between our request
and our answer. With tools offered and calls run one at a time (concurrency 1) the request sets
``parallel_tool_calls: false``, which extra parameters cannot override; without tools the parameter is
left out. Errors reach the model as ``{"error": value}``, a denied call as its reason.

Custom (free-form text) tools are offered as ``type: "custom"``; their calls arrive as ``custom`` tool
calls (streamed too), become calls whose input is the model's text, and go back as they came.

Conversion (the ``chat_*`` functions and :class:`ChatStreamAssembler`) is pure and apart from HTTP.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolplug.calls import ToolChoice
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
    HTTPProviderAdapter,
    StreamAssembler,
    arguments_text,
    data_url,
    finish_with_calls,
    map_settings,
    openai_tool_output,
    parse_arguments,
    start_body,
    stream_error,
)
from toolplug.providers._openai_common import (
    custom_call_part,
    custom_input_text,
    is_custom_call,
    offer_tools,
    openai_factory,
    openai_usage,
    system_items,
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
from toolplug.providers.http import ServerSentEvent, error_message
from toolplug.providers.profiles import PROFILES, ServerProfile
from toolplug.providers.wire_tools import to_chat_completions_tool

API = "openai-chat"
PATH = "/chat/completions"

_FINISH_REASONS: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "content-filter",
    "tool_calls": "tool-calls",
    "function_call": "tool-calls",
}


# --- canonical → wire --------------------------------------------------------------------------------


def chat_messages(messages: Iterable[Message], call_content: str | None = None) -> list[dict[str, Any]]:
    """The conversation as Chat Completions messages (system, user, assistant, one ``tool`` per result).

    ``call_content`` is the content of an assistant turn with calls and no text (see the server profile).
    """
    wire: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, SystemMessage):
            wire.extend(system_items([message]))
        elif isinstance(message, UserMessage):
            wire.append(chat_user_message(message))
        elif isinstance(message, AssistantMessage):
            assistant = chat_assistant_message(message.parts, call_content)
            if assistant is not None:
                wire.append(assistant)
        elif isinstance(message, ToolMessage):
            wire.extend(chat_tool_messages(part for part in message.content if isinstance(part, ToolResultPart)))
    return wire


def chat_user_message(message: UserMessage) -> dict[str, Any]:
    """A user message: a string, or text, image and file parts."""
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    content: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            content.append({"type": "text", "text": part.text})
        elif isinstance(part, FilePart):
            content.append(_chat_file(part))
    return {"role": "user", "content": content}


def _chat_file(part: FilePart) -> dict[str, Any]:
    if part.media_type.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": data_url(part.data, part.media_type)}}
    file: dict[str, Any] = {"file_data": data_url(part.data, part.media_type)}
    if part.filename:
        file["filename"] = part.filename
    return {"type": "file", "file": file}


def chat_assistant_message(parts: Sequence[AssistantPart], call_content: str | None = None) -> dict[str, Any] | None:
    """The model's turn: its text and its calls (as the loop parsed, repaired or refined them).

    Reasoning has no place in a Chat Completions request and provider-executed parts do not exist in
    this API, so both are left out. An empty turn is left out entirely. A turn of calls without text has
    ``call_content`` as its content: null as OpenAI documents it, ``""`` for servers that fail on null.
    """
    text = "".join(part.text for part in parts if isinstance(part, TextPart))
    calls = [_chat_call(part) for part in parts if isinstance(part, ToolCallPart) and not part.provider_executed]
    if not calls:
        return {"role": "assistant", "content": text} if text else None
    message: dict[str, Any] = {"role": "assistant", "content": text or call_content, "tool_calls": calls}
    return message


def _chat_call(part: ToolCallPart) -> dict[str, Any]:
    if is_custom_call(part):
        custom = {"name": part.tool_name, "input": custom_input_text(part.input)}
        return {"id": part.tool_call_id, "type": "custom", "custom": custom}
    function = {"name": part.tool_name, "arguments": arguments_text(part.input)}
    return {"id": part.tool_call_id, "type": "function", "function": function}


def chat_tool_message(call_id: str, result: ToolResultPart) -> dict[str, Any]:
    """One result as a ``tool`` message, correlated by call id."""
    return {"role": "tool", "tool_call_id": call_id, "content": openai_tool_output(result)}


def chat_tool_messages(results: Iterable[ToolResultPart]) -> list[dict[str, Any]]:
    """One ``tool`` message per result, correlated by call id."""
    return [chat_tool_message(result.tool_call_id, result) for result in results if not result.provider_executed]


def chat_tool_choice(choice: ToolChoice) -> Any:
    """The tool choice in the API's shape."""
    if choice.mode == "tool":
        return {"type": "function", "function": {"name": choice.tool_name}}
    return choice.mode


def chat_request_body(
    *,
    model: str,
    instructions: Sequence[SystemMessage],
    messages: Sequence[dict[str, Any]],
    request: RoundRequest,
    tools: Sequence[dict[str, Any]],
    extra: Mapping[str, Any] | None = None,
    provider_options: Mapping[str, Any] | None = None,
    stream: bool = False,
    server: ServerProfile | None = None,
) -> dict[str, Any]:
    """The body of one round, in the dialect of ``server`` (OpenAI's own when None).

    Extra parameters and provider options come first; a field toolplug owns (model, messages, tools,
    tool choice, stream, the output-token limit) among them is an InvalidArgumentError. A tool choice
    the server cannot honour is a UsageError, before anything is sent.
    """
    server = server if server is not None else PROFILES["official"]
    renames = {"max_output_tokens": server.max_tokens_field, "stop_sequences": "stop"}
    body = start_body(model, extra, map_settings(request.settings, renames, _SETTINGS_AS_IS), provider_options)
    body["messages"] = system_items(instructions) + list(messages)
    if tools:
        server.check_tool_choice(request.tool_choice)
    offer_tools(
        body,
        tools,
        chat_tool_choice(request.tool_choice) if server.send_tool_choice else None,
        parallel=request.parallel_tool_calls if server.parallel_tool_calls else None,
        extra=extra if server.parallel_tool_calls else None,
    )
    if stream:
        body["stream"] = True
        if server.stream_usage:
            body["stream_options"] = {"include_usage": True}
    return body


_SETTINGS_AS_IS = ("temperature", "top_p", "seed", "presence_penalty", "frequency_penalty", "user")


# --- wire → canonical --------------------------------------------------------------------------------


def new_call_id() -> str:
    """An id for a call the server sent without one (it only has to match our own answer)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def parse_chat_completion(data: Mapping[str, Any]) -> Round:
    """A non-streamed completion as a round (the first choice)."""
    choices = data["choices"]
    if not choices:
        raise ValueError("the completion has no choices")
    choice = choices[0]
    message = choice["message"]
    content: list[AssistantPart] = []
    reasoning = message.get("reasoning_content") or message.get("reasoning")
    if isinstance(reasoning, str) and reasoning:
        content.append(ReasoningPart(reasoning))
    text = message.get("content")
    if isinstance(text, str) and text:
        content.append(TextPart(text))
    refusal = message.get("refusal")
    if isinstance(refusal, str) and refusal and not text:
        content.append(TextPart(refusal))
    for call in message.get("tool_calls") or ():
        call_id = call.get("id") or new_call_id()
        if call.get("type") == "custom":
            custom = call["custom"]
            content.append(custom_call_part(call_id, custom["name"], custom.get("input")))
        else:
            function = call["function"]
            content.append(ToolCallPart(call_id, function["name"], parse_arguments(function.get("arguments"))))
    raw_finish = choice.get("finish_reason")
    return Round(
        content,
        _finish_reason(raw_finish, any(isinstance(p, ToolCallPart) for p in content)),
        chat_usage(data.get("usage")),
        model=str(data.get("model") or ""),
        response_id=data.get("id"),
        raw_finish_reason=raw_finish,
    )


def chat_usage(usage: Any) -> Usage:
    """The token counts of a completion."""
    return openai_usage(usage, "prompt", "completion")


def _finish_reason(raw: Any, has_calls: bool) -> FinishReason:
    if raw is None:
        return "tool-calls" if has_calls else "other"
    return finish_with_calls(_FINISH_REASONS.get(str(raw), "other"), has_calls)


@dataclass(slots=True)
class _StreamedCall:
    call_id: str
    name: str
    custom: bool = False
    arguments: list[str] = field(default_factory=list)
    ended: bool = False

    def part(self) -> ToolCallPart:
        text = "".join(self.arguments)
        if self.custom:
            return custom_call_part(self.call_id, self.name, text)
        return ToolCallPart(self.call_id, self.name, parse_arguments(text))


class ChatStreamAssembler(StreamAssembler):
    """Assembles a streamed completion: text and reasoning deltas, tool-call argument deltas by index."""

    def __init__(self) -> None:
        self.done = False
        self._reasoning: list[str] = []
        self._text: list[str] = []
        self._order: list[str] = []
        self._calls: dict[int, _StreamedCall] = {}
        self._finish: str | None = None
        self._usage: Any = None
        self._model = ""
        self._id: str | None = None
        self._chunks = 0

    def feed(self, event: ServerSentEvent) -> list[RoundDelta]:
        """The deltas of one chunk; ``[DONE]`` ends the stream."""
        data = event.data
        if data.strip() == "[DONE]":
            self.done = True
            return []
        if not data.strip():
            return []
        chunk = event.json()
        if isinstance(chunk, Mapping) and "error" in chunk and "choices" not in chunk:
            raise stream_error(error_message(event.data))
        self._chunks += 1
        self._model = chunk.get("model") or self._model
        self._id = chunk.get("id") or self._id
        if chunk.get("usage"):
            self._usage = chunk["usage"]
        deltas: list[RoundDelta] = []
        for choice in chunk.get("choices") or ():
            if (choice.get("index") or 0) != 0:  # some servers send an explicit null index
                continue
            delta = choice.get("delta") or {}
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                self._note("reasoning")
                self._reasoning.append(reasoning)
                deltas.append(ReasoningDelta(reasoning))
            text = delta.get("content")
            if isinstance(text, str) and text:
                self._note("text")
                self._text.append(text)
                deltas.append(TextDelta(text))
            for call_delta in delta.get("tool_calls") or ():
                deltas.extend(self._call_delta(call_delta))
            if choice.get("finish_reason"):
                self._finish = choice["finish_reason"]
                deltas.extend(self._end_calls())
        return deltas

    def _note(self, kind: str) -> None:
        if not self._order or self._order[-1] != kind:
            self._order.append(kind)

    def _call_delta(self, call_delta: Mapping[str, Any]) -> list[RoundDelta]:
        # A custom call streams ``custom: {name, input}`` pieces where a function call streams
        # ``function: {name, arguments}`` (the chunk schema documents only the latter; servers send both).
        raw_index = call_delta.get("index")
        if raw_index is None:  # absent or an explicit null: a new call when it has an id, else the current one
            raw_index = len(self._calls) if call_delta.get("id") or not self._calls else len(self._calls) - 1
        index = int(raw_index)
        custom = call_delta.get("type") == "custom" or "custom" in call_delta
        function = call_delta.get("custom" if custom else "function") or {}
        deltas: list[RoundDelta] = []
        call = self._calls.get(index)
        if call is None:
            call = _StreamedCall(call_delta.get("id") or new_call_id(), function.get("name") or "", custom)
            self._calls[index] = call
            self._order.append(f"call:{index}")
            deltas.append(ToolInputStartDelta(call.call_id, call.name))
        else:
            call.custom = call.custom or custom
            if function.get("name") and not call.name:
                call.name = function["name"]
        piece = function.get("input" if call.custom else "arguments")
        if isinstance(piece, str) and piece:
            call.arguments.append(piece)
            deltas.append(ToolInputDelta(call.call_id, piece))
        return deltas

    def _end_calls(self) -> list[RoundDelta]:
        ended: list[RoundDelta] = []
        for call in self._calls.values():
            if not call.ended:
                call.ended = True
                ended.append(ToolInputEndDelta(call.call_id))
        return ended

    def complete_at_end(self) -> bool:
        """Some compatible servers end with the finish reason and no ``[DONE]``."""
        return self._finish is not None

    def finish(self) -> Round:
        """The assembled round."""
        content: list[AssistantPart] = []
        reasoning_done = text_done = False
        for item in self._order:
            if item == "reasoning" and not reasoning_done:
                content.append(ReasoningPart("".join(self._reasoning)))
                reasoning_done = True
            elif item == "text" and not text_done:
                content.append(TextPart("".join(self._text)))
                text_done = True
            elif item.startswith("call:"):
                content.append(self._calls[int(item[5:])].part())
        has_calls = bool(self._calls)
        return Round(
            content,
            _finish_reason(self._finish, has_calls),
            chat_usage(self._usage),
            model=self._model,
            response_id=self._id,
            raw_finish_reason=self._finish,
        )

    def progress(self) -> str:
        """What arrived before the stream broke off."""
        return (
            f"{self._chunks} chunks, {len(''.join(self._text))} characters of text, "
            f"{len(self._calls)} tool calls, no finish reason"
        )

    def snapshot(self) -> Any:
        """The assembled message, as JSON."""
        return {
            "id": self._id,
            "model": self._model,
            "content": "".join(self._text),
            "reasoning": "".join(self._reasoning) or None,
            "tool_calls": [
                {"id": c.call_id, "name": c.name, "arguments": "".join(c.arguments)} for c in self._calls.values()
            ],
            "finish_reason": self._finish,
            "usage": self._usage,
        }


# --- the adapter -------------------------------------------------------------------------------------


class OpenAIChatAdapter(HTTPProviderAdapter):
    """Chat Completions, stateful for one call: the wire messages grow as turns and results are recorded."""

    path = PATH
    api_name = "Chat Completions"
    tool_shape = staticmethod(to_chat_completions_tool)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.messages: list[dict[str, Any]] = []

    def begin(self, messages: Sequence[Message]) -> None:
        """Start with the conversation so far."""
        self.messages = chat_messages(messages, self.server.tool_call_content)

    def build_body(self, request: RoundRequest, *, stream: bool) -> dict[str, Any]:
        """The body of one round."""
        return chat_request_body(
            model=self.model_id,
            instructions=request.instructions,
            messages=self.messages,
            request=request,
            tools=self._tools(request.tools),
            extra=self.extra,
            provider_options=self.provider_options(request, "openai"),
            stream=stream,
            server=self.server,
        )

    def parse_response(self, data: Any, request: RoundRequest) -> Round:
        """A completion as a round."""
        return parse_chat_completion(data)

    def stream_assembler(self, request: RoundRequest) -> StreamAssembler:
        """A fresh assembler."""
        return ChatStreamAssembler()

    def record_model_turn(self, round: Round) -> None:
        """Append the assistant message (with the calls as the loop parsed them)."""
        message = chat_assistant_message(round.content, self.server.tool_call_content)
        if message is not None:
            self.messages.append(message)

    def record_tool_result(self, call_id: str, result: ToolResultPart) -> None:
        """Append one ``tool`` message."""
        self.messages.append(chat_tool_message(call_id, result))


ADAPTER_FACTORY = openai_factory(API, OpenAIChatAdapter)
"""Makes Chat Completions adapters (``api = "openai-chat"``)."""


__all__ = [
    "ADAPTER_FACTORY",
    "API",
    "ChatStreamAssembler",
    "OpenAIChatAdapter",
    "chat_assistant_message",
    "chat_messages",
    "chat_request_body",
    "chat_tool_choice",
    "chat_tool_message",
    "chat_tool_messages",
    "chat_usage",
    "chat_user_message",
    "parse_chat_completion",
]
