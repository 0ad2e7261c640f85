"""The Chat Completions adapter against a local server speaking the API (WIRE-2, LOOP-9, LOOP-11, LOOP-14)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from _provider_server import (
    Reply,
    assert_golden,
    chat_completion,
    chat_stream,
    golden_conversation,
    golden_definitions,
    openapi_validator,
    provider_server,
)
from pydantic import ValidationError

from toolplug.calls import ToolChoice
from toolplug.config import ProviderSection
from toolplug.definitions import OutputType
from toolplug.errors import InvalidArgumentError, ProviderResponseError, ToolExecutionBlockedError
from toolplug.loop import generate_text, loop_finished, stream_text
from toolplug.messages import SystemMessage, ToolResultPart
from toolplug.providers.base import ProviderAdapter, RoundRequest, TextDelta
from toolplug.providers.http import RetryPolicy
from toolplug.providers.openai_chat import ADAPTER_FACTORY, OpenAIChatAdapter
from toolplug.tools import function_tool

KEY = "sk-chat-test-key-000"


def adapter(url: str, **extra: Any) -> ProviderAdapter:
    profile = ProviderSection(api="openai-chat", model="gpt-test", base_url=url, server="official", extra=extra)
    return ADAPTER_FACTORY.create(profile, provider_id="openai", api_key=KEY, retry=RetryPolicy(0))


def weather_tool() -> Any:
    return function_tool(
        "get_weather",
        "Get the weather.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        lambda args: {"city": args["city"], "temperature": 21},
    )


def request(tools: Any = (), concurrency: int | None = 1) -> RoundRequest:
    return RoundRequest(0, [SystemMessage("You are helpful.")], list(tools), ToolChoice.AUTO, concurrency)


def run_golden_round(**extra: Any) -> dict[str, Any]:
    with provider_server() as server:
        server.reply(Reply(200, chat_completion("Lisbon is sunny.")))
        model = adapter(server.url, **extra)
        model.begin(golden_conversation())
        asyncio.run(model.run_round(request(golden_definitions())))
    body = server.requests[0].body
    assert server.requests[0].path == "/chat/completions"
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    return body  # type: ignore[no-any-return]


def test_golden_request_body() -> None:
    # REQ: WIRE-2
    assert_golden("openai_chat_request", run_golden_round())


def test_golden_body_matches_the_openapi_schema() -> None:
    # REQ: WIRE-2
    validator = openapi_validator("CreateChatCompletionRequest")
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(run_golden_round())]
    assert not errors


def test_one_tool_message_per_result_and_error_mapping() -> None:
    # REQ: WIRE-2
    # REQ: LOOP-11
    messages = run_golden_round()["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "tool"]
    assert messages[2]["tool_calls"][0] == {
        "id": "call_a",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city":"Lisbon","unit":null}'},
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "call_a", "content": '{"temperature":21,"unit":"celsius"}'}
    assert json.loads(messages[4]["content"]) == {"error": "Tool execution failed: dictionary offline"}


def test_parallel_tool_calls_false_with_tools_at_concurrency_1_and_not_overridable() -> None:
    # REQ: LOOP-9
    body = run_golden_round(parallel_tool_calls=True, temperature=0.2)
    assert body["parallel_tool_calls"] is False
    assert body["model"] == "gpt-test" and body["temperature"] == 0.2
    assert [t["function"]["name"] for t in body["tools"]] == ["get_weather", "lookup"]


@pytest.mark.parametrize(
    "key", ["model", "tools", "tool_choice", "messages", "stream", "max_tokens", "max_completion_tokens"]
)
def test_an_extra_parameter_toolplug_manages_is_an_error_not_dropped(key: str) -> None:
    # REQ: WIRE-6
    with pytest.raises(ValidationError, match=f"'{key}' is a field toolplug manages"):
        ProviderSection(api="openai-chat", model="m", extra={key: "x"})
    # and an adapter built in code refuses it too
    with pytest.raises(InvalidArgumentError, match="toolplug manages"):
        OpenAIChatAdapter(None, provider_id="p", model_id="m", extra={key: "x"})  # type: ignore[arg-type]


def test_parallel_tool_calls_omitted_without_tools() -> None:
    # REQ: WIRE-2
    with provider_server() as server:
        server.reply(Reply(200, chat_completion("hi")), Reply(200, chat_completion("hi")))
        for tools in ((), golden_definitions()):
            model = adapter(server.url, parallel_tool_calls=True)
            model.begin(golden_conversation())
            asyncio.run(model.run_round(request(tools, concurrency=None)))
    without, with_tools = server.bodies()
    assert "parallel_tool_calls" not in without and "tools" not in without
    assert with_tools["parallel_tool_calls"] is True  # concurrency above 1: the admin's extra applies


def test_full_loop_non_streamed_with_missing_call_id_supplied() -> None:
    # REQ: WIRE-2
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [(None, "get_weather", '{"city": "Lisbon"}')])),
            Reply(200, chat_completion("It is 21 degrees in Lisbon.")),
        )
        result = asyncio.run(
            generate_text(
                adapter(server.url),
                prompt="Weather?",
                tools=[weather_tool()],
                stop_when=loop_finished(),
                tool_call_concurrency=1,
            )
        )
    assert result.text == "It is 21 degrees in Lisbon."
    call_id = result.steps[0].tool_calls[0].tool_call_id
    assert call_id.startswith("call_")
    second = server.bodies()[1]["messages"]
    assert second[1]["tool_calls"][0]["id"] == call_id
    assert second[2] == {"role": "tool", "tool_call_id": call_id, "content": '{"city":"Lisbon","temperature":21}'}
    assert result.steps[0].provider == "openai" and result.steps[0].model == "gpt-test"
    assert result.usage.input_tokens == 20


def test_full_loop_streamed_via_stream_text() -> None:
    # REQ: LOOP-14
    first = chat_completion("Checking. ", [("call_1", "get_weather", '{"city": "Porto"}')])
    final = chat_completion("Porto: 21 degrees.")
    with provider_server() as server:
        server.reply(Reply(events=chat_stream(first)), Reply(events=chat_stream(final)))

        async def run() -> tuple[list[str], Any]:
            stream = stream_text(
                adapter(server.url),
                prompt="Weather?",
                tools=[weather_tool()],
                stop_when=loop_finished(),
                tool_call_concurrency=1,
            )
            texts = [part.text async for part in stream if isinstance(part, TextDelta)]
            return texts, stream.result

        texts, result = asyncio.run(run())
    assert "".join(texts) == "Checking. Porto: 21 degrees."
    assert result.steps[0].tool_calls[0].input == {"city": "Porto"}
    assert result.text == "Porto: 21 degrees."
    first_body, second_body = server.bodies()
    assert first_body["stream"] is True and first_body["stream_options"] == {"include_usage": True}
    assert second_body["messages"][-1]["content"] == '{"city":"Porto","temperature":21}'
    assert result.usage.output_tokens == 10


def test_every_output_type_reaches_the_model_as_the_sdk_says() -> None:
    # REQ: LOOP-11
    def fail(args: Any) -> Any:
        raise RuntimeError("disk on fire")

    def block(args: Any) -> Any:
        raise ToolExecutionBlockedError("Not allowed here.")

    schema = {"type": "object", "properties": {}}
    tools = [
        function_tool("ok_text", "t", schema, lambda a: "plain"),
        function_tool("ok_json", "t", schema, lambda a: {"a": 1}),
        function_tool("failing", "t", schema, fail),
        function_tool("blocked", "t", schema, block),
        function_tool("guarded", "t", schema, lambda a: "never", needs_approval=True),
    ]
    calls = [(f"c{i}", t.definition().function.name, "{}") for i, t in enumerate(tools)]
    with provider_server() as server:
        server.reply(Reply(200, chat_completion(None, calls)), Reply(200, chat_completion("done")))
        asyncio.run(
            generate_text(
                adapter(server.url),
                prompt="go",
                tools=tools,
                stop_when=loop_finished(),
                approve_tool=lambda request: False,
            )
        )
    contents = {m["tool_call_id"]: m["content"] for m in server.bodies()[1]["messages"] if m["role"] == "tool"}
    assert contents["c0"] == "plain"
    assert json.loads(contents["c1"]) == {"a": 1}
    assert json.loads(contents["c2"])["error"].startswith("Tool execution failed")
    assert json.loads(contents["c3"]) == {"error": "Not allowed here."}
    assert contents["c4"] == "Tool call execution denied."


def test_error_json_and_denied_reason_mapping() -> None:
    # REQ: LOOP-11
    from toolplug.providers._adapter_base import openai_tool_output

    assert openai_tool_output(ToolResultPart("c", "t", {"code": 7}, OutputType.ERROR_JSON)) == '{"error":{"code":7}}'
    assert openai_tool_output(ToolResultPart("c", "t", "no", OutputType.EXECUTION_DENIED)) == "no"
    assert (
        openai_tool_output(ToolResultPart("c", "t", None, OutputType.EXECUTION_DENIED)) == "Tool call execution denied."
    )


def test_stream_cut_midway_raises_and_keeps_what_arrived() -> None:
    # REQ: LOOP-14
    events = chat_stream(chat_completion("A long answer that never finishes."))
    with provider_server() as server:
        server.reply(Reply(events=events, cut_after=4))

        async def run() -> list[str]:
            received: list[str] = []
            with pytest.raises(ProviderResponseError) as caught:
                async for part in stream_text(adapter(server.url), prompt="hi"):
                    if isinstance(part, TextDelta):
                        received.append(part.text)
            assert caught.value.provider == "openai" and caught.value.request_id == "req_test_1"
            assert "ended before" in str(caught.value)
            return received

        received = asyncio.run(run())
    assert "".join(received) == "A long answer"[: len("".join(received))] and received


def test_malformed_completion_is_a_response_error() -> None:
    # REQ: WIRE-2
    with provider_server() as server:
        server.reply(Reply(200, {"id": "x", "object": "chat.completion", "choices": "nope"}))
        with pytest.raises(ProviderResponseError, match="documented shape"):
            asyncio.run(generate_text(adapter(server.url), prompt="hi"))


# --- custom (free-form text) tool calls ---------------------------------------------------------------


def _custom_completion(text: str) -> dict[str, Any]:
    completion = chat_completion(None, finish="tool_calls")
    completion["choices"][0]["message"]["tool_calls"] = [
        {"id": "call_sql", "type": "custom", "custom": {"name": "write_sql", "input": text}}
    ]
    return completion


def _custom_stream(text: str) -> list[tuple[str | None, Any]]:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-test"}
    first = {"index": 0, "id": "call_sql", "type": "custom", "custom": {"name": "write_sql", "input": ""}}
    events: list[tuple[str | None, Any]] = [
        (None, {**base, "choices": [{"index": 0, "delta": {"tool_calls": [first]}}]})
    ]
    for piece in (text[:6], text[6:]):
        delta = {"tool_calls": [{"index": 0, "type": "custom", "custom": {"input": piece}}]}
        events.append((None, {**base, "choices": [{"index": 0, "delta": delta}]}))
    events.append((None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}))
    events.append((None, "[DONE]"))
    return events


@pytest.mark.parametrize("streamed", [False, True])
def test_custom_tool_calls_are_parsed_with_their_text_as_input(streamed: bool) -> None:
    # REQ: DEF-8
    from toolplug.tools import custom_tool

    sql = "SELECT name FROM users"
    write_sql = custom_tool("write_sql", "Write SQL.", grammar_syntax="regex", grammar_definition="SELECT .+")
    with provider_server() as server:
        server.reply(Reply(events=_custom_stream(sql)) if streamed else Reply(200, _custom_completion(sql)))

        async def run() -> Any:
            options: dict[str, Any] = {"prompt": "Names?", "tools": [write_sql]}
            if not streamed:
                return await generate_text(adapter(server.url), **options)
            stream = stream_text(adapter(server.url), **options)
            async for _ in stream:
                pass
            return stream.result

        result = asyncio.run(run())
    call = result.steps[0].tool_calls[0]
    assert (call.tool_call_id, call.tool_name, call.input) == ("call_sql", "write_sql", sql)
    assert not call.invalid
    assert result.stop_reason == "no-execute" and result.pending_tool_calls[0].input == sql
    assert server.bodies()[0]["tools"][0]["type"] == "custom"


def test_custom_tool_calls_are_replayed_as_custom_calls() -> None:
    # REQ: DEF-8
    from toolplug.messages import AssistantMessage, ToolMessage, UserMessage
    from toolplug.providers.openai_chat import parse_chat_completion

    round_ = parse_chat_completion(_custom_completion("SELECT 1"))
    conversation = [
        UserMessage("One?"),
        AssistantMessage(round_.content),
        ToolMessage([ToolResultPart("call_sql", "write_sql", "1", OutputType.TEXT)]),
    ]
    with provider_server() as server:
        server.reply(Reply(200, chat_completion("One.")))
        model = adapter(server.url)
        model.begin(conversation)
        asyncio.run(model.run_round(request()))
    body = server.requests[0].body
    assert body["messages"][2]["tool_calls"] == [
        {"id": "call_sql", "type": "custom", "custom": {"name": "write_sql", "input": "SELECT 1"}}
    ]
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_sql", "content": "1"}
    errors = [
        f"{list(e.absolute_path)}: {e.message}"
        for e in openapi_validator("CreateChatCompletionRequest").iter_errors(body)
    ]
    assert not errors


# --- a failing round keeps the steps before it ----------------------------------------------------------


@pytest.mark.parametrize("streamed", [False, True])
def test_provider_error_carries_the_partial_result(streamed: bool) -> None:
    # REQ: LOOP-14
    from toolplug.errors import ProviderError

    first = chat_completion("Checking. ", [("call_1", "get_weather", '{"city": "Porto"}')])
    with provider_server() as server:
        if streamed:
            cut = chat_stream(chat_completion("Porto is warm and"))
            server.reply(Reply(events=chat_stream(first)), Reply(events=cut, cut_after=3))
        else:
            server.reply(Reply(200, first), Reply(200, {"id": "x", "object": "chat.completion", "choices": "nope"}))

        async def run() -> ProviderError:
            options: dict[str, Any] = {"prompt": "Weather?", "tools": [weather_tool()], "stop_when": loop_finished()}
            with pytest.raises(ProviderError) as caught:
                if streamed:
                    async for _ in stream_text(adapter(server.url), **options):
                        pass
                else:
                    await generate_text(adapter(server.url), **options)
            return caught.value

        error = asyncio.run(run())
    partial = error.partial_result
    assert partial is not None and partial.stop_reason == "provider-error"
    assert len(partial.steps) == 1 and partial.steps[0].tool_calls[0].input == {"city": "Porto"}
    assert partial.steps[0].tool_results[0].output == {"city": "Porto", "temperature": 21}
    assert [m.role for m in partial.response_messages] == ["assistant", "tool"]
    assert partial.text == "Checking. " and partial.usage.input_tokens == 10
