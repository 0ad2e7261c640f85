"""The UI message stream of a streamed run, its SSE encoding, and reading it back (toolplug.ui_stream)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

import toolplug
from toolplug.calls import ToolCallRepairContext, format_tool_error
from toolplug.definitions import OutputType, Source, ToolExecutionResult
from toolplug.errors import InvalidArgumentError, NoSuchToolError, ToolChoiceViolationError
from toolplug.loop import StreamTextResult, generate_text, loop_finished, stream_text
from toolplug.messages import (
    AssistantMessage,
    Message,
    ReasoningUIPart,
    SourceUrlUIPart,
    StepStartUIPart,
    TextPart,
    TextUIPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    ToolUIPart,
    UIMessage,
    UserMessage,
    convert_to_model_messages,
)
from toolplug.providers.base import Round
from toolplug.testing import ScriptedAdapter, text_round, tool_call, tool_calls_round
from toolplug.tools import dynamic_tool, function_tool, provider_defined_tool
from toolplug.ui_stream import (
    DEFAULT_ERROR_TEXT,
    UI_MESSAGE_STREAM_HEADERS,
    UIMessageStreamReader,
    read_ui_message,
    to_ui_message_stream,
    ui_message_stream_sse,
)

T = TypeVar("T")

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


async def _forecast(arguments: dict[str, Any]) -> str:
    return f"sunny in {arguments['city']}"


weather = function_tool(
    "weather", "Returns a short forecast.", CITY, _forecast, title="Weather", metadata={"category": "forecast"}
)
plain_weather = function_tool("weather", "Returns a short forecast.", CITY, _forecast, title="Weather")


def shown(error: BaseException | str) -> str:
    """An on_error that shows the UI what the model read."""
    return error if isinstance(error, str) else format_tool_error(error)


def chunks_of(stream: StreamTextResult, **options: Any) -> list[dict[str, Any]]:
    async def collect() -> list[dict[str, Any]]:
        return [chunk async for chunk in to_ui_message_stream(stream, **options)]

    return run(collect())


def of_type(chunks: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [chunk for chunk in chunks if chunk["type"] == kind]


def tool_parts(message: UIMessage) -> list[ToolUIPart]:
    return [part for part in message.parts if isinstance(part, ToolUIPart)]


# --- valid calls (LOOP-14, DEF-8) -------------------------------------------------------------------


def test_valid_call_carries_title_metadata_and_the_whole_run_is_bracketed() -> None:
    # REQ: LOOP-14, DEF-8
    model = ScriptedAdapter(
        [tool_calls_round(tool_call("weather", {"city": "Lisbon"}, call_id="c1"), text="Let me see."), "Sunny."]
    )
    stream = stream_text(model, prompt="x", tools=[weather], stop_when=loop_finished())
    chunks = chunks_of(stream, message_id="msg-1")
    assert [c["type"] for c in chunks] == [
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-available",
        "finish-step",
        "start-step",
        "text-start",
        "text-delta",
        "text-end",
        "finish-step",
        "finish",
    ]
    assert chunks[0] == {"type": "start", "messageId": "msg-1"}
    assert of_type(chunks, "tool-input-start")[0]["toolCallId"] == "c1"
    assert of_type(chunks, "tool-input-delta") == [
        {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city": "Lisbon"}'}
    ]
    assert of_type(chunks, "tool-input-available") == [
        {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "weather",
            "input": {"city": "Lisbon"},
            "toolMetadata": {"category": "forecast"},
            "title": "Weather",
        }
    ]
    # output chunks carry toolMetadata and dynamic, never a title; a static tool is not dynamic
    assert of_type(chunks, "tool-output-available") == [
        {
            "type": "tool-output-available",
            "toolCallId": "c1",
            "output": "sunny in Lisbon",
            "toolMetadata": {"category": "forecast"},
        }
    ]
    assert chunks[-1] == {"type": "finish", "finishReason": "stop"}
    assert stream.result.text == "Sunny."


def test_dynamic_tool_calls_are_marked_dynamic_on_call_and_output_chunks() -> None:
    # REQ: DEF-8, LOOP-14
    lookup = dynamic_tool("lookup", "Looks up.", {"type": "object", "properties": {}}, lambda _: {"found": 1})
    model = ScriptedAdapter([tool_call("lookup", {}, call_id="d1")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[lookup]))
    (available,) = of_type(chunks, "tool-input-available")
    (output,) = of_type(chunks, "tool-output-available")
    assert available["dynamic"] is True and "title" not in available
    assert output == {"type": "tool-output-available", "toolCallId": "d1", "output": {"found": 1}, "dynamic": True}


def test_tool_input_start_carries_title_metadata_and_dynamic() -> None:
    # REQ: LOOP-14, DEF-8
    model = ScriptedAdapter([tool_call("weather", {"city": "A"}, call_id="c1")])
    (start,) = of_type(chunks_of(stream_text(model, prompt="x", tools=[weather])), "tool-input-start")
    assert start == {
        "type": "tool-input-start",
        "toolCallId": "c1",
        "toolName": "weather",
        "toolMetadata": {"category": "forecast"},
        "title": "Weather",
    }
    # a dynamic tool, and a name no offered tool has, start dynamic (the unknown one, as its input error)
    lookup = dynamic_tool("lookup", "Looks up.", {"type": "object", "properties": {}}, lambda _: 1, title="Lookup")
    model = ScriptedAdapter(
        [tool_calls_round(tool_call("lookup", {}, call_id="d1"), tool_call("forecast", {}, call_id="u1"))]
    )
    starts = of_type(chunks_of(stream_text(model, prompt="x", tools=[weather, lookup])), "tool-input-start")
    assert starts == [
        {"type": "tool-input-start", "toolCallId": "d1", "toolName": "lookup", "dynamic": True, "title": "Lookup"},
        {"type": "tool-input-start", "toolCallId": "u1", "toolName": "forecast", "dynamic": True},
    ]
    # the reader keeps them on the part while the input streams
    reader = UIMessageStreamReader()
    reader.add({**starts[0], "toolMetadata": {"k": 1}})
    (part,) = tool_parts(reader.message)
    assert (part.state, part.dynamic, part.title, part.tool_metadata) == ("input-streaming", True, "Lookup", {"k": 1})


def test_failed_execution_is_a_tool_output_error_with_the_on_error_text() -> None:
    # REQ: LOOP-14
    def broken(arguments: dict[str, Any]) -> str:
        raise RuntimeError("backend down")

    flaky = function_tool("flaky", "Fails.", {"type": "object", "properties": {}}, broken)

    def stream() -> StreamTextResult:
        return stream_text(ScriptedAdapter([tool_call("flaky", {}, call_id="f1")]), prompt="x", tools=[flaky])

    chunks = chunks_of(stream())
    assert [c["type"] for c in chunks if c["type"].startswith("tool-")] == [
        "tool-input-start",
        "tool-input-delta",
        "tool-input-available",
        "tool-output-error",
    ]
    assert of_type(chunks, "tool-output-error") == [
        {"type": "tool-output-error", "toolCallId": "f1", "errorText": DEFAULT_ERROR_TEXT}
    ]
    seen: list[BaseException | str] = []

    def on_error(error: BaseException | str) -> str:
        seen.append(error)
        return shown(error)

    (error,) = of_type(chunks_of(stream(), on_error=on_error), "tool-output-error")
    assert isinstance(seen[0], str) and "backend down" in seen[0]  # the text the model read
    assert error["errorText"] == seen[0]


def test_a_denied_call_is_a_tool_output_denied_chunk() -> None:
    # REQ: LOOP-14, LOOP-7
    guarded = function_tool("guarded", "G.", {"type": "object", "properties": {}}, lambda _: "x", needs_approval=True)
    model = ScriptedAdapter([tool_call("guarded", {}, call_id="g1")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[guarded], approve_tool=lambda request: False))
    assert of_type(chunks, "tool-output-denied") == [{"type": "tool-output-denied", "toolCallId": "g1"}]
    assert not of_type(chunks, "tool-approval-request")


# --- invalid calls (LOOP-10) ------------------------------------------------------------------------


def test_invalid_call_to_an_unknown_tool_is_input_error_then_output_error_marked_dynamic() -> None:
    # REQ: LOOP-10, LOOP-14
    model = ScriptedAdapter([tool_call("forecast", {"city": "A"}, call_id="u1")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[weather]), on_error=shown)
    assert [c["type"] for c in chunks if c["type"].startswith("tool-")] == [
        "tool-input-start",
        "tool-input-delta",
        "tool-input-error",
        "tool-output-error",
    ]
    (input_error,) = of_type(chunks, "tool-input-error")
    (output_error,) = of_type(chunks, "tool-output-error")
    expected_text = "NoSuchToolError: Model tried to call unavailable tool 'forecast'. Available tools: weather."
    assert input_error == {
        "type": "tool-input-error",
        "toolCallId": "u1",
        "toolName": "forecast",
        "input": {"city": "A"},
        "dynamic": True,
        "errorText": expected_text,
    }
    assert output_error == {
        "type": "tool-output-error",
        "toolCallId": "u1",
        "errorText": expected_text,
        "dynamic": True,
    }


def test_invalid_input_to_a_known_tool_is_not_dynamic() -> None:
    # REQ: LOOP-10, LOOP-14
    model = ScriptedAdapter([tool_call("weather", {"town": "A"}, call_id="b1")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[weather]))
    (input_error,) = of_type(chunks, "tool-input-error")
    (output_error,) = of_type(chunks, "tool-output-error")
    assert "dynamic" not in input_error and "dynamic" not in output_error
    assert input_error["input"] == {"town": "A"} and input_error["errorText"] == DEFAULT_ERROR_TEXT
    assert not of_type(chunks, "tool-input-available")
    # the UI keeps a tool-weather part whose model input stays raw
    message = run(read_ui_message(chunks))
    (part,) = tool_parts(message)
    assert (part.type, part.state, part.input, part.raw_input) == ("tool-weather", "output-error", None, {"town": "A"})


def test_a_failed_repair_of_an_unknown_tool_stays_dynamic() -> None:
    # REQ: LOOP-10, LOOP-14
    def repair(context: ToolCallRepairContext) -> ToolCallPart:
        raise ValueError("no idea")

    model = ScriptedAdapter([tool_call("forecast", {}, call_id="r1")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[weather], repair_tool_call=repair), on_error=shown)
    (input_error,) = of_type(chunks, "tool-input-error")
    assert input_error["dynamic"] is True
    assert input_error["errorText"].startswith("ToolCallRepairError: Error repairing tool call: ValueError: no idea")


# --- provider-executed calls (LOOP-12) --------------------------------------------------------------


def test_provider_executed_chunks_keep_the_providers_error_text_and_json() -> None:
    # REQ: LOOP-12, LOOP-14
    search = provider_defined_tool("openai.web_search", "web_search", title="Web search")
    call = tool_call("web_search", {"q": "news"}, call_id="ws1", provider_executed=True)
    failed = ToolResultPart(
        "ws1", "web_search", "search backend timed out", OutputType.ERROR_TEXT, provider_executed=True
    )
    call2 = tool_call("web_search", {"q": "more"}, call_id="ws2", provider_executed=True)
    failed_json = ToolResultPart("ws2", "web_search", {"code": 429}, OutputType.ERROR_JSON, provider_executed=True)
    model = ScriptedAdapter([Round([call, failed, call2, failed_json, TextPart("Sorry.")], "stop")])
    seen: list[BaseException | str] = []

    def on_error(error: BaseException | str) -> str:
        seen.append(error)
        return "masked"

    chunks = chunks_of(stream_text(model, prompt="x", tools=[search]), on_error=on_error)
    starts = of_type(chunks, "tool-input-start")
    assert [s["providerExecuted"] for s in starts] == [True, True]
    available = of_type(chunks, "tool-input-available")
    assert available[0] == {
        "type": "tool-input-available",
        "toolCallId": "ws1",
        "toolName": "web_search",
        "input": {"q": "news"},
        "providerExecuted": True,
        "toolMetadata": {"has_input_schema": False},
        "title": "Web search",
    }
    assert of_type(chunks, "tool-output-error") == [
        {
            "type": "tool-output-error",
            "toolCallId": "ws1",
            "errorText": "search backend timed out",
            "providerExecuted": True,
        },
        {"type": "tool-output-error", "toolCallId": "ws2", "errorText": '{"code": 429}', "providerExecuted": True},
    ]
    assert seen == []  # on_error is never asked about a provider's error


def test_provider_executed_success_and_an_invalid_provider_call() -> None:
    # REQ: LOOP-12, LOOP-14
    search = provider_defined_tool(
        "openai.web_search", "web_search", input_schema={"type": "object", "properties": {"q": {"type": "string"}}}
    )
    call = tool_call(
        "web_search", {"q": 1}, call_id="ws1", provider_executed=True, provider_metadata={"openai": {"i": 1}}
    )
    result = ToolResultPart("ws1", "web_search", {"hits": []}, OutputType.JSON, provider_executed=True)
    model = ScriptedAdapter([Round([call, result], "stop")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[search]))
    (input_error,) = of_type(chunks, "tool-input-error")
    assert input_error["providerExecuted"] is True and input_error["providerMetadata"] == {"openai": {"i": 1}}
    assert "dynamic" not in input_error  # the tool is known; only its input is invalid
    # the provider already ran it: its own result follows, and no client error is added
    assert of_type(chunks, "tool-output-available") == [
        {"type": "tool-output-available", "toolCallId": "ws1", "output": {"hits": []}, "providerExecuted": True}
    ]
    assert not of_type(chunks, "tool-output-error")


# --- approvals (LOOP-7, LOOP-12) --------------------------------------------------------------------


def test_approval_request_chunk_and_continuing_from_the_ui_message() -> None:
    # REQ: LOOP-14, LOOP-7
    ran: list[dict[str, Any]] = []

    def delete(arguments: dict[str, Any]) -> str:
        ran.append(arguments)
        return "deleted"

    guarded = function_tool("delete", "Deletes.", {"type": "object", "properties": {}}, delete, needs_approval=True)
    model = ScriptedAdapter([tool_call("delete", {}, call_id="d1")])
    stream = stream_text(model, prompt="delete it", tools=[guarded])
    chunks = chunks_of(stream)
    tool_types = [c["type"] for c in chunks if c["type"].startswith("tool-")]
    assert tool_types[-2:] == ["tool-input-available", "tool-approval-request"]
    assert of_type(chunks, "tool-approval-request") == [
        {"type": "tool-approval-request", "approvalId": "approval-d1", "toolCallId": "d1"}
    ]
    assert chunks[-1] == {"type": "finish", "finishReason": "tool-calls"} and ran == []

    # the user approves in the UI; the converted conversation continues the run
    message = run(read_ui_message(chunks))
    (part,) = tool_parts(message)
    assert part.state == "approval-requested" and part.approval is not None and part.approval.id == "approval-d1"
    part.approval.approved = True
    part.state = "approval-responded"
    history = [UserMessage("delete it"), *convert_to_model_messages([message], tools={"delete": guarded})]
    result = run(generate_text(ScriptedAdapter(["Done."]), messages=history, tools=[guarded]))
    assert ran == [{}] and result.text == "Done."


def test_a_continued_run_streams_the_output_of_the_approved_call() -> None:
    # REQ: LOOP-14, LOOP-7
    guarded = function_tool(
        "delete", "D.", {"type": "object", "properties": {}}, lambda _: "deleted", needs_approval=True
    )
    history: list[Message] = [
        UserMessage("delete it"),
        AssistantMessage([ToolCallPart("d1", "delete", {}), ToolApprovalRequestPart("approval-d1", "d1")]),
        ToolMessage([ToolApprovalResponsePart("approval-d1", True)]),
    ]
    chunks = chunks_of(stream_text(ScriptedAdapter(["Done."]), messages=history, tools=[guarded]))
    assert of_type(chunks, "tool-output-available") == [
        {"type": "tool-output-available", "toolCallId": "d1", "output": "deleted"}
    ]
    # as the SDK streams it: the outputs of the answered calls come before the first step
    assert [c["type"] for c in chunks][:3] == ["start", "tool-output-available", "start-step"]


def test_a_continued_run_streams_denied_and_failed_outputs_and_reads_into_the_message_it_continues() -> None:
    # REQ: LOOP-14, LOOP-7
    def broken(arguments: dict[str, Any]) -> str:
        raise RuntimeError("backend down")

    empty = {"type": "object", "properties": {}}
    delete = function_tool("delete", "D.", empty, lambda _: "deleted", needs_approval=True)
    wipe = function_tool("wipe", "W.", empty, broken, needs_approval=True)
    model = ScriptedAdapter(
        [tool_calls_round(tool_call("wipe", {}, call_id="w1"), tool_call("delete", {}, call_id="d1"))]
    )
    first = chunks_of(stream_text(model, prompt="x", tools=[wipe, delete]))
    message = run(read_ui_message(first, message_id="m1"))
    for part in tool_parts(message):
        assert part.approval is not None
        part.approval.approved = part.tool_name == "wipe"
        part.state = "approval-responded"
    history = [UserMessage("x"), *convert_to_model_messages([message], tools={"delete": delete, "wipe": wipe})]
    chunks = chunks_of(stream_text(ScriptedAdapter(["Sorry."]), messages=history, tools=[wipe, delete]))
    assert [c["type"] for c in chunks][:4] == ["start", "tool-output-denied", "tool-output-error", "start-step"]
    assert chunks[1:3] == [
        {"type": "tool-output-denied", "toolCallId": "d1"},
        {"type": "tool-output-error", "toolCallId": "w1", "errorText": DEFAULT_ERROR_TEXT},
    ]
    # the reader continues the message that holds the calls; the given message is left unchanged
    continued = run(read_ui_message(chunks, message=message))
    assert continued.id == "m1" and [p.state for p in tool_parts(message)] == ["approval-responded"] * 2
    by_id = {part.tool_call_id: part for part in tool_parts(continued)}
    assert by_id["d1"].state == "output-denied" and by_id["w1"].state == "output-error"
    assert isinstance(continued.parts[-1], TextUIPart) and continued.parts[-1].text == "Sorry."


def test_provider_approval_request_is_forwarded() -> None:
    # REQ: LOOP-12, LOOP-14
    call = tool_call("mcp_delete", {}, call_id="m1", provider_executed=True, dynamic=True)
    model = ScriptedAdapter([Round([call, ToolApprovalRequestPart("mcp-approval-1", "m1")], "tool-calls")])
    chunks = chunks_of(stream_text(model, prompt="x"))
    (available,) = of_type(chunks, "tool-input-available")
    assert available["providerExecuted"] is True and available["dynamic"] is True
    assert of_type(chunks, "tool-approval-request") == [
        {"type": "tool-approval-request", "approvalId": "mcp-approval-1", "toolCallId": "m1"}
    ]


# --- sources, text and reasoning (LOOP-14) ----------------------------------------------------------


def test_sources_the_tools_returned_become_source_url_chunks() -> None:
    # REQ: LOOP-14, EXE-3
    async def read(arguments: dict[str, Any]) -> ToolExecutionResult:
        url = arguments["url"]
        return ToolExecutionResult(text_content=f"page {url}", sources=[Source(url=url, title=f"Page {url}")])

    reader = function_tool("read", "Reads.", {"type": "object", "properties": {"url": {"type": "string"}}}, read)

    def stream() -> StreamTextResult:
        model = ScriptedAdapter(
            [
                tool_calls_round(tool_call("read", {"url": "https://a.example/"})),
                tool_calls_round(
                    tool_call("read", {"url": "https://b.example/"}), tool_call("read", {"url": "https://a.example/"})
                ),
                "done",
            ]
        )
        return stream_text(model, prompt="x", tools=[reader], stop_when=loop_finished())

    chunks = chunks_of(stream())
    sources = of_type(chunks, "source-url")
    assert sources == [
        {"type": "source-url", "sourceId": "source-0", "url": "https://a.example/", "title": "Page https://a.example/"},
        {"type": "source-url", "sourceId": "source-1", "url": "https://b.example/", "title": "Page https://b.example/"},
    ]
    # each follows the output of the call that first returned it; none is repeated before finish
    outputs = [i for i, c in enumerate(chunks) if c["type"] == "tool-output-available"]
    assert [chunks.index(source) for source in sources] == [outputs[0] + 1, outputs[1] + 1]
    assert chunks[-2]["type"] == "finish-step" and chunks[-1]["type"] == "finish"
    assert not of_type(chunks_of(stream(), send_sources=False), "source-url")
    message = run(read_ui_message(chunks))
    assert [p.url for p in message.parts if isinstance(p, SourceUrlUIPart)] == [
        "https://a.example/",
        "https://b.example/",
    ]


def test_text_and_reasoning_deltas_are_grouped_into_blocks() -> None:
    # REQ: LOOP-14
    def stream() -> StreamTextResult:
        return stream_text(
            ScriptedAdapter([text_round("Sunny all day.", reasoning="Check sky.")], chunk_size=5), prompt="x"
        )

    chunks = chunks_of(stream())
    assert [c["type"] for c in chunks] == [
        "start",
        "start-step",
        "reasoning-start",
        "reasoning-delta",
        "reasoning-delta",
        "reasoning-end",
        "text-start",
        "text-delta",
        "text-delta",
        "text-delta",
        "text-end",
        "finish-step",
        "finish",
    ]
    reasoning_id = chunks[2]["id"]
    text_id = chunks[6]["id"]
    assert reasoning_id != text_id
    assert {c["id"] for c in chunks if c["type"].startswith("reasoning")} == {reasoning_id}
    assert "".join(c["delta"] for c in of_type(chunks, "reasoning-delta")) == "Check sky."
    assert "".join(c["delta"] for c in of_type(chunks, "text-delta")) == "Sunny all day."
    without = chunks_of(stream(), send_reasoning=False)
    assert not [c for c in without if c["type"].startswith("reasoning")]
    message = run(read_ui_message(chunks))
    assert message.parts == [
        StepStartUIPart(),
        ReasoningUIPart("Check sky.", "done"),
        TextUIPart("Sunny all day.", "done"),
    ]


def test_a_failing_run_ends_with_an_error_chunk() -> None:
    # REQ: LOOP-14, LOOP-8
    seen: list[BaseException | str] = []

    def on_error(error: BaseException | str) -> str:
        seen.append(error)
        return "The model called a tool it was not allowed to."

    model = ScriptedAdapter([tool_calls_round(tool_call("weather", {"city": "A"}), text="Hm.")])
    chunks = chunks_of(stream_text(model, prompt="x", tools=[weather], tool_choice="none"), on_error=on_error)
    assert [c["type"] for c in chunks] == ["start", "start-step", "text-start", "text-delta", "text-end", "error"]
    assert chunks[-1] == {"type": "error", "errorText": "The model called a tool it was not allowed to."}
    assert isinstance(seen[0], ToolChoiceViolationError)
    masked = chunks_of(
        stream_text(ScriptedAdapter([tool_call("weather", {})]), prompt="x", tools=[weather], tool_choice="none")
    )
    assert masked[-1] == {"type": "error", "errorText": DEFAULT_ERROR_TEXT}


# --- SSE (LOOP-14) ----------------------------------------------------------------------------------


def test_sse_encoding() -> None:
    # REQ: LOOP-14
    model = ScriptedAdapter([tool_call("weather", {"city": "Zürich"}, call_id="c1"), "Sonnig."])
    stream = stream_text(model, prompt="x", tools=[weather], stop_when=loop_finished())

    async def collect() -> tuple[list[dict[str, Any]], list[str]]:
        chunks: list[dict[str, Any]] = []

        async def tee() -> Any:
            async for chunk in to_ui_message_stream(stream):
                chunks.append(chunk)
                yield chunk

        return chunks, [event async for event in ui_message_stream_sse(tee())]

    chunks, events = run(collect())
    assert events[-1] == "data: [DONE]\n\n"
    assert len(events) == len(chunks) + 1
    for event, chunk in zip(events, chunks, strict=False):
        assert event.startswith("data: ") and event.endswith("\n\n") and "\n" not in event[:-2]
        assert json.loads(event[len("data: ") :]) == chunk
    assert events[0] == 'data: {"type":"start"}\n\n'
    assert any("Zürich" in event for event in events)  # UTF-8 text, not escapes
    assert UI_MESSAGE_STREAM_HEADERS["content-type"] == "text/event-stream"
    assert UI_MESSAGE_STREAM_HEADERS["x-vercel-ai-ui-message-stream"] == "v1"


# --- reading back and the round trip (LOOP-14, LOOP-13) ---------------------------------------------


def _invalid_calls_as_plain_calls(messages: list[Message]) -> list[Message]:
    """The conversation as a UI message can hold it: invalid calls as plain calls (tool metadata stays)."""
    cleaned: list[Message] = []
    for message in messages:
        if isinstance(message, AssistantMessage | ToolMessage) and not isinstance(message.content, str):
            parts: list[Any] = []
            for part in message.content:
                if isinstance(part, ToolCallPart):
                    part = dataclasses.replace(part, invalid=False, error=None)
                parts.append(part)
            cleaned.append(dataclasses.replace(message, content=parts))  # type: ignore[arg-type]
        else:
            cleaned.append(message)
    return cleaned


def _one_tool_message_per_result(messages: list[Message]) -> list[Message]:
    """The loop puts the results of a step in one tool message; the UI conversion gives each its own."""
    split: list[Message] = []
    for message in messages:
        if isinstance(message, ToolMessage):
            split.extend(ToolMessage([part]) for part in message.content)
        else:
            split.append(message)
    return split


def test_round_trip_stream_to_ui_message_to_model_messages() -> None:
    # REQ: LOOP-14, LOOP-13
    model = ScriptedAdapter(
        [
            Round(
                [
                    TextPart("Let me see."),
                    tool_call("weather", {"city": "A"}, call_id="c1"),
                    tool_call("weather", {"city": "B"}, call_id="c2"),
                ],
                "tool-calls",
            ),
            text_round("Sunny in both.", reasoning="Both sunny."),
        ],
        chunk_size=3,
    )
    stream = stream_text(model, prompt="x", tools=[plain_weather], stop_when=loop_finished())
    message = run(read_ui_message(to_ui_message_stream(stream, message_id="m1")))
    assert message.id == "m1" and message.role == "assistant"
    assert [p.type for p in message.parts] == [
        "step-start",
        "text",
        "tool-weather",
        "tool-weather",
        "step-start",
        "reasoning",
        "text",
    ]
    first = tool_parts(message)[0]
    assert (first.state, first.input, first.output, first.title) == (
        "output-available",
        {"city": "A"},
        "sunny in A",
        "Weather",
    )
    converted = convert_to_model_messages([message], tools={"weather": plain_weather})
    assert converted == _one_tool_message_per_result(stream.result.response_messages)


def test_round_trip_with_invalid_provider_and_error_calls() -> None:
    # REQ: LOOP-14, LOOP-10, LOOP-12
    search = provider_defined_tool("openai.web_search", "web_search")
    model = ScriptedAdapter(
        [
            Round(
                [
                    tool_call("web_search", {"q": "n"}, call_id="ws1", provider_executed=True),
                    ToolResultPart(
                        "ws1", "web_search", "quota exceeded", OutputType.ERROR_TEXT, provider_executed=True
                    ),
                    tool_call("forecast", {"city": "A"}, call_id="u1"),
                    tool_call("weather", {"city": "B"}, call_id="c1"),
                ],
                "tool-calls",
            ),
            "ok",
        ]
    )
    stream = stream_text(model, prompt="x", tools=[search, weather], stop_when=loop_finished())
    message = run(read_ui_message(to_ui_message_stream(stream, on_error=shown)))
    by_id = {part.tool_call_id: part for part in tool_parts(message)}
    assert by_id["ws1"].provider_executed and by_id["ws1"].error_text == "quota exceeded"
    assert by_id["u1"].type == "dynamic-tool" and by_id["u1"].state == "output-error"
    assert by_id["c1"].type == "tool-weather" and by_id["c1"].state == "output-available"
    converted = convert_to_model_messages([message], tools={"web_search": search, "weather": weather})
    assert converted == _one_tool_message_per_result(_invalid_calls_as_plain_calls(stream.result.response_messages))
    # the error the model read survives the trip when on_error shows it
    (unknown_result,) = [
        part
        for m in converted
        if isinstance(m, ToolMessage)
        for part in m.content
        if isinstance(part, ToolResultPart) and part.tool_call_id == "u1"
    ]
    assert unknown_result.output_type is OutputType.ERROR_TEXT
    assert unknown_result.output == format_tool_error(NoSuchToolError("forecast", ["web_search", "weather"]))


def test_tool_metadata_survives_the_ui_round_trip() -> None:
    # REQ: DEF-8, LOOP-14
    stream = stream_text(ScriptedAdapter([tool_call("weather", {"city": "A"})]), prompt="x", tools=[weather])
    message = run(read_ui_message(to_ui_message_stream(stream)))
    (part,) = tool_parts(message)
    assert part.tool_metadata == {"category": "forecast"}
    converted = convert_to_model_messages([message])
    assistant = converted[0]
    assert isinstance(assistant, AssistantMessage)
    call = assistant.parts[0]
    assert isinstance(call, ToolCallPart) and call.tool_metadata == {"category": "forecast"}
    assert converted == _one_tool_message_per_result(stream.result.response_messages)


def test_reader_rejects_chunks_for_blocks_and_calls_that_never_started() -> None:
    # REQ: LOOP-14
    reader = UIMessageStreamReader()
    with pytest.raises(InvalidArgumentError):
        reader.add({"type": "text-delta", "id": "t9", "delta": "x"})
    with pytest.raises(InvalidArgumentError):
        reader.add({"type": "tool-output-available", "toolCallId": "nope", "output": 1})
    reader.add({"type": "data-weather", "data": {"c": 1}, "transient": True})
    reader.add({"type": "some-future-chunk"})
    reader.add({"type": "error", "errorText": "boom"})
    reader.add({"type": "finish", "finishReason": "error", "messageMetadata": {"a": 1}})
    assert reader.message.parts == [] and reader.errors == ["boom"]
    assert reader.finish_reason == "error" and reader.message.metadata == {"a": 1}


def test_reader_follows_streamed_tool_input() -> None:
    # REQ: LOOP-14
    reader = UIMessageStreamReader("m")
    reader.add({"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather", "title": "Weather"})
    reader.add({"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city": '})
    (part,) = tool_parts(reader.message)
    assert (part.state, part.input, part.title) == ("input-streaming", None, "Weather")
    reader.add({"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '"A"}'})
    assert part.input == {"city": "A"}


def test_public_exports() -> None:
    # REQ: LOOP-14
    assert toolplug.to_ui_message_stream is to_ui_message_stream
    assert toolplug.ui_message_stream_sse is ui_message_stream_sse
    assert toolplug.read_ui_message is read_ui_message
    assert toolplug.UIMessageStreamReader is UIMessageStreamReader
