"""The test kit: the scripted adapter and the schema-driven test model (toolplug.testing)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import Any, Literal

import pytest

from toolplug.calls import ToolChoice
from toolplug.errors import UsageError
from toolplug.loop import generate_text, loop_finished
from toolplug.messages import AssistantMessage, Message, TextPart, ToolMessage, UserMessage
from toolplug.providers.base import ProviderAdapter, Round, RoundRequest
from toolplug.schema import ToolParameterSchemaBuilder, compile_validator
from toolplug.testing import (
    SchemaTestModel,
    ScriptedAdapter,
    arguments_from_schema,
    text_round,
    tool_call,
    tool_calls_round,
)
from toolplug.tools import custom_tool, function_tool, tool


@tool
async def forecast(city: str, days: int = 1, unit: Literal["celsius", "fahrenheit"] = "celsius") -> str:
    """Forecast for a city."""
    return f"{days} day(s) in {city} ({unit})"


def test_scripted_adapter_is_a_provider_adapter() -> None:
    # REQ: LOOP-1
    assert isinstance(ScriptedAdapter([]), ProviderAdapter)


def test_scripted_adapter_answers_its_script_and_records_the_conversation() -> None:
    # REQ: LOOP-1
    model = ScriptedAdapter([tool_calls_round(tool_call("forecast", {"city": "Lisbon"})), text_round("Sunny.")])
    result = asyncio.run(generate_text(model, prompt="Weather?", tools=[forecast], stop_when=loop_finished()))
    assert result.text == "Sunny."
    assert [type(m) for m in model.messages] == [UserMessage, AssistantMessage, ToolMessage, AssistantMessage]
    assert model.messages[1].content[0].tool_call_id == "call_1"  # type: ignore[union-attr]
    assert [r.step_number for r in model.requests] == [0, 1]


def test_scripted_adapter_from_a_function_of_the_conversation() -> None:
    # REQ: LOOP-1
    def respond(messages: Sequence[Message], request: RoundRequest) -> Any:
        if isinstance(messages[-1], ToolMessage):
            return f"got {messages[-1].content[0].output}"  # type: ignore[union-attr]
        return tool_call("forecast", {"city": "Porto", "days": 2})

    model = ScriptedAdapter(respond)
    result = asyncio.run(generate_text(model, prompt="x", tools=[forecast], stop_when=loop_finished()))
    assert result.text == "got 2 day(s) in Porto (celsius)"


def test_scripted_adapter_says_when_its_script_ran_out() -> None:
    # REQ: LOOP-1
    with pytest.raises(UsageError, match="no round left"):
        asyncio.run(generate_text(ScriptedAdapter([]), prompt="x"))


def test_scripted_adapter_keeps_every_field_of_a_round_it_completes() -> None:
    # REQ: LOOP-1
    # A scripted round without call ids, provider or model is completed; nothing else of it is lost.
    scripted = Round([tool_call("forecast", {"city": "Faro"})], "tool-calls", ends_conversation="no call id")
    model = ScriptedAdapter([scripted, "unused"])
    result = asyncio.run(generate_text(model, prompt="x", tools=[forecast], stop_when=loop_finished()))
    assert result.stop_reason == "provider-ended"
    assert result.provider == "scripted" and result.steps[0].tool_calls[0].tool_call_id == "call_1"


def test_scripted_adapter_streams_deltas_then_the_round() -> None:
    # REQ: LOOP-14
    model = ScriptedAdapter([tool_calls_round(tool_call("f", {"a": 1}, call_id="c"), text="abc")], chunk_size=2)

    async def collect() -> list[Any]:
        request = RoundRequest(0, [], [], ToolChoice.AUTO)
        return [item async for item in model.stream_round(request)]

    items = asyncio.run(collect())
    assert [getattr(i, "type", "round") for i in items[:-1]] == [
        "text-delta",
        "text-delta",
        "tool-input-start",
        "tool-input-delta",
        "tool-input-end",
    ]
    assert items[3].delta == '{"a": 1}'
    assert isinstance(items[-1], Round) and items[-1].content[0] == TextPart("abc")


def test_schema_test_model_calls_every_tool_with_valid_arguments() -> None:
    # REQ: LOOP-1, DEF-6
    seen: dict[str, Any] = {}

    async def record(arguments: dict[str, Any]) -> str:
        seen.update(arguments)
        return "recorded"

    schema = (
        ToolParameterSchemaBuilder.create()
        .required_string("name", "", minLength=3)
        .optional_integer("count", "", minimum=5, maximum=9)
        .required_enum("mode", "", "fast", "slow")
        .optional_array("tags", "", {"type": "string"}, minItems=2)
        .optional_boolean("flag")
        .build()
    )
    recorder = function_tool("recorder", "Records.", schema, record)
    free_text = custom_tool("free_text", "Free text.")
    result = asyncio.run(
        generate_text(SchemaTestModel(), prompt="x", tools=[forecast, recorder, free_text], stop_when=loop_finished())
    )
    first = result.steps[0]
    assert [c.tool_name for c in first.tool_calls] == ["forecast", "recorder"]
    assert not any(c.invalid for c in first.tool_calls)
    assert compile_validator(schema).is_valid(seen)
    assert json.loads(result.text) == {"forecast": "1 day(s) in test (celsius)", "recorder": "recorded"}


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
        {"type": "object", "properties": {"n": {"type": "number", "exclusiveMinimum": 2, "multipleOf": 0.5}}},
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": -3, "maximum": -1}}},
        {"type": "object", "properties": {"v": {"anyOf": [{"type": "null"}, {"type": "string", "maxLength": 2}]}}},
        {"type": "object", "properties": {"c": {"const": "fixed"}}, "required": ["c"]},
        {
            "type": "object",
            "properties": {"item": {"$ref": "#/$defs/Item"}},
            "$defs": {"Item": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}},
        },
        {
            "type": "object",
            "allOf": [{"properties": {"a": {"type": "string"}}}, {"properties": {"b": {"type": "boolean"}}}],
        },
        {"type": "object", "properties": {"t": {"type": ["null", "integer"]}}},
    ],
)
def test_arguments_from_schema_match_their_schema(schema: dict[str, Any]) -> None:
    # REQ: EXE-4
    assert compile_validator(schema).is_valid(arguments_from_schema(schema))
