"""The schema builders and the OpenAI strict conversion."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolplug import InvalidArgumentError, SettingKind, ToolParameterSchemaBuilder, ToolSettingsSchemaBuilder
from toolplug.schema import StrictSchemaError, compile_validator, to_openai_strict
from toolplug.strict import strict_conversion


def test_parameter_builder_writes_every_kind_and_optional_means_not_required() -> None:
    # REQ: DEF-5
    nested = ToolParameterSchemaBuilder.create().required_string("street").optional_integer("number")
    schema = (
        ToolParameterSchemaBuilder.create()
        .required_string("city", "The city.", minLength=1)
        .optional_string("note")
        .required_integer("days", "How many days.", minimum=1, maximum=7)
        .optional_number("threshold")
        .required_boolean("metric")
        .required_enum("unit", "The unit.", "celsius", "fahrenheit")
        .optional_array("tags", "Tags.", {"type": "string"}, maxItems=3)
        .optional_object("address", "Where.", nested)
        .build()
    )
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert schema["required"] == ["city", "days", "metric", "unit"]
    assert schema["properties"]["unit"] == {
        "type": "string",
        "enum": ["celsius", "fahrenheit"],
        "description": "The unit.",
    }
    assert schema["properties"]["address"]["required"] == ["street"]
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = compile_validator(schema)
    assert validator.is_valid({"city": "Oslo", "days": 2, "metric": True, "unit": "celsius"})
    assert not validator.is_valid({"city": "Oslo", "days": 9, "metric": True, "unit": "celsius"})


def test_parameter_builder_rejects_duplicates_and_empty_enums() -> None:
    # REQ: DEF-5
    with pytest.raises(InvalidArgumentError, match="declared twice"):
        ToolParameterSchemaBuilder().required_string("a").optional_string("a")
    with pytest.raises(InvalidArgumentError, match="at least one value"):
        ToolParameterSchemaBuilder().required_enum("a", "x")


def test_settings_builder_kinds() -> None:
    # REQ: DEF-5
    schema = (
        ToolSettingsSchemaBuilder.create()
        .required("endpoint", "Endpoint")
        .optional("limit", value_type="integer", default=5)
        .required_secret("api_key")
        .optional_secret("token")
        .required_choice("language", "languages")
        .optional_enum("mode", ["fast", "careful"])
        .build()
    )
    kinds = {f.name: (f.kind, f.required) for f in schema.fields}
    assert kinds == {
        "endpoint": (SettingKind.PLAIN, True),
        "limit": (SettingKind.PLAIN, False),
        "api_key": (SettingKind.SECRET, True),
        "token": (SettingKind.SECRET, False),
        "language": (SettingKind.CHOICE, True),
        "mode": (SettingKind.ENUM, False),
    }
    assert schema.field("language") is not None and schema.field("language").option_source == "languages"  # type: ignore[union-attr]


def test_strict_conversion_makes_optional_nullable_recursively_and_keeps_the_input() -> None:
    # REQ: DEF-7
    schema = (
        ToolParameterSchemaBuilder()
        .required_string("city")
        .optional_enum("unit", "", "c", "f")
        .optional_object("filter", "", ToolParameterSchemaBuilder().optional_integer("max"))
        .build()
    )
    before = copy.deepcopy(schema)
    strict = to_openai_strict(schema)
    assert schema == before
    assert strict["required"] == ["city", "unit", "filter"]
    assert strict["properties"]["city"]["type"] == "string"
    assert strict["properties"]["unit"]["type"] == ["string", "null"]
    assert strict["properties"]["unit"]["enum"] == ["c", "f", None]
    inner = strict["properties"]["filter"]
    assert inner["type"] == ["object", "null"]
    assert inner["required"] == ["max"] and inner["properties"]["max"]["type"] == ["integer", "null"]
    assert inner["additionalProperties"] is False


def test_strict_conversion_reports_untrusted_schemas_instead_of_raising_midway() -> None:
    # REQ: DEF-7, DEF-9
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(80):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    with pytest.raises(StrictSchemaError, match="nested deeper than"):
        to_openai_strict(deep)
    with pytest.raises(StrictSchemaError, match="plain object at the root"):
        to_openai_strict({"type": "string"})
    assert strict_conversion({"type": "object", "properties": {"s": {"enum": [{1}]}}}).unconvertible


# --- properties -----------------------------------------------------------------------------------------

names = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)
leaf_kinds = st.sampled_from(["string", "integer", "number", "boolean", "enum", "array"])


@st.composite
def builders(draw: st.DrawFn, depth: int = 0) -> ToolParameterSchemaBuilder:
    builder = ToolParameterSchemaBuilder()
    for name in draw(st.lists(names, min_size=0, max_size=5, unique=True)):
        required = draw(st.booleans())
        kind = draw(leaf_kinds if depth >= 2 else st.one_of(leaf_kinds, st.just("object")))
        if kind == "enum":
            values = draw(st.lists(names, min_size=1, max_size=3, unique=True))
            (builder.required_enum if required else builder.optional_enum)(name, "", *values)
        elif kind == "array":
            (builder.required_array if required else builder.optional_array)(name, "", {"type": "string"})
        elif kind == "object":
            nested = draw(builders(depth=depth + 1))
            (builder.required_object if required else builder.optional_object)(name, "", nested)
        else:
            getattr(builder, f"{'required' if required else 'optional'}_{kind}")(name, "")
    return builder


def sample_value(schema: dict[str, Any], draw: st.DrawFn) -> Any:
    kind = schema.get("type")
    if "enum" in schema:
        return draw(st.sampled_from(schema["enum"]))
    if kind == "string":
        return draw(st.text(max_size=5))
    if kind == "integer":
        return draw(st.integers(-10, 10))
    if kind == "number":
        return draw(st.floats(-10, 10, allow_nan=False))
    if kind == "boolean":
        return draw(st.booleans())
    if kind == "array":
        return draw(st.lists(st.text(max_size=3), max_size=3))
    value = {}
    required = set(schema.get("required", ()))
    for name, sub in schema.get("properties", {}).items():
        if name in required or draw(st.booleans()):
            value[name] = sample_value(sub, draw)
    return value


def fill_nulls(schema: dict[str, Any], value: Any) -> Any:
    if schema.get("type") != "object" or not isinstance(value, dict):
        return value
    return {
        name: (fill_nulls(sub, value[name]) if name in value else None)
        for name, sub in schema.get("properties", {}).items()
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(builder=builders(), data=st.data())
def test_property_builder_schemas_convert_exactly_and_round_trip(
    builder: ToolParameterSchemaBuilder, data: st.DataObject
) -> None:
    # REQ: DEF-5, DEF-7
    schema = builder.build()
    jsonschema.Draft202012Validator.check_schema(schema)
    conversion = strict_conversion(schema)
    assert conversion.exact, conversion.lossy_changes
    strict = conversion.schema()
    jsonschema.Draft202012Validator.check_schema(strict)

    def every_property_required(node: dict[str, Any]) -> None:
        if "properties" in node:
            assert sorted(node["required"]) == sorted(node["properties"])
            assert node["additionalProperties"] is False
            for sub in node["properties"].values():
                every_property_required(sub)

    every_property_required(strict)
    value = data.draw(st.composite(lambda draw: sample_value(schema, draw))())
    assert jsonschema.Draft202012Validator(schema).is_valid(value)
    # What a strict-mode model sends (every absent optional as null) passes the strict schema ...
    sent = fill_nulls(schema, value)
    assert conversion.to_strict(value) == sent
    assert jsonschema.Draft202012Validator(strict).is_valid(sent)
    # ... and reads back as exactly the original call.
    assert conversion.undo(sent) == value


# --- formats and dialects ---------------------------------------------------------------------------

FORMATS = {
    "date": ("2024-02-29", "2024-02-30"),
    "date-time": ("2024-05-01T10:00:00Z", "2024-05-01 10:00"),
    "time": ("10:00:00+02:00", "25:00:00Z"),
    "email": ("ada@example.org", "ada.example.org"),
    "uri": ("https://example.org/a?b=c", "not a uri"),
    "uuid": ("0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f"),
    "ipv4": ("192.0.2.1", "192.0.2.256"),
    "ipv6": ("2001:db8::1", "2001:db8:::1"),
}


@pytest.mark.parametrize("form", sorted(FORMATS))
def test_formats_are_asserted_and_a_bad_value_is_invalid_input(form: str) -> None:
    # REQ: EXE-4, DEF-9
    import asyncio

    from toolplug import InvalidToolInputError, function_tool
    from toolplug.calls import check_tool_call, parse_tool_call
    from toolplug.messages import ToolCallPart
    from toolplug.registry import RegisteredTool

    good, bad = FORMATS[form]
    schema = {"type": "object", "properties": {"v": {"type": "string", "format": form}}, "required": ["v"]}
    validator = compile_validator(schema)
    assert validator.is_valid({"v": good}) and not validator.is_valid({"v": bad})
    ran: list[Any] = []
    tool = RegisteredTool.from_implementation(function_tool("f", "x", schema, ran.append))
    parsed = check_tool_call(ToolCallPart("c1", "f", {"v": bad}), {"f": tool})
    assert parsed.invalid and isinstance(parsed.error, InvalidToolInputError)
    assert form in str(parsed.error) or "is not a" in str(parsed.error)

    def repair(context: Any) -> ToolCallPart:
        return ToolCallPart("c1", "f", {"v": good})

    repaired = asyncio.run(parse_tool_call(ToolCallPart("c1", "f", {"v": bad}), {"f": tool}, repair_tool_call=repair))
    assert not repaired.invalid and repaired.input == {"v": good}


def test_a_bad_format_never_reaches_the_tool_through_the_executor() -> None:
    # REQ: EXE-4
    import asyncio

    from toolplug import InvalidToolInputError, function_tool
    from toolplug.execution import ToolExecutor
    from toolplug.registry import RegisteredTool

    ran: list[Any] = []
    schema = {"type": "object", "properties": {"day": {"type": "string", "format": "date"}}}
    tool = RegisteredTool.from_implementation(function_tool("f", "x", schema, ran.append))
    with pytest.raises(InvalidToolInputError, match="day"):
        asyncio.run(ToolExecutor().execute(tool, {"day": "yesterday"}))
    assert ran == []


TUPLE_07 = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "properties": {"point": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}],
                             "additionalItems": False}},
    "required": ["point"],
}


def test_the_declared_dialect_is_honoured() -> None:
    # REQ: DEF-9
    from toolplug.schema import check_schema

    assert check_schema(TUPLE_07) == "draft-07"
    validator = compile_validator(TUPLE_07)
    assert validator.is_valid({"point": ["a", 1]})
    assert not validator.is_valid({"point": [1, "a"]})
    assert not validator.is_valid({"point": ["a", 1, 2]})
    in_2019 = {**TUPLE_07, "$schema": "https://json-schema.org/draft/2019-09/schema"}
    assert check_schema(in_2019) == "2019-09" and compile_validator(in_2019).is_valid({"point": ["a", 1]})
    # draft-07 ignores keywords beside $ref; 2020-12 applies them.
    ref_07 = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "definitions": {"s": {"type": "string"}},
              "properties": {"v": {"$ref": "#/definitions/s", "maxLength": 1}}}
    assert compile_validator(ref_07).is_valid({"v": "long"})
    ref_2020 = {**ref_07, "$schema": "https://json-schema.org/draft/2020-12/schema"}
    assert not compile_validator(ref_2020).is_valid({"v": "long"})
    assert strict_conversion(ref_07).convertible


def test_without_a_dialect_a_schema_is_read_as_2020_12() -> None:
    # REQ: DEF-9
    from toolplug.schema import SchemaProblem, check_schema

    without = {key: value for key, value in TUPLE_07.items() if key != "$schema"}
    with pytest.raises(SchemaProblem, match="not a valid JSON Schema"):
        check_schema(without)
    prefix = {"type": "object", "properties": {"p": {"type": "array", "prefixItems": [{"type": "string"}]}}}
    assert check_schema(prefix) == "2020-12"
    assert not compile_validator(prefix).is_valid({"p": [1]})


def test_an_mcp_tool_keeps_its_dialect() -> None:
    # REQ: DEF-9, MCP-3
    from toolplug.registry import ToolRegistry
    from toolplug_mcp.source import definition_for

    definition = definition_for("zod", {"name": "plot", "description": "Plot.", "inputSchema": TUPLE_07}, "zod_plot")
    assert definition.function.parameters["$schema"] == TUPLE_07["$schema"]
    problems = ToolRegistry().check(definition, None)
    assert [p.field for p in problems] == ["implementation_key"]  # the schema itself passes
