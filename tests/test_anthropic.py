"""The Anthropic Messages adapter against a local server speaking the API (WIRE-4, LOOP-11, LOOP-14)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _provider_server import (
    Reply,
    a_text,
    a_thinking,
    a_tool_use,
    anthropic_message,
    anthropic_stream,
    assert_golden,
    golden_conversation,
    golden_definitions,
    provider_definition,
    provider_server,
)

from toolplug.calls import ToolChoice
from toolplug.config import ProviderSection
from toolplug.errors import ProviderAuthenticationError, ProviderResponseError, ToolExecutionBlockedError
from toolplug.loop import generate_text, loop_finished, stream_text
from toolplug.messages import SystemMessage
from toolplug.providers.anthropic import ADAPTER_FACTORY
from toolplug.providers.base import ProviderAdapter, ReasoningDelta, RoundRequest, TextDelta
from toolplug.providers.http import RetryPolicy
from toolplug.tools import function_tool

KEY = "sk-ant-test-key-0000"
SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def adapter(url: str, **extra: Any) -> ProviderAdapter:
    profile = ProviderSection(api="anthropic", model="claude-test", base_url=url, extra=extra)
    return ADAPTER_FACTORY.create(profile, provider_id="claude", api_key=KEY, retry=RetryPolicy(0))


def weather_tool() -> Any:
    return function_tool("get_weather", "Get the weather.", SCHEMA, lambda args: f"{args['city']}: 17 degrees")


def test_golden_request_body() -> None:
    # REQ: WIRE-4
    tools = [*golden_definitions(), provider_definition("anthropic.web_search_20250305", "web_search", max_uses=2)]
    with provider_server() as server:
        server.reply(Reply(200, anthropic_message(a_text("Sunny."))))
        model = adapter(server.url)
        model.begin(golden_conversation())
        asyncio.run(model.run_round(RoundRequest(0, [SystemMessage("You are helpful.")], tools, ToolChoice.AUTO, 1)))
    recorded = server.requests[0]
    assert recorded.path == "/v1/messages"
    assert recorded.headers["x-api-key"] == KEY and recorded.headers["anthropic-version"] == "2023-06-01"
    body = recorded.body
    assert_golden("anthropic_request", body)
    # the canonical schema as written (no strict conversion), one user message for both results
    assert body["tools"][0]["input_schema"] == golden_definitions()[0].function.parameters
    results = body["messages"][2]
    assert results["role"] == "user" and [b["type"] for b in results["content"]] == ["tool_result", "tool_result"]
    assert results["content"][1]["is_error"] is True and "is_error" not in results["content"][0]


def test_thinking_blocks_replayed_unchanged_and_results_in_one_user_message() -> None:
    # REQ: WIRE-4
    turn = [
        a_thinking("Two cities, two calls.", "sig-EqQBCgIYAhIM"),
        a_text("Checking both."),
        a_tool_use("toolu_1", "get_weather", {"city": "Lisbon"}),
        a_tool_use("toolu_2", "get_weather", {"city": "Porto"}),
    ]
    with provider_server() as server:
        server.reply(
            Reply(200, anthropic_message(*turn, stop_reason="tool_use")),
            Reply(200, anthropic_message(a_text("Both are mild."))),
        )
        result = asyncio.run(
            generate_text(
                adapter(server.url, thinking={"type": "enabled", "budget_tokens": 1024}),
                prompt="Lisbon and Porto?",
                tools=[weather_tool()],
                stop_when=loop_finished(),
                tool_call_concurrency=1,
            )
        )
    assert result.text == "Both are mild."
    second = server.bodies()[1]
    assert second["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert second["messages"][1] == {"role": "assistant", "content": turn}  # unchanged, signature included
    assert len(second["messages"]) == 3  # user, assistant, ONE user message with every result
    assert second["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Lisbon: 17 degrees"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Porto: 17 degrees"},
        ],
    }
    assert result.steps[0].reasoning_text == "Two cities, two calls."


def test_is_error_on_failed_blocked_and_denied_calls() -> None:
    # REQ: WIRE-4
    # REQ: LOOP-11
    def fail(args: Any) -> Any:
        raise RuntimeError("sensor broken")

    def block(args: Any) -> Any:
        raise ToolExecutionBlockedError("Not for this provider.")

    tools = [
        function_tool("failing", "f", SCHEMA, fail),
        function_tool("blocked", "b", SCHEMA, block),
        function_tool("guarded", "g", SCHEMA, lambda a: "x", needs_approval=True),
        function_tool("fine", "ok", SCHEMA, lambda a: {"ok": True}),
    ]
    uses = [a_tool_use(f"toolu_{i}", t.definition().function.name, {"city": "X"}) for i, t in enumerate(tools)]
    with provider_server() as server:
        server.reply(
            Reply(200, anthropic_message(*uses, stop_reason="tool_use")), Reply(200, anthropic_message(a_text("ok")))
        )
        asyncio.run(
            generate_text(
                adapter(server.url),
                prompt="go",
                tools=tools,
                stop_when=loop_finished(),
                approve_tool=lambda request: False,
            )
        )
    blocks = server.bodies()[1]["messages"][2]["content"]
    assert [b.get("is_error", False) for b in blocks] == [True, True, True, False]
    assert blocks[0]["content"].startswith("Tool execution failed")
    assert blocks[1]["content"] == "Not for this provider."
    assert blocks[2]["content"] == "Tool call execution denied."
    assert blocks[3]["content"] == '{"ok":true}'


def test_streamed_loop_with_thinking_and_input_json_deltas() -> None:
    # REQ: LOOP-14
    # REQ: WIRE-4
    turn = [a_thinking("Need weather.", "sig-stream-1"), a_tool_use("toolu_s", "get_weather", {"city": "Braga"})]
    with provider_server() as server:
        server.reply(
            Reply(events=anthropic_stream(anthropic_message(*turn, stop_reason="tool_use"))),
            Reply(events=anthropic_stream(anthropic_message(a_text("Braga: 17 degrees.")))),
        )

        async def run() -> tuple[list[Any], Any]:
            stream = stream_text(
                adapter(server.url), prompt="Braga?", tools=[weather_tool()], stop_when=loop_finished()
            )
            parts = [p async for p in stream if isinstance(p, TextDelta | ReasoningDelta)]
            return parts, stream.result

        parts, result = asyncio.run(run())
    assert "".join(p.text for p in parts if isinstance(p, ReasoningDelta)) == "Need weather."
    assert "".join(p.text for p in parts if isinstance(p, TextDelta)) == "Braga: 17 degrees."
    second = server.bodies()[1]
    assert second["stream"] is True
    assert second["messages"][1] == {"role": "assistant", "content": turn}  # the assembled signature replayed
    assert result.usage.input_tokens == 60 and result.usage.output_tokens == 24


def test_final_answer_round_resends_the_tools_with_tool_choice_none() -> None:
    # REQ: WIRE-4
    with provider_server() as server:
        server.reply(
            Reply(
                200, anthropic_message(a_tool_use("toolu_1", "get_weather", {"city": "Faro"}), stop_reason="tool_use")
            ),
            Reply(200, anthropic_message(a_text("Faro: 17."))),
        )
        result = asyncio.run(
            generate_text(
                adapter(server.url), prompt="Faro?", tools=[weather_tool()], stop_when=loop_finished(), max_tool_calls=1
            )
        )
    final = server.bodies()[1]
    assert result.stop_reason == "limit"
    assert final["tool_choice"] == {"type": "none"} and final["tools"][0]["name"] == "get_weather"


def test_errors_in_a_stream_and_a_refused_key() -> None:
    # REQ: WIRE-4
    overloaded = [
        ("message_start", {"type": "message_start", "message": anthropic_message()}),
        ("error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    ]
    with provider_server() as server:
        server.reply(
            Reply(events=overloaded),
            Reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}),
        )

        async def streamed() -> None:
            async for _ in stream_text(adapter(server.url), prompt="hi"):
                pass

        with pytest.raises(ProviderResponseError, match="Overloaded"):
            asyncio.run(streamed())
        with pytest.raises(ProviderAuthenticationError) as caught:
            asyncio.run(generate_text(adapter(server.url), prompt="hi"))
    assert caught.value.status == 401 and caught.value.request_id == "req_test_1" and KEY not in str(caught.value)
