"""The Responses adapter against a local server speaking the API (WIRE-3, LOOP-11, LOOP-14)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from _provider_server import (
    Reply,
    assert_golden,
    custom_definition,
    golden_conversation,
    golden_definitions,
    openapi_validator,
    provider_definition,
    provider_server,
    r_call,
    r_message,
    r_reasoning,
    responses_object,
    responses_stream,
)

from toolplug.calls import ToolChoice
from toolplug.config import ProviderSection
from toolplug.errors import ProviderResponseError
from toolplug.loop import generate_text, loop_finished, stream_text
from toolplug.messages import SystemMessage
from toolplug.providers.base import ProviderAdapter, ReasoningDelta, RoundRequest, TextDelta
from toolplug.providers.http import RetryPolicy
from toolplug.providers.openai_responses import ADAPTER_FACTORY, CALL_WITHOUT_ID
from toolplug.tools import function_tool

KEY = "sk-responses-test-key"


def adapter(url: str, **extra: Any) -> ProviderAdapter:
    profile = ProviderSection(api="openai-responses", model="gpt-test", base_url=url, server="official", extra=extra)
    return ADAPTER_FACTORY.create(profile, provider_id="openai", api_key=KEY, retry=RetryPolicy(0))


def weather_tool(calls: list[Any] | None = None) -> Any:
    def run(args: Any) -> Any:
        if calls is not None:
            calls.append(args)
        return {"city": args["city"], "temperature": 19}

    return function_tool(
        "get_weather",
        "Get the weather.",
        {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        run,
    )


def run_golden_round() -> dict[str, Any]:
    tools = [*golden_definitions(), custom_definition(), provider_definition("openai.web_search", "web_search")]
    with provider_server() as server:
        server.reply(Reply(200, responses_object(r_message("Sunny."))))
        model = adapter(server.url)
        model.begin(golden_conversation())
        asyncio.run(model.run_round(RoundRequest(0, [SystemMessage("You are helpful.")], tools, ToolChoice.AUTO, 1)))
    assert server.requests[0].path == "/responses"
    return server.requests[0].body  # type: ignore[no-any-return]


def test_golden_request_body() -> None:
    # REQ: WIRE-3
    assert_golden("openai_responses_request", run_golden_round())


def test_golden_body_matches_the_openapi_schema() -> None:
    # REQ: WIRE-3
    validator = openapi_validator("CreateResponse")
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(run_golden_round())]
    assert not errors


def test_results_go_back_by_call_id_with_errors_as_error_objects() -> None:
    # REQ: WIRE-3
    # REQ: LOOP-11
    items = run_golden_round()["input"]
    outputs = [i for i in items if i.get("type") == "function_call_output"]
    assert outputs[0] == {
        "type": "function_call_output",
        "call_id": "call_a",
        "output": '{"temperature":21,"unit":"celsius"}',
    }
    assert json.loads(outputs[1]["output"]) == {"error": "Tool execution failed: dictionary offline"}
    assert "parallel_tool_calls" not in run_golden_round()


def test_reasoning_items_and_whole_output_replayed_unchanged() -> None:
    # REQ: WIRE-3
    reasoning = r_reasoning("rs_1", "The user wants weather.", "gAAAA-encrypted")
    call = r_call("call_1", "get_weather", '{"city": "Faro"}', item_id="fc_1")
    calls: list[Any] = []
    with provider_server() as server:
        server.reply(
            Reply(200, responses_object(reasoning, r_message("Let me look.", "msg_0"), call)),
            Reply(200, responses_object(r_message("Faro: 19 degrees."))),
        )
        result = asyncio.run(
            generate_text(
                adapter(server.url, store=False),
                prompt="Weather in Faro?",
                tools=[weather_tool(calls)],
                stop_when=loop_finished(),
            )
        )
    assert calls == [{"city": "Faro"}]
    assert result.text == "Faro: 19 degrees."
    assert result.steps[0].reasoning_text == "The user wants weather."
    second = server.bodies()[1]
    assert second["include"] == ["reasoning.encrypted_content"] and second["store"] is False
    replayed = second["input"][1:]
    assert replayed[0] == reasoning  # exactly as received, encrypted content included
    assert replayed[1] == r_message("Let me look.", "msg_0")
    assert replayed[2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city":"Faro"}',
        "id": "fc_1",
    }
    assert replayed[3] == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": '{"city":"Faro","temperature":19}',
    }


def test_a_call_without_id_ends_the_conversation() -> None:
    # REQ: WIRE-3
    calls: list[Any] = []
    with provider_server() as server:
        server.reply(
            Reply(200, responses_object(r_message("Calling."), r_call(None, "get_weather", '{"city": "Faro"}')))
        )
        model = adapter(server.url)
        result = asyncio.run(
            generate_text(model, prompt="Weather?", tools=[weather_tool(calls)], stop_when=loop_finished())
        )
        assert len(server.requests) == 1
        with pytest.raises(ProviderResponseError, match="ended"):
            asyncio.run(model.run_round(RoundRequest(1, [], [], ToolChoice.AUTO)))
    assert calls == []  # never run: its result could not be answered
    assert result.finish_reason == "error" and result.steps[0].tool_calls == []
    assert result.stop_reason == "provider-ended"
    assert result.last_step.provider_metadata is not None
    assert result.steps[-1].request is not None and result.text == "Calling."
    assert CALL_WITHOUT_ID == "function_call_without_call_id"


def test_full_loop_streamed_with_reasoning() -> None:
    # REQ: LOOP-14
    first = responses_object(
        r_reasoning("rs_9", "Think about Faro."), r_call("call_9", "get_weather", '{"city": "Faro"}', "fc_9")
    )
    final = responses_object(r_message("Faro is warm."))
    with provider_server() as server:
        server.reply(Reply(events=responses_stream(first)), Reply(events=responses_stream(final)))

        async def run() -> tuple[list[Any], Any]:
            stream = stream_text(
                adapter(server.url), prompt="Weather?", tools=[weather_tool()], stop_when=loop_finished()
            )
            parts = [p async for p in stream if isinstance(p, TextDelta | ReasoningDelta)]
            return parts, stream.result

        parts, result = asyncio.run(run())
    assert "".join(p.text for p in parts if isinstance(p, ReasoningDelta)) == "Think about Faro."
    assert "".join(p.text for p in parts if isinstance(p, TextDelta)) == "Faro is warm."
    second = server.bodies()[1]
    assert second["stream"] is True
    assert second["input"][1]["id"] == "rs_9" and second["input"][1]["encrypted_content"] == "enc-1"
    assert second["input"][3]["call_id"] == "call_9"
    assert result.usage.reasoning_tokens == 6


def test_stream_cut_midway_is_a_response_error() -> None:
    # REQ: LOOP-14
    with provider_server() as server:
        server.reply(Reply(events=responses_stream(responses_object(r_message("Half of an answer."))), cut_after=4))

        async def run() -> str:
            text = ""
            with pytest.raises(ProviderResponseError, match="ended before"):
                async for part in stream_text(adapter(server.url), prompt="hi"):
                    if isinstance(part, TextDelta):
                        text += part.text
            return text

        assert asyncio.run(run()) == "Half of "


def test_image_content_parts_go_as_input_images_never_as_base64_text() -> None:
    # REQ: MCP-4, LOOP-11
    from toolplug.definitions import OutputType
    from toolplug.messages import ToolResultPart
    from toolplug.providers._adapter_base import openai_tool_output
    from toolplug.providers.openai_responses import responses_content_output

    parts = [{"type": "text", "text": "A chart:"}, {"type": "image", "data": "iVBORw0KGgo=", "media_type": "image/png"}]
    items = responses_content_output(parts)
    assert items == [
        {"type": "input_text", "text": "A chart:"},
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
    ]
    as_text = openai_tool_output(ToolResultPart("c1", "chart", parts, OutputType.CONTENT))
    assert "iVBORw0KGgo=" not in as_text and "binary content not shown" in as_text


# --- prompt cache breakpoints, output schemas, mcp_list_tools -----------------------------------------


def _result(output: Any, output_type: Any, **metadata: Any) -> Any:
    from toolplug.messages import ToolResultPart

    return ToolResultPart("call_a", "get_weather", output, output_type, **metadata)


def _replayed_output(conversation: list[Any], tools: list[Any] | None = None) -> Any:
    with provider_server() as server:
        server.reply(Reply(200, responses_object(r_message("ok"))))
        model = adapter(server.url)
        model.begin(conversation)
        asyncio.run(model.run_round(RoundRequest(0, [], tools or [], ToolChoice.AUTO)))
    body = server.requests[0].body
    return next(i["output"] for i in body["input"] if i.get("type") == "function_call_output"), body


def _conversation(*results: Any, message_metadata: Any = None) -> list[Any]:
    from toolplug.messages import AssistantMessage, ToolCallPart, ToolMessage, UserMessage

    return [
        UserMessage("Weather in Lisbon?"),
        AssistantMessage([ToolCallPart("call_a", "get_weather", {"city": "Lisbon"})]),
        ToolMessage(list(results), provider_metadata=message_metadata),
    ]


def test_prompt_cache_breakpoint_on_every_scalar_result_type() -> None:
    # REQ: WIRE-3
    # REQ: LOOP-11
    from toolplug.definitions import OutputType
    from toolplug.providers.openai_responses import responses_tool_output

    marked = {"mode": "explicit"}
    cases = [
        ("sunny", OutputType.TEXT, "sunny"),
        ({"t": 21}, OutputType.JSON, '{"t":21}'),
        ("offline", OutputType.ERROR_TEXT, '{"error":"offline"}'),
        ({"code": 7}, OutputType.ERROR_JSON, '{"error":{"code":7}}'),
        (None, OutputType.EXECUTION_DENIED, "Tool call execution denied."),
    ]
    for output, output_type, text in cases:
        result = _result(output, output_type)
        assert responses_tool_output(result) == text
        assert responses_tool_output(result, breakpoint=marked) == [
            {"type": "input_text", "text": text, "prompt_cache_breakpoint": {"mode": "explicit"}}
        ]
    # Content parts are not scalar: no breakpoint array for them.
    content = _result([{"type": "text", "text": "a"}], OutputType.CONTENT)
    assert responses_tool_output(content, breakpoint=marked) == "a"


def test_prompt_cache_breakpoint_from_the_message_or_the_output_and_the_output_wins() -> None:
    # REQ: WIRE-3
    # REQ: LOOP-11
    from toolplug.definitions import OutputType

    on = {"openai": {"promptCacheBreakpoint": True}}
    off = {"openai": {"promptCacheBreakpoint": False}}
    expected = [{"type": "input_text", "text": "sunny", "prompt_cache_breakpoint": {"mode": "explicit"}}]

    output, body = _replayed_output(_conversation(_result("sunny", OutputType.TEXT), message_metadata=on))
    assert output == expected
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in openapi_validator("CreateResponse").iter_errors(body)]
    assert not errors

    output, _ = _replayed_output(_conversation(_result("sunny", OutputType.TEXT, output_provider_metadata=on)))
    assert output == expected
    output, _ = _replayed_output(
        _conversation(_result("sunny", OutputType.TEXT, output_provider_metadata=off), message_metadata=on)
    )
    assert output == "sunny"  # the output's options win over the message's
    output, _ = _replayed_output(
        _conversation(_result("sunny", OutputType.TEXT, output_provider_metadata=on), message_metadata=off)
    )
    assert output == expected
    assert _replayed_output(_conversation(_result("sunny", OutputType.TEXT)))[0] == "sunny"


def test_prompt_cache_breakpoint_on_a_result_recorded_during_the_loop() -> None:
    # REQ: WIRE-3
    from toolplug.definitions import OutputType
    from toolplug.providers.base import Round

    with provider_server() as server:
        server.reply(
            Reply(200, responses_object(r_call("call_a", "get_weather", '{"city":"Faro"}'))),
            Reply(200, responses_object(r_message("ok"))),
        )
        model = adapter(server.url)
        model.begin([])
        round_ = asyncio.run(model.run_round(RoundRequest(0, [], [], ToolChoice.AUTO)))
        assert isinstance(round_, Round)
        model.record_model_turn(round_)
        on = {"openai": {"promptCacheBreakpoint": True}}
        model.record_tool_result("call_a", _result({"t": 19}, OutputType.JSON, provider_metadata=on))
        asyncio.run(model.run_round(RoundRequest(1, [], [], ToolChoice.AUTO)))
    output = server.bodies()[1]["input"][-1]
    assert output["type"] == "function_call_output" and output["call_id"] == "call_a"
    assert output["output"] == [
        {"type": "input_text", "text": '{"t":19}', "prompt_cache_breakpoint": {"mode": "explicit"}}
    ]


def test_tool_with_output_schema_sends_it_and_its_text_and_denied_results_as_json_strings() -> None:
    # REQ: WIRE-3
    # REQ: DEF-8
    # REQ: LOOP-11
    from toolplug.definitions import OutputType
    from toolplug.providers.wire_tools import to_responses_tool

    output_schema = {"type": "object", "properties": {"t": {"type": "number"}}}
    forecast = function_tool(
        "get_weather",
        "Get the weather.",
        {"type": "object", "properties": {"city": {"type": "string"}}},
        None,
        metadata={"output_schema": output_schema},
    ).definition()
    assert to_responses_tool(forecast)["output_schema"] == output_schema
    assert "output_schema" not in to_responses_tool(golden_definitions()[1])

    text_output, body = _replayed_output(_conversation(_result("sunny", OutputType.TEXT)), [forecast])
    assert text_output == '"sunny"' and json.loads(text_output) == "sunny"
    assert body["tools"][0]["output_schema"] == output_schema
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in openapi_validator("CreateResponse").iter_errors(body)]
    assert not errors
    denied, _ = _replayed_output(_conversation(_result("Not today.", OutputType.EXECUTION_DENIED)), [forecast])
    assert denied == '"Not today."'
    as_json, _ = _replayed_output(_conversation(_result({"t": 21}, OutputType.JSON)), [forecast])
    assert as_json == '{"t":21}'
    failed, _ = _replayed_output(_conversation(_result("offline", OutputType.ERROR_TEXT)), [forecast])
    assert failed == '{"error":"offline"}'
    # Without the schema, text stays text; with a breakpoint too, the JSON literal goes into input_text.
    assert _replayed_output(_conversation(_result("sunny", OutputType.TEXT)))[0] == "sunny"
    on = {"openai": {"promptCacheBreakpoint": True}}
    both, _ = _replayed_output(
        _conversation(_result("sunny", OutputType.TEXT, output_provider_metadata=on)), [forecast]
    )
    assert both == [{"type": "input_text", "text": '"sunny"', "prompt_cache_breakpoint": {"mode": "explicit"}}]


@pytest.mark.parametrize("streamed", [False, True])
def test_mcp_list_tools_items_are_replayed_unchanged(streamed: bool) -> None:
    # REQ: LOOP-12
    # REQ: WIRE-3
    listed = {
        "type": "mcp_list_tools",
        "id": "mcpl_1",
        "server_label": "docs",
        "tools": [{"name": "search", "input_schema": {"type": "object"}, "annotations": None}],
    }
    answers = [
        responses_object(listed, r_call("call_1", "get_weather", '{"city": "Faro"}')),
        responses_object(r_message("Faro: 19 degrees.")),
    ]
    with provider_server() as server:
        if streamed:
            server.reply(*(Reply(events=responses_stream(answer)) for answer in answers))
        else:
            server.reply(*(Reply(200, answer) for answer in answers))

        async def run() -> Any:
            options: dict[str, Any] = {"prompt": "Weather?", "tools": [weather_tool()], "stop_when": loop_finished()}
            if not streamed:
                return await generate_text(adapter(server.url), **options)
            stream = stream_text(adapter(server.url), **options)
            async for _ in stream:
                pass
            return stream.result

        result = asyncio.run(run())
    assert result.text == "Faro: 19 degrees."
    listing = result.steps[0].content[0]
    assert listing.type == "tool-call" and listing.provider_executed and listing.tool_name == "mcp_list_tools"
    assert result.steps[0].tool_calls[0].input == {"city": "Faro"}  # only the function call is run
    second = server.bodies()[1]
    assert second["input"][1] == listed  # exactly as received, before the call it came with
    assert second["input"][2]["type"] == "function_call"
