"""OpenAI strict conversion: a strict schema that means the same thing, or the reason there is none."""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict

from toolplug import function_tool, tool
from toolplug.calls import check_tool_call
from toolplug.messages import ToolCallPart
from toolplug.providers.wire_tools import to_chat_completions_tool, to_responses_tool
from toolplug.pytest_plugin import UnsupportedSchemaError, arguments_strategy
from toolplug.registry import RegisteredTool
from toolplug.strict import (
    OPENAI_MAX_DEPTH,
    OPENAI_MAX_ENUM_VALUES,
    OPENAI_MAX_PROPERTIES,
    StrictSchemaError,
    strict_conversion,
    to_openai_strict,
)

Validator = jsonschema.Draft202012Validator


def obj(properties: dict[str, Any], required: tuple[str, ...] = (), closed: bool = True) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = list(required)
    if closed:
        schema["additionalProperties"] = False
    return schema


def strict_rules_broken(schema: Any, path: str = "(root)") -> list[str]:
    """The oracle: every object closed with every property required, only strict-mode keywords."""
    broken: list[str] = []
    if isinstance(schema, list):
        for index, item in enumerate(schema):
            broken += strict_rules_broken(item, f"{path}[{index}]")
        return broken
    if not isinstance(schema, dict):
        return broken
    for word in ("allOf", "oneOf", "not", "if", "then", "else", "patternProperties", "dependentSchemas",
                 "prefixItems", "unevaluatedProperties", "minLength", "maxLength", "uniqueItems"):
        if word in schema:
            broken.append(f"{path}: {word}")
    if "$ref" in schema and (set(schema) != {"$ref"} or not schema["$ref"].startswith("#/$defs/")):
        broken.append(f"{path}: $ref with siblings or outside $defs")
    kind = schema.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        if schema.get("additionalProperties") is not False:
            broken.append(f"{path}: open object")
        if sorted(schema.get("required", [])) != sorted(schema.get("properties", {})):
            broken.append(f"{path}: not every property required")
    for key, value in schema.items():
        if key in ("properties", "$defs"):
            for name, sub in value.items():
                broken += strict_rules_broken(sub, f"{path}.{name}")
        elif key in ("items", "anyOf"):
            broken += strict_rules_broken(value, f"{path}.{key}")
    return broken


def kinds(conversion: Any) -> set[str]:
    return {change.kind for change in conversion.changes}


# --- what was found --------------------------------------------------------------------------------


class Edit(BaseModel):
    old_text: str
    new_text: str
    replace_all: bool = False


def test_an_optional_inside_an_array_item_is_undone_so_its_strict_call_is_valid() -> None:
    # REQ: DEF-7, EXE-4
    @tool(strict=True)
    def edit_file(path: str, edits: list[Edit]) -> str:
        """Edit a file."""
        return "done"

    registered = RegisteredTool.from_implementation(edit_file)
    strict = to_openai_strict(edit_file.definition().function.parameters)
    assert strict["$defs"]["Edit"]["properties"]["replace_all"]["type"] == ["boolean", "null"]
    call = ToolCallPart("c1", "edit_file", '{"path": "a", "edits": [{"old_text": "x", "new_text": "y", '
                                           '"replace_all": null}]}')
    parsed = check_tool_call(call, {"edit_file": registered})
    assert not parsed.invalid, parsed.error
    assert parsed.input == {"path": "a", "edits": [{"old_text": "x", "new_text": "y"}]}


def test_nulls_are_undone_through_refs_and_anyof_branches_only_where_the_conversion_added_them() -> None:
    # REQ: DEF-7
    schema = {
        "type": "object", "additionalProperties": False, "required": ["shape"],
        "properties": {
            "shape": {"anyOf": [{"$ref": "#/$defs/circle"}, {"$ref": "#/$defs/square"}]},
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
        "$defs": {
            "circle": obj({"kind": {"const": "circle"}, "r": {"type": "number"}}, ("kind",)),
            "square": obj({"kind": {"const": "square"}, "side": {"type": "number"}, "label": {"type": "string"}},
                          ("kind", "side")),
        },
    }
    conversion = strict_conversion(schema)
    assert conversion.convertible
    strict_call = {"shape": {"kind": "square", "side": 2, "label": None}, "note": None}
    assert Validator(conversion.schema()).is_valid(strict_call)
    # The canonical schema accepts a null note itself: that null is the model's, and kept.
    assert conversion.undo(strict_call) == {"shape": {"kind": "square", "side": 2}, "note": None}
    assert conversion.undo({"shape": {"kind": "circle", "r": None}, "note": "x"}) == {
        "shape": {"kind": "circle"}, "note": "x"}


def _takes_a_dict(options: dict[str, Any]) -> None:
    """Takes any options."""


def test_an_open_map_is_unconvertible_not_an_empty_object() -> None:
    # REQ: DEF-7
    class Extra(BaseModel):
        model_config = ConfigDict(extra="allow")
        name: str

    for schema in (
        obj({"counts": {"type": "object", "additionalProperties": {"type": "integer"}}}),
        obj({"anything": {"type": "object", "additionalProperties": True}}),
        obj({"free": {"type": "object"}}),
        tool(_takes_a_dict).definition().function.parameters,
        {**Extra.model_json_schema()},
    ):
        conversion = strict_conversion(schema)
        assert not conversion.convertible, schema
        assert any("map" in reason for reason in conversion.unconvertible), conversion.unconvertible
        with pytest.raises(StrictSchemaError, match="map"):
            to_openai_strict(schema)


def test_a_literal_default_is_nullable_in_its_enum_too() -> None:
    # REQ: DEF-7
    @tool(strict=True)
    def greet(name: str, lang: Literal["en"] = "en") -> str:
        """Greet."""
        return name

    conversion = strict_conversion(greet.definition().function.parameters)
    strict = conversion.schema()
    assert Validator(strict).is_valid({"name": "x", "lang": None})
    assert not Validator(strict).is_valid({"name": "x", "lang": "de"})
    assert conversion.undo({"name": "x", "lang": None}) == {"name": "x"}


def test_a_one_of_whose_branches_overlap_still_accepts_null_when_optional() -> None:
    # REQ: DEF-7
    schema = obj({"code": {"type": "string", "oneOf": [{"minLength": 2}, {"maxLength": 4}]}})
    conversion = strict_conversion(schema)
    assert Validator(conversion.schema()).is_valid({"code": None})
    assert conversion.undo({"code": None}) == {}
    assert "widened" in kinds(conversion)


def test_an_optional_property_whose_schema_is_false_can_only_be_left_out() -> None:
    # REQ: DEF-7
    schema = obj({"a": {"type": "string"}, "never": False}, ("a",))
    conversion = strict_conversion(schema)
    strict = conversion.schema()
    assert Validator(strict).is_valid({"a": "x", "never": None})
    assert conversion.undo({"a": "x", "never": None}) == {"a": "x"}
    assert not strict_conversion(obj({"never": False}, ("never",))).convertible


def test_all_of_members_are_merged_before_closing() -> None:
    # REQ: DEF-7
    schema = obj({"both": {"allOf": [obj({"a": {"type": "string"}}, ("a",), closed=False),
                                     obj({"b": {"type": "integer"}}, closed=False)]}}, ("both",))
    conversion = strict_conversion(schema)
    strict = conversion.schema()
    assert Validator(strict).is_valid({"both": {"a": "x", "b": 1}})
    assert conversion.undo({"both": {"a": "x", "b": None}}) == {"both": {"a": "x"}}
    # A closed member forbids what only the other declares, as JSON Schema says.
    closed = obj({"both": {"allOf": [obj({"a": {"type": "string"}}), obj({"b": {"type": "integer"}}, closed=False)]}})
    assert "b" not in strict_conversion(closed).schema()["properties"]["both"]["properties"]


def test_untyped_object_keywords_are_closed_too() -> None:
    # REQ: DEF-7
    schema = obj({"x": {"required": ["a"], "properties": {"a": {"type": "string"}}}}, ("x",))
    conversion = strict_conversion(schema)
    assert strict_rules_broken(conversion.schema()) == []
    assert "narrowed" in kinds(conversion)
    assert not strict_conversion(obj({"x": {"required": ["a"]}}, ("x",))).convertible


def test_a_ref_to_an_optional_property_does_not_make_the_required_one_nullable() -> None:
    # REQ: DEF-7
    schema = obj({"other": {"type": "string"}, "main": {"$ref": "#/properties/other"}}, ("main",))
    strict = to_openai_strict(schema)
    assert not Validator(strict).is_valid({"other": "x", "main": None})
    assert Validator(strict).is_valid({"other": None, "main": "x"})


def test_a_ref_with_a_description_is_inlined_because_strict_mode_forbids_siblings() -> None:
    # REQ: DEF-7
    schema = obj({"e": {"$ref": "#/$defs/E", "description": "The edit."}}, ("e",))
    schema["$defs"] = {"E": obj({"t": {"type": "string"}}, ("t",))}
    strict = to_openai_strict(schema)
    assert strict["properties"]["e"]["description"] == "The edit."
    assert strict_rules_broken(strict) == []


# --- unconvertible, with the reason -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (obj({"m": {"type": "object", "patternProperties": {"^x": {"type": "string"}}}}), "patternProperties"),
        (obj({"a": {"type": "string", "if": {"minLength": 2}, "then": {"maxLength": 3}}}), "if/then/else"),
        (obj({"t": {"type": "array", "prefixItems": [{"type": "string"}]}}), "tuples"),
        (obj({"t": {"type": "array"}}), "without an item schema"),
        (obj({"any": {}}), "any value"),
        (obj({"d": {"type": "object", "properties": {"a": {"type": "string"}},
                    "dependentSchemas": {"a": {"required": ["b"]}}}}), "dependentSchemas"),
        ({"type": "object", "anyOf": [obj({"a": {"type": "string"}})]}, "plain object at the root"),
    ],
    ids=["patternProperties", "if-then", "tuple", "array-without-items", "any", "dependentSchemas", "root-anyOf"],
)
def test_unconvertible_schemas_say_why(schema: dict[str, Any], words: str) -> None:
    # REQ: DEF-7
    conversion = strict_conversion(schema)
    assert not conversion.convertible
    assert any(words in reason for reason in conversion.unconvertible), conversion.unconvertible


def test_the_apis_real_limits_decide_what_goes_strict() -> None:
    # REQ: DEF-7, DEF-4
    def nested(levels: int) -> dict[str, Any]:
        root = node = obj({}, ())
        for _ in range(levels - 1):
            child = obj({}, ())
            node["properties"]["x"] = child
            node["required"] = ["x"]
            node = child
        return root

    assert strict_conversion(nested(OPENAI_MAX_DEPTH)).convertible
    assert "nested 11 levels" in strict_conversion(nested(OPENAI_MAX_DEPTH + 1)).unconvertible[0]
    wide = obj({f"p{i}": {"type": "string"} for i in range(OPENAI_MAX_PROPERTIES + 1)})
    assert not strict_conversion(wide).convertible  # refused as too large before conversion, or by the limit
    assert strict_conversion(obj({f"p{i}": {"type": "string"} for i in range(100)})).convertible
    many = obj({"e": {"enum": [f"v{i}" for i in range(OPENAI_MAX_ENUM_VALUES + 1)]}})
    assert "enum values" in strict_conversion(many).unconvertible[0]
    long_enum = obj({"e": {"enum": [f"{i:03d}" + "x" * 60 for i in range(300)]}})
    assert "more than 250" in strict_conversion(long_enum).unconvertible[0]


def test_an_unconvertible_strict_tool_is_registered_and_sent_without_strict_mode() -> None:
    # REQ: DEF-7, DEF-4, WIRE-1
    schema = obj({"counts": {"type": "object", "additionalProperties": {"type": "integer"}}})
    made = function_tool("tally", "Count things.", schema, lambda arguments: "ok", strict=True)
    registered = RegisteredTool.from_implementation(made)
    definition = registered.definition
    chat = to_chat_completions_tool(definition)["function"]
    responses = to_responses_tool(definition)
    assert "strict" not in chat and chat["parameters"] == schema
    assert responses["strict"] is False and responses["parameters"] == schema
    parsed = check_tool_call(ToolCallPart("c1", "tally", '{"counts": {"a": 1}}'), {"tally": registered})
    assert not parsed.invalid and parsed.input == {"counts": {"a": 1}}


# --- the property: strict means the same, and undo reads it back ------------------------------------

_LEAVES = st.sampled_from([
    {"type": "string"}, {"type": "integer", "minimum": 0, "maximum": 9}, {"type": "number"}, {"type": "boolean"},
    {"enum": ["a", "b"]}, {"const": "en"}, {"type": "string", "enum": ["x", "y"]}, {"type": ["string", "null"]},
    {"anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "string", "format": "date"},
    {"type": "string", "maxLength": 3}, {"type": "integer", "enum": [1, 2, 3]}, False,
    {"$ref": "#/$defs/Item"}, {"type": "string", "pattern": "^[a-z]+$"},
])
_NAMES = st.sampled_from(["a", "b", "c", "d"])


def _object(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.builds(
        lambda props, required, closed: obj(props, tuple(n for n in required if n in props), closed),
        st.dictionaries(_NAMES, children, max_size=3),
        st.lists(_NAMES, max_size=3, unique=True),
        st.booleans(),
    )


def _opened(schema: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != "additionalProperties"}


_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        _object(inner),
        st.builds(lambda items: {"type": "array", "items": items, "maxItems": 3},
                  inner.filter(lambda s: s is not False)),
        st.builds(lambda a, b: {"anyOf": [a, b]}, _object(inner),
                  st.sampled_from([{"type": "string"}, {"type": "null"}])),
        st.builds(
            lambda a, b: {"oneOf": [{**a, "properties": {**a["properties"], "k": {"const": "A"}}, "required": ["k"]},
                                    {**b, "properties": {**b["properties"], "k": {"const": "B"}}, "required": ["k"]}]},
            _object(inner), _object(inner),
        ),
        st.builds(lambda a, b: {"allOf": [_opened(a), _opened(b)]}, _object(inner), _object(inner)),
    ),
    max_leaves=6,
)
_ITEM = {"type": "object", "properties": {"id": {"type": "integer"}, "tag": {"type": "string"}},
         "required": ["id"], "additionalProperties": False}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(properties=st.dictionaries(_NAMES, _VALUES, max_size=3), required=st.lists(_NAMES, unique=True), data=st.data())
def test_property_strict_form_validates_and_undo_gives_back_the_original(
    properties: dict[str, Any], required: list[str], data: st.DataObject
) -> None:
    # REQ: DEF-7, EXE-4
    schema = obj(properties, tuple(n for n in required if n in properties))
    schema["$defs"] = {"Item": _ITEM}
    before = copy.deepcopy(schema)
    conversion = strict_conversion(schema)
    assert schema == before
    if not conversion.convertible:
        assert conversion.unconvertible
        return
    strict = conversion.schema()
    Validator.check_schema(strict)
    assert strict_rules_broken(strict) == []
    changed = kinds(conversion)
    original = Validator(schema)
    strict_validator = Validator(strict)
    # A call the strict schema allows reads back as a valid call (unless a dropped keyword widened it).
    sent = data.draw(arguments_strategy(strict), label="strict call")
    assert strict_validator.is_valid(sent)
    undone = conversion.undo(sent)
    if "widened" in changed and not original.is_valid(undone):
        return
    assert original.is_valid(undone), (sent, undone)
    # Canonical instances: from the canonical schema where the generator can, else the one just read back.
    instances = [undone]
    with contextlib.suppress(UnsupportedSchemaError):
        instances.append(data.draw(arguments_strategy(schema), label="instance"))
    for instance in instances:
        assert original.is_valid(instance)
        strict_form = conversion.to_strict(instance)
        if "narrowed" not in changed:
            assert strict_validator.is_valid(strict_form), (instance, strict_form)
        back = conversion.undo(strict_form)
        assert original.is_valid(back)
        if "merged" not in changed:
            assert back == instance, (instance, strict_form, back)


def test_builder_schemas_are_always_exact() -> None:
    # REQ: DEF-5, DEF-7
    from toolplug import ToolParameterSchemaBuilder

    schema = (
        ToolParameterSchemaBuilder()
        .required_string("q").optional_integer("n", minimum=1).optional_enum("m", "", "a", "b")
        .optional_array("tags", "", {"type": "string"}).optional_boolean("b")
        .optional_object("f", "", ToolParameterSchemaBuilder().optional_number("x"))
        .build()
    )
    conversion = strict_conversion(schema)
    assert conversion.exact, conversion.lossy_changes
