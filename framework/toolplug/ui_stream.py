"""The UI message stream: a streamed run as the chunks a chat web app reads.

:func:`to_ui_message_stream` turns the typed parts of :func:`toolplug.loop.stream_text` (or
:meth:`toolplug.loop.Agent.stream`) into the AI SDK's UI message stream chunks: JSON-ready dicts with
the SDK's chunk types and camelCase field names. :func:`ui_message_stream_sse` encodes them as
server-sent events for a host to forward; :func:`read_ui_message` (or :class:`UIMessageStreamReader`,
chunk by chunk) reads them back into a :class:`~toolplug.messages.UIMessage`, which
:func:`~toolplug.messages.convert_to_model_messages` turns into the conversation of the next call::

    stream = stream_text(model, prompt="Weather in Lisbon?", tools=[weather])
    async for event in ui_message_stream_sse(to_ui_message_stream(stream)):
        await response.write(event)

The rules:

- A valid call is ``tool-input-start``, ``tool-input-delta``..., ``tool-input-available``, then
  ``tool-output-available`` (or ``tool-output-error``, or ``tool-output-denied``). The call chunks carry
  ``title``, ``toolMetadata`` and ``dynamic`` when the call has them; the output chunks carry
  ``toolMetadata`` and ``dynamic``.
- An invalid call (unknown tool, bad input, failed repair) is a ``tool-input-error`` chunk followed by
  a ``tool-output-error`` chunk. It is marked ``dynamic`` only when its tool is unknown: the writer has
  no tool list, and a known tool keeps its ``tool-{name}`` part in the UI.
- Chunks of provider-executed calls are marked ``providerExecuted``; a provider's error result keeps the
  provider's error text (or its JSON) instead of the ``on_error`` text.
- A call waiting for approval adds a ``tool-approval-request`` chunk after its ``tool-input-available``.
  A run continued with approval responses starts with the outputs of the answered calls
  (``tool-output-available``, ``tool-output-error``, ``tool-output-denied``), before the first
  ``start-step``; read them with ``read_ui_message(..., message=...)`` into the message they continue.
- The sources a tool returned follow its output as ``source-url`` chunks (each URL once).
- Every step is bracketed by ``start-step`` and ``finish-step``; the run by ``start`` and ``finish``.
  A run that fails ends with an ``error`` chunk instead of ``finish``.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Mapping
from typing import Any, TypeAlias

from toolplug.definitions import OutputType, Source
from toolplug.errors import InvalidArgumentError, NoSuchToolError, ToolCallRepairError
from toolplug.loop import (
    FinishPart,
    FinishStepPart,
    StartStepPart,
    StreamPart,
    ToolApprovalRequestStreamPart,
    ToolCallStreamPart,
    ToolErrorStreamPart,
    ToolResultStreamPart,
)
from toolplug.messages import (
    DataUIPart,
    FileUIPart,
    ReasoningUIPart,
    SourceUrlUIPart,
    StepStartUIPart,
    TextUIPart,
    ToolCallPart,
    ToolResultPart,
    ToolUIApproval,
    ToolUIPart,
    UIMessage,
)
from toolplug.providers.base import (
    ReasoningDelta,
    TextDelta,
    ToolInputDelta,
    ToolInputEndDelta,
    ToolInputStartDelta,
)

UIMessageChunk: TypeAlias = dict[str, Any]
"""One chunk of the UI message stream: a JSON-ready dict with a ``type`` and camelCase fields."""

UIErrorHandler: TypeAlias = Callable[[BaseException | str], str]
"""Writes the ``errorText`` a UI sees for an error: gets the exception, or, for a tool call that failed
while running, the error text the model read (``Name: message``)."""

DEFAULT_ERROR_TEXT = "An error occurred."
"""What the UI sees for an error unless ``on_error`` says otherwise: server details stay on the server."""

UI_MESSAGE_STREAM_HEADERS: Mapping[str, str] = {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "connection": "keep-alive",
    "x-vercel-ai-ui-message-stream": "v1",
    "x-accel-buffering": "no",
}
"""The HTTP response headers of a UI message stream (SSE, unbuffered, protocol version 1)."""


def _masked_error(error: BaseException | str) -> str:
    return DEFAULT_ERROR_TEXT


def _invalid_call_is_dynamic(call: ToolCallPart) -> bool:
    """An invalid call is dynamic in the UI only when its tool is unknown."""
    error = call.error
    if isinstance(error, ToolCallRepairError):
        error = error.original_error
    return isinstance(error, NoSuchToolError)


def _call_fields(chunk: UIMessageChunk, call: ToolCallPart, *, dynamic: bool, title: bool = True) -> None:
    """Add the optional fields of a call chunk (only those the call has)."""
    if call.provider_executed:
        chunk["providerExecuted"] = True
    if call.provider_metadata:
        chunk["providerMetadata"] = call.provider_metadata
    if call.tool_metadata:
        chunk["toolMetadata"] = call.tool_metadata
    if dynamic:
        chunk["dynamic"] = True
    if title and call.title is not None:
        chunk["title"] = call.title


class _Writer:
    """Turns stream parts into chunks; keeps the open text or reasoning block and the ids."""

    def __init__(self, on_error: UIErrorHandler, send_reasoning: bool, send_sources: bool) -> None:
        self.on_error = on_error
        self.send_reasoning = send_reasoning
        self.send_sources = send_sources
        self._block: tuple[str, str] | None = None  # (kind, id) of the open text or reasoning block
        self._next_id = 0
        self._sources_sent: set[str] = set()

    def close_block(self) -> list[UIMessageChunk]:
        if self._block is None:
            return []
        kind, block_id = self._block
        self._block = None
        return [{"type": f"{kind}-end", "id": block_id}]

    def _delta(self, kind: str, text: str) -> list[UIMessageChunk]:
        chunks: list[UIMessageChunk] = []
        if self._block is None or self._block[0] != kind:
            chunks.extend(self.close_block())
            self._block = (kind, f"{kind}-{self._next_id}")
            self._next_id += 1
            chunks.append({"type": f"{kind}-start", "id": self._block[1]})
        chunks.append({"type": f"{kind}-delta", "id": self._block[1], "delta": text})
        return chunks

    def chunks(self, part: StreamPart | Mapping[str, Any]) -> list[UIMessageChunk]:
        if isinstance(part, Mapping):
            return [dict(part)]  # a host's own chunk (data-*, message-metadata), written as it is
        if isinstance(part, TextDelta):
            return self._delta("text", part.text) if part.text else []
        if isinstance(part, ReasoningDelta):
            if not self.send_reasoning or not part.text:
                return []
            return self._delta("reasoning", part.text)
        chunks = self.close_block()
        if isinstance(part, StartStepPart):
            chunks.append({"type": "start-step"})
        elif isinstance(part, ToolInputStartDelta):
            chunks.append(self._tool_input_start(part))
        elif isinstance(part, ToolInputDelta):
            chunks.append({"type": "tool-input-delta", "toolCallId": part.tool_call_id, "inputTextDelta": part.delta})
        elif isinstance(part, ToolInputEndDelta):
            pass  # the protocol has no such chunk: tool-input-available follows
        elif isinstance(part, ToolCallStreamPart):
            chunks.append(self._tool_call(part.tool_call))
        elif isinstance(part, ToolErrorStreamPart):
            chunks.extend(self._tool_error(part))
        elif isinstance(part, ToolResultStreamPart):
            chunks.append(self._tool_result(part.result))
            if part.sources and self.send_sources:
                chunks.extend(self._sources(part.sources))
        elif isinstance(part, ToolApprovalRequestStreamPart):
            request = part.approval_request
            chunk: UIMessageChunk = {
                "type": "tool-approval-request",
                "approvalId": request.approval_id,
                "toolCallId": request.tool_call_id,
            }
            if request.is_automatic:
                chunk["isAutomatic"] = True
            chunks.append(chunk)
        elif isinstance(part, FinishStepPart):
            chunks.append({"type": "finish-step"})
        elif isinstance(part, FinishPart):
            if self.send_sources:
                chunks.extend(self._sources(part.result.sources))  # any not streamed with their result
            chunks.append({"type": "finish", "finishReason": part.result.finish_reason})
        return chunks

    def _tool_input_start(self, part: ToolInputStartDelta) -> UIMessageChunk:
        chunk: UIMessageChunk = {
            "type": "tool-input-start",
            "toolCallId": part.tool_call_id,
            "toolName": part.tool_name,
        }
        if part.provider_executed:
            chunk["providerExecuted"] = True
        # The provider's delta knows only the name; the loop added title, metadata and dynamic.
        if part.tool_metadata:
            chunk["toolMetadata"] = part.tool_metadata
        if part.dynamic:
            chunk["dynamic"] = True
        if part.title is not None:
            chunk["title"] = part.title
        return chunk

    def _tool_call(self, call: ToolCallPart) -> UIMessageChunk:
        if call.invalid:
            # Only a provider-executed call arrives here invalid; the provider's own result follows.
            return self._input_error(call)
        chunk: UIMessageChunk = {
            "type": "tool-input-available",
            "toolCallId": call.tool_call_id,
            "toolName": call.tool_name,
            "input": call.input,
        }
        _call_fields(chunk, call, dynamic=call.dynamic)
        return chunk

    def _input_error(self, call: ToolCallPart) -> UIMessageChunk:
        chunk: UIMessageChunk = {
            "type": "tool-input-error",
            "toolCallId": call.tool_call_id,
            "toolName": call.tool_name,
            "input": call.input,
        }
        _call_fields(chunk, call, dynamic=_invalid_call_is_dynamic(call))
        chunk["errorText"] = self.on_error(call.error if call.error is not None else "invalid tool call")
        return chunk

    def _tool_error(self, part: ToolErrorStreamPart) -> list[UIMessageChunk]:
        call = part.tool_call
        chunks: list[UIMessageChunk] = []
        if call.invalid:
            chunks.append(self._input_error(call))
            error: BaseException | str = call.error if call.error is not None else part.error_text
            dynamic = _invalid_call_is_dynamic(call)
        else:
            error = part.error_text
            dynamic = call.dynamic
        chunk: UIMessageChunk = {"type": "tool-output-error", "toolCallId": call.tool_call_id}
        chunk["errorText"] = self.on_error(error)
        _output_fields(chunk, call.provider_executed, None, call.tool_metadata, dynamic)
        chunks.append(chunk)
        return chunks

    def _tool_result(self, result: ToolResultPart) -> UIMessageChunk:
        if result.output_type is OutputType.EXECUTION_DENIED:
            return {"type": "tool-output-denied", "toolCallId": result.tool_call_id}
        chunk: UIMessageChunk
        if result.output_type is OutputType.ERROR_TEXT or result.output_type is OutputType.ERROR_JSON:
            # Only the provider's results arrive here as errors (the loop's own are tool-error parts):
            # the UI gets the provider's text, or its JSON, never the on_error text.
            output = result.output
            error_text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False)
            chunk = {"type": "tool-output-error", "toolCallId": result.tool_call_id, "errorText": error_text}
        else:
            chunk = {"type": "tool-output-available", "toolCallId": result.tool_call_id, "output": result.output}
        _output_fields(chunk, result.provider_executed, result.provider_metadata, result.tool_metadata, result.dynamic)
        return chunk

    def _sources(self, sources: Iterable[Source]) -> list[UIMessageChunk]:
        chunks: list[UIMessageChunk] = []
        for source in sources:
            if source.url in self._sources_sent:
                continue
            self._sources_sent.add(source.url)
            chunk: UIMessageChunk = {"type": "source-url", "sourceId": f"source-{len(self._sources_sent) - 1}"}
            chunk["url"] = source.url
            if source.title:
                chunk["title"] = source.title
            chunks.append(chunk)
        return chunks


def _output_fields(
    chunk: UIMessageChunk,
    provider_executed: bool,
    provider_metadata: Mapping[str, Any] | None,
    tool_metadata: Mapping[str, Any] | None,
    dynamic: bool,
) -> None:
    if provider_executed:
        chunk["providerExecuted"] = True
    if provider_metadata:
        chunk["providerMetadata"] = dict(provider_metadata)
    if tool_metadata:
        chunk["toolMetadata"] = dict(tool_metadata)
    if dynamic:
        chunk["dynamic"] = True


async def to_ui_message_stream(
    stream: AsyncIterable[StreamPart | Mapping[str, Any]],
    *,
    on_error: UIErrorHandler | None = None,
    send_reasoning: bool = True,
    send_sources: bool = True,
    message_id: str | None = None,
) -> AsyncIterator[UIMessageChunk]:
    """The UI message stream of a streamed run: JSON-ready chunk dicts, in order.

    :param stream: a :class:`~toolplug.loop.StreamTextResult` (or any iterable of its parts); it is
        consumed here, so read its ``result`` afterwards. A mapping among the parts is a chunk of the
        host's own (a ``data-*`` part, ``message-metadata``): it is written as it is, in its place.
    :param on_error: the ``errorText`` of an error, of an invalid call and of a failed client tool call;
        it gets the exception (or, for a call that failed while running, the text the model read). By
        default the UI sees :data:`DEFAULT_ERROR_TEXT`. A provider's error result always keeps the
        provider's text. Log the exception here: a failing run ends with an ``error`` chunk, not an
        exception.
    :param send_reasoning: include reasoning chunks.
    :param send_sources: include a ``source-url`` chunk for each source the tools returned, right after
        the output of the call that returned it (each URL once).
    :param message_id: sent as ``messageId`` in the ``start`` chunk.

    Text and reasoning deltas are grouped into blocks (``text-start``, ``text-delta``..., ``text-end``)
    with ids made here; a block ends at the next part of another kind.
    """
    writer = _Writer(on_error or _masked_error, send_reasoning, send_sources)
    start: UIMessageChunk = {"type": "start"}
    if message_id is not None:
        start["messageId"] = message_id
    yield start
    try:
        async for part in stream:
            for chunk in writer.chunks(part):
                yield chunk
    except Exception as exc:  # the UI gets an error chunk; on_error sees (and may log) the exception
        for chunk in writer.close_block():
            yield chunk
        yield {"type": "error", "errorText": writer.on_error(exc)}


async def ui_message_stream_sse(chunks: AsyncIterable[Mapping[str, Any]]) -> AsyncIterator[str]:
    """Encode UI message stream chunks as server-sent events: ``data: {json}\\n\\n``, then ``data: [DONE]``.

    Send the events with :data:`UI_MESSAGE_STREAM_HEADERS`.
    """
    async for chunk in chunks:
        yield f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n"
    yield "data: [DONE]\n\n"


# --- reading the stream back ---------------------------------------------------------------------


class UIMessageStreamReader:
    """Builds the assistant :class:`~toolplug.messages.UIMessage` of a UI message stream, chunk by chunk.

    :attr:`message` is the message so far (a chat UI renders it after each :meth:`add`);
    :attr:`finish_reason` is set by the ``finish`` chunk, :attr:`errors` collects ``error`` chunks.
    A chunk about a text block or tool call that never started raises InvalidArgumentError; chunk
    types this reader does not know are skipped.

    :param message: the assistant message the stream continues (a run continued with approval
        responses streams the outputs of calls this message holds); a copy is extended, the given
        message is left unchanged. Its id is kept unless ``message_id`` or the ``start`` chunk sets one.
    """

    def __init__(self, message_id: str = "", *, message: UIMessage | None = None) -> None:
        if message is None:
            self.message = UIMessage(message_id, "assistant")
        else:
            self.message = copy.deepcopy(message)
            if message_id:
                self.message.id = message_id
        self.finish_reason: str | None = None
        self.errors: list[str] = []
        self._text: dict[str, TextUIPart] = {}
        self._reasoning: dict[str, ReasoningUIPart] = {}
        self._input_text: dict[str, str] = {}

    def add(self, chunk: Mapping[str, Any]) -> None:
        """Apply one chunk to :attr:`message`."""
        kind = chunk.get("type")
        parts = self.message.parts
        if not isinstance(kind, str):
            return
        if kind.startswith(("text-", "reasoning-")):
            self._text_chunk(kind, chunk)
        elif kind.startswith("tool-input-"):
            self._tool_input_chunk(kind, chunk)
        elif kind.startswith(("tool-output-", "tool-approval-")):
            self._tool_result_chunk(kind, chunk)
        elif kind == "start":
            if chunk.get("messageId") is not None:
                self.message.id = chunk["messageId"]
            self._metadata(chunk.get("messageMetadata"))
        elif kind == "start-step":
            parts.append(StepStartUIPart())
        elif kind == "finish-step":
            self._text.clear()
            self._reasoning.clear()
        elif kind == "source-url":
            parts.append(
                SourceUrlUIPart(chunk["sourceId"], chunk["url"], chunk.get("title"), chunk.get("providerMetadata"))
            )
        elif kind == "file":
            parts.append(FileUIPart(chunk["url"], chunk["mediaType"], provider_metadata=chunk.get("providerMetadata")))
        elif kind.startswith("data-"):
            if not chunk.get("transient"):
                parts.append(DataUIPart(kind[len("data-") :], chunk.get("data"), chunk.get("id")))
        elif kind == "finish":
            if chunk.get("finishReason") is not None:
                self.finish_reason = chunk["finishReason"]
            self._metadata(chunk.get("messageMetadata"))
        elif kind == "message-metadata":
            self._metadata(chunk.get("messageMetadata"))
        elif kind == "error":
            self.errors.append(str(chunk.get("errorText", "")))

    def _text_chunk(self, kind: str, chunk: Mapping[str, Any]) -> None:
        """``text-*`` and ``reasoning-*``: a block starts, grows by deltas, ends."""
        if kind in ("text-start", "reasoning-start"):
            block: TextUIPart | ReasoningUIPart
            if kind == "text-start":
                block = self._text[chunk["id"]] = TextUIPart("", "streaming", chunk.get("providerMetadata"))
            else:
                block = self._reasoning[chunk["id"]] = ReasoningUIPart("", "streaming", chunk.get("providerMetadata"))
            self.message.parts.append(block)
            return
        if kind not in ("text-delta", "text-end", "reasoning-delta", "reasoning-end"):
            return
        blocks: Mapping[str, TextUIPart | ReasoningUIPart]
        blocks = self._text if kind.startswith("text") else self._reasoning
        found = blocks.get(chunk.get("id", ""))
        if found is None:
            raise InvalidArgumentError("chunk", f"{kind} for block {chunk.get('id')!r}, which never started")
        if kind.endswith("delta"):
            found.text += chunk["delta"]
        else:
            found.state = "done"
        if chunk.get("providerMetadata") is not None:
            found.provider_metadata = chunk["providerMetadata"]

    def _tool_input_chunk(self, kind: str, chunk: Mapping[str, Any]) -> None:
        """``tool-input-*``: a call's input streams in, arrives whole, or is invalid."""
        if kind == "tool-input-start":
            self._input_text[chunk["toolCallId"]] = ""
            part = self._tool_part(chunk, create=True)
            part.state = "input-streaming"
            self._call_fields(part, chunk)
        elif kind == "tool-input-delta":
            call_id = chunk["toolCallId"]
            if call_id not in self._input_text:
                raise InvalidArgumentError("chunk", f"tool-input-delta for call {call_id!r}, which never started")
            text = self._input_text[call_id] = self._input_text[call_id] + chunk["inputTextDelta"]
            with contextlib.suppress(ValueError):  # incomplete JSON: keep the input parsed so far
                self._tool_part(chunk).input = json.loads(text)
        elif kind == "tool-input-available":
            part = self._tool_part(chunk, create=True)
            part.state = "input-available"
            part.input = chunk.get("input")
            self._call_fields(part, chunk)
        elif kind == "tool-input-error":
            part = self._tool_part(chunk, create=True)
            self._call_fields(part, chunk)
            part.state = "output-error"
            part.error_text = chunk.get("errorText", "")
            if part.dynamic:
                part.input, part.raw_input = chunk.get("input"), None
            else:  # a tool-{name} part holds typed input only; the model's input stays raw
                part.input, part.raw_input = None, chunk.get("input")

    def _tool_result_chunk(self, kind: str, chunk: Mapping[str, Any]) -> None:
        """``tool-approval-request`` and ``tool-output-*``: what became of a call."""
        if kind == "tool-approval-request":
            part = self._tool_part(chunk)
            part.state = "approval-requested"
            part.approval = ToolUIApproval(chunk["approvalId"], is_automatic=bool(chunk.get("isAutomatic", False)))
        elif kind == "tool-output-denied":
            self._tool_part(chunk).state = "output-denied"
        elif kind in ("tool-output-available", "tool-output-error"):
            part = self._tool_part(chunk)
            if kind == "tool-output-available":
                part.state = "output-available"
                part.output = chunk.get("output")
                part.preliminary = bool(chunk.get("preliminary", False))
            else:
                part.state = "output-error"
                part.error_text = chunk.get("errorText", "")
            if chunk.get("providerExecuted"):
                part.provider_executed = True
            if chunk.get("providerMetadata") is not None:
                part.result_provider_metadata = chunk["providerMetadata"]
            if chunk.get("dynamic") is not None:
                part.dynamic = bool(chunk["dynamic"])
            if chunk.get("toolMetadata") is not None:
                part.tool_metadata = chunk["toolMetadata"]

    def _metadata(self, metadata: Any) -> None:
        if metadata is None:
            return
        if isinstance(self.message.metadata, dict) and isinstance(metadata, dict):
            self.message.metadata = {**self.message.metadata, **metadata}
        else:
            self.message.metadata = metadata

    def _tool_part(self, chunk: Mapping[str, Any], *, create: bool = False) -> ToolUIPart:
        call_id = chunk["toolCallId"]
        for part in reversed(self.message.parts):
            if isinstance(part, ToolUIPart) and part.tool_call_id == call_id:
                return part
        if not create:
            raise InvalidArgumentError("chunk", f"{chunk.get('type')} for tool call {call_id!r}, which never started")
        part = ToolUIPart(call_id, chunk["toolName"], "input-streaming", dynamic=bool(chunk.get("dynamic", False)))
        self.message.parts.append(part)
        return part

    @staticmethod
    def _call_fields(part: ToolUIPart, chunk: Mapping[str, Any]) -> None:
        if chunk.get("providerExecuted"):
            part.provider_executed = True  # once set, it stays
        if chunk.get("providerMetadata") is not None:
            part.call_provider_metadata = chunk["providerMetadata"]
        if chunk.get("title") is not None:
            part.title = chunk["title"]
        if chunk.get("toolMetadata") is not None:
            part.tool_metadata = chunk["toolMetadata"]
        if chunk.get("dynamic") is not None:
            part.dynamic = bool(chunk["dynamic"])


async def read_ui_message(
    chunks: AsyncIterable[Mapping[str, Any]] | Iterable[Mapping[str, Any]],
    *,
    message_id: str = "",
    message: UIMessage | None = None,
) -> UIMessage:
    """Read a whole UI message stream into the assistant :class:`~toolplug.messages.UIMessage` it builds.

    The ``start`` chunk's ``messageId`` wins over ``message_id``. ``message`` is the assistant message
    the stream continues (see :class:`UIMessageStreamReader`). For the message as it grows, feed
    :class:`UIMessageStreamReader` instead.
    """
    reader = UIMessageStreamReader(message_id, message=message)
    if isinstance(chunks, AsyncIterable):
        async for chunk in chunks:
            reader.add(chunk)
    else:
        for chunk in chunks:
            reader.add(chunk)
    return reader.message


__all__ = [
    "DEFAULT_ERROR_TEXT",
    "UI_MESSAGE_STREAM_HEADERS",
    "UIErrorHandler",
    "UIMessageChunk",
    "UIMessageStreamReader",
    "read_ui_message",
    "to_ui_message_stream",
    "ui_message_stream_sse",
]
