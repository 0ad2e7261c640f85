"""Parsing, validating, repairing and refining tool calls (toolplug.calls)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from toolplug.calls import ToolCallRepairContext, ToolChoice, check_tool_call, format_tool_error, parse_tool_call
from toolplug.errors import (
    InvalidArgumentError,
    InvalidToolInputError,
    NoSuchToolError,
    ToolCallRepairError,
    ToolChoiceViolationError,
)
from toolplug.loop import index_tools
from toolplug.messages import ToolCallPart
from toolplug.tools import dynamic_tool, function_tool, provider_defined_tool

CITY_SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


async def _weather(arguments: dict[str, Any]) -> str:
    return "sunny"


WEATHER = function_tool("weather", "Returns a forecast.", CITY_SCHEMA, _weather, title="Weather", metadata={"v": 1})
EMPTY = function_tool("ping", "Pings.", {"type": "object", "properties": {}}, _weather)
TOOLS = index_tools([WEATHER, EMPTY])


def call(name: str, input: Any, call_id: str = "c1", **flags: Any) -> ToolCallPart:
    return ToolCallPart(call_id, name, input, **flags)


@pytest.mark.parametrize("raw", ["", "   ", None, {}])
def test_empty_input_is_an_empty_object(raw: Any) -> None:
    # REQ: LOOP-10
    parsed = check_tool_call(call("ping", raw), TOOLS)
    assert not parsed.invalid
    assert parsed.input == {}


def test_json_text_is_parsed_and_validated() -> None:
    # REQ: LOOP-10
    parsed = check_tool_call(call("weather", '{"city": "Lisbon"}'), TOOLS)
    assert parsed.input == {"city": "Lisbon"} and not parsed.invalid and not parsed.dynamic


def test_unknown_tool_names_the_tools_that_exist() -> None:
    # REQ: LOOP-10, LOOP-3
    parsed = check_tool_call(call("rain", {}), TOOLS)
    assert parsed.invalid and parsed.dynamic
    assert isinstance(parsed.error, NoSuchToolError)
    assert format_tool_error(parsed.error) == (
        "NoSuchToolError: Model tried to call unavailable tool 'rain'. Available tools: weather, ping."
    )


def test_unknown_tool_without_tools() -> None:
    # REQ: LOOP-10
    parsed = check_tool_call(call("x", {}), None)
    assert isinstance(parsed.error, NoSuchToolError)
    assert parsed.error.available_tools is None
    assert format_tool_error(parsed.error) == (
        "NoSuchToolError: Model tried to call unavailable tool 'x'. No tools are available."
    )


def test_input_that_is_not_json() -> None:
    # REQ: LOOP-10
    parsed = check_tool_call(call("weather", '{"city": '), TOOLS)
    assert parsed.invalid and isinstance(parsed.error, InvalidToolInputError)
    assert parsed.input == '{"city": '
    assert format_tool_error(parsed.error).startswith("InvalidToolInputError: Invalid input for tool 'weather'")


def test_input_that_does_not_match_the_schema() -> None:
    # REQ: LOOP-10, EXE-4
    parsed = check_tool_call(call("weather", {"city": 3}), TOOLS)
    assert parsed.invalid and isinstance(parsed.error, InvalidToolInputError)
    text = format_tool_error(parsed.error)
    assert "city" in text and "Traceback" not in text


def test_title_and_metadata_are_copied_apart_from_provider_metadata() -> None:
    # REQ: DEF-8
    parsed = check_tool_call(call("weather", {"city": "A"}, provider_metadata={"openai": {"id": "x"}}), TOOLS)
    assert parsed.title == "Weather"
    assert parsed.tool_metadata == {"v": 1}
    assert parsed.provider_metadata == {"openai": {"id": "x"}}


def test_dynamic_tool_calls_are_dynamic() -> None:
    # REQ: DEF-8
    tools = index_tools([dynamic_tool("dyn", "Dynamic.", {"type": "object"}, _weather)])
    assert check_tool_call(call("dyn", {}), tools).dynamic


def test_provider_executed_dynamic_call_parses_without_a_tool() -> None:
    # REQ: LOOP-12
    parsed = check_tool_call(call("mcp_search", '{"q": 1}', provider_executed=True, dynamic=True), TOOLS)
    assert not parsed.invalid and parsed.input == {"q": 1}


def test_provider_tool_with_input_schema_drops_undeclared_properties() -> None:
    # REQ: DEF-8, LOOP-12
    search = provider_defined_tool(
        "openai.web_search",
        "web_search",
        {},
        input_schema={"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
    )
    tools = index_tools([search])
    parsed = check_tool_call(call("web_search", {"query": "q", "extra": 1}, provider_executed=True), tools)
    assert not parsed.invalid and parsed.input == {"query": "q"}
    bad = check_tool_call(call("web_search", {"query": 1}, provider_executed=True), tools)
    assert bad.invalid and bad.dynamic and isinstance(bad.error, InvalidToolInputError)


def test_repair_success_replaces_the_call() -> None:
    # REQ: LOOP-10
    seen: list[ToolCallRepairContext] = []

    def repair(context: ToolCallRepairContext) -> ToolCallPart:
        seen.append(context)
        assert context.input_schema("weather") == CITY_SCHEMA
        return ToolCallPart(context.tool_call.tool_call_id, "weather", {"city": "Lisbon"})

    parsed = asyncio.run(parse_tool_call(call("wether", {"city": "Lisbon"}), TOOLS, repair_tool_call=repair))
    assert not parsed.invalid and parsed.tool_name == "weather"
    assert len(seen) == 1 and isinstance(seen[0].error, NoSuchToolError)


def test_repair_is_called_once_and_its_bad_result_stays_invalid() -> None:
    # REQ: LOOP-10
    calls = []

    async def repair(context: ToolCallRepairContext) -> ToolCallPart:
        calls.append(context)
        return ToolCallPart("c1", "weather", {"city": 5})

    parsed = asyncio.run(parse_tool_call(call("weather", {"city": 1}), TOOLS, repair_tool_call=repair))
    assert parsed.invalid and isinstance(parsed.error, InvalidToolInputError)
    assert len(calls) == 1


def test_repair_returning_none_keeps_the_error() -> None:
    # REQ: LOOP-10
    parsed = asyncio.run(parse_tool_call(call("nope", {}), TOOLS, repair_tool_call=lambda context: None))
    assert isinstance(parsed.error, NoSuchToolError)


def test_repair_that_raises_gives_a_repair_error() -> None:
    # REQ: LOOP-10
    def repair(context: ToolCallRepairContext) -> ToolCallPart:
        raise ValueError("cannot fix")

    parsed = asyncio.run(parse_tool_call(call("nope", {}), TOOLS, repair_tool_call=repair))
    assert parsed.invalid and isinstance(parsed.error, ToolCallRepairError)
    assert isinstance(parsed.error.original_error, NoSuchToolError)
    assert format_tool_error(parsed.error) == "ToolCallRepairError: Error repairing tool call: ValueError: cannot fix"


def test_valid_calls_are_not_repaired() -> None:
    # REQ: LOOP-10
    def repair(context: ToolCallRepairContext) -> ToolCallPart:
        raise AssertionError("must not be called")

    parsed = asyncio.run(parse_tool_call(call("weather", {"city": "A"}), TOOLS, repair_tool_call=repair))
    assert not parsed.invalid


def test_refine_per_tool_and_revalidated() -> None:
    # REQ: LOOP-10
    original = call("weather", {"city": "lisbon"})
    parsed = asyncio.run(
        parse_tool_call(original, TOOLS, refine_tool_input={"weather": lambda i: {"city": i["city"].title()}})
    )
    assert parsed.input == {"city": "Lisbon"}
    assert original.input == {"city": "lisbon"}
    broken = asyncio.run(parse_tool_call(original, TOOLS, refine_tool_input={"weather": lambda i: {"city": 1}}))
    assert broken.invalid


def test_refine_may_be_async() -> None:
    # REQ: LOOP-10
    async def refine(value: dict[str, Any]) -> dict[str, Any]:
        return {"city": "Porto"}

    parsed = asyncio.run(parse_tool_call(call("weather", {"city": "x"}), TOOLS, refine_tool_input={"weather": refine}))
    assert parsed.input == {"city": "Porto"}


def test_error_text_for_any_exception() -> None:
    # REQ: LOOP-10
    assert format_tool_error(RuntimeError("boom")) == "RuntimeError: boom"
    assert format_tool_error(RuntimeError()) == "RuntimeError"


def test_tool_choice_parsing_and_violations() -> None:
    # REQ: LOOP-8
    assert ToolChoice.parse("auto") is ToolChoice.AUTO
    assert ToolChoice.parse({"type": "tool", "tool_name": "weather"}) == ToolChoice.tool("weather")
    with pytest.raises(InvalidArgumentError):
        ToolChoice.parse("sometimes")  # type: ignore[arg-type]
    model_call = call("weather", {"city": "A"})
    assert isinstance(ToolChoice.NONE.violation(model_call), ToolChoiceViolationError)
    assert ToolChoice.tool("weather").violation(model_call) is None
    assert isinstance(ToolChoice.tool("ping").violation(model_call), ToolChoiceViolationError)
    assert ToolChoice.NONE.violation(call("x", {}, provider_executed=True)) is None
    assert ToolChoice.REQUIRED.violation(model_call) is None


def test_strict_tool_accepts_nulls_for_optional_arguments_as_absent() -> None:
    # REQ: DEF-7, LOOP-10
    schema = {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"type": "string", "enum": ["c", "f"]},
            "where": {"type": "object", "properties": {"zip": {"type": "string"}}, "additionalProperties": False},
        },
        "required": ["city"],
        "additionalProperties": False,
    }
    strict = function_tool("strict_weather", "Weather.", schema, lambda a: "x", strict=True)
    tools = index_tools([strict])
    call = ToolCallPart("c1", "strict_weather", '{"city": "Oslo", "unit": null, "where": {"zip": null}}')
    parsed = check_tool_call(call, tools)
    assert not parsed.invalid, parsed.error
    assert parsed.input == {"city": "Oslo", "where": {}}
    still_bad = check_tool_call(ToolCallPart("c2", "strict_weather", '{"city": null}'), tools)
    assert still_bad.invalid
