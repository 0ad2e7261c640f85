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


def test_strict_conversion_caps_depth_and_size_of_untrusted_schemas() -> None:
    # REQ: DEF-7
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    node = deep
    for _ in range(50):
        child: dict[str, Any] = {"type": "object", "properties": {}}
        node["properties"]["x"] = child
        node = child
    with pytest.raises(StrictSchemaError, match="deeper than"):
        to_openai_strict(deep)
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(6000)}}
    with pytest.raises(StrictSchemaError, match="more than"):
        to_openai_strict(wide)
    with pytest.raises(StrictSchemaError, match="object root"):
        to_openai_strict({"type": "string"})


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
def test_property_builders_and_strict_conversion(builder: ToolParameterSchemaBuilder, data: st.DataObject) -> None:
    # REQ: DEF-5, DEF-7
    schema = builder.build()
    jsonschema.Draft202012Validator.check_schema(schema)
    strict = to_openai_strict(schema)
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
    assert jsonschema.Draft202012Validator(strict).is_valid(fill_nulls(schema, value))
