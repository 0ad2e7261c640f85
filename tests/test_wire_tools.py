"""One canonical definition, three wire shapes (WIRE-1), strict only for OpenAI (DEF-7), other kinds (DEF-8)."""

from __future__ import annotations

import copy

import pytest
from _provider_server import custom_definition, golden_definitions, provider_definition

from toolplug.errors import InvalidArgumentError
from toolplug.providers.wire_tools import to_anthropic_tool, to_chat_completions_tool, to_responses_tool


def test_function_tool_in_each_shape() -> None:
    # REQ: WIRE-1
    lookup = golden_definitions()[1]
    schema = lookup.function.parameters
    assert to_chat_completions_tool(lookup) == {
        "type": "function",
        "function": {"name": "lookup", "description": "Look a term up.", "parameters": schema},
    }
    assert to_responses_tool(lookup) == {
        "type": "function",
        "name": "lookup",
        "description": "Look a term up.",
        "parameters": schema,
        "strict": False,
    }
    assert to_anthropic_tool(lookup) == {"name": "lookup", "description": "Look a term up.", "input_schema": schema}


def test_strict_conversion_only_for_openai_and_only_where_set() -> None:
    # REQ: DEF-7
    weather = golden_definitions()[0]
    before = copy.deepcopy(weather.function.parameters)
    for shape in (to_chat_completions_tool(weather)["function"], to_responses_tool(weather)):
        assert shape["strict"] is True
        parameters = shape["parameters"]
        assert sorted(parameters["required"]) == ["city", "unit"]
        assert parameters["properties"]["unit"]["type"] == ["string", "null"]
        assert None in parameters["properties"]["unit"]["enum"]
        assert parameters["additionalProperties"] is False
    assert to_anthropic_tool(weather)["input_schema"] == before
    assert weather.function.parameters == before  # the canonical schema stays provider-neutral


def test_custom_grammar_tools_in_the_openai_shapes() -> None:
    # REQ: DEF-8
    sql = custom_definition()
    assert to_responses_tool(sql) == {
        "type": "custom",
        "name": "write_sql",
        "description": "Write a SQL SELECT query.",
        "format": {"type": "grammar", "syntax": "regex", "definition": "SELECT .+"},
    }
    assert to_chat_completions_tool(sql) == {
        "type": "custom",
        "custom": {
            "name": "write_sql",
            "description": "Write a SQL SELECT query.",
            "format": {"type": "grammar", "grammar": {"definition": "SELECT .+", "syntax": "regex"}},
        },
    }
    with pytest.raises(InvalidArgumentError, match="Anthropic"):
        to_anthropic_tool(sql)


def test_provider_defined_tools_go_only_to_their_provider() -> None:
    # REQ: DEF-8
    openai_search = provider_definition("openai.web_search", "web_search", search_context_size="low")
    anthropic_search = provider_definition("anthropic.web_search_20250305", "web_search", max_uses=3)
    assert to_responses_tool(openai_search) == {"type": "web_search", "search_context_size": "low"}
    assert to_anthropic_tool(anthropic_search) == {"type": "web_search_20250305", "name": "web_search", "max_uses": 3}
    with pytest.raises(InvalidArgumentError, match="provider 'anthropic'"):
        to_responses_tool(anthropic_search)
    with pytest.raises(InvalidArgumentError, match="provider 'openai'"):
        to_anthropic_tool(openai_search)
    with pytest.raises(InvalidArgumentError, match="Chat Completions"):
        to_chat_completions_tool(openai_search)


def test_contract_kit_uses_these_functions() -> None:
    # REQ: WIRE-1
    from toolplug.pytest_plugin import wire_shape_functions

    assert wire_shape_functions() == (to_chat_completions_tool, to_responses_tool, to_anthropic_tool)


def test_output_schema_goes_only_to_responses_function_tools() -> None:
    # REQ: DEF-8
    # REQ: WIRE-3
    from toolplug.definitions import FunctionSpec, ToolDefinition

    output_schema = {"type": "object", "properties": {"temperature": {"type": "number"}}}
    definition = ToolDefinition(
        id="forecast",
        implementation_key="forecast",
        function=FunctionSpec(name="forecast", description_for_llm="A forecast."),
        metadata={"output_schema": output_schema},
    )
    assert to_responses_tool(definition)["output_schema"] == output_schema
    assert "output_schema" not in to_chat_completions_tool(definition)["function"]
    assert "output_schema" not in to_anthropic_tool(definition)
