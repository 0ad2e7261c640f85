"""The central registry: every definition validated the same way, problems as diagnostics."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import toolplug
from toolplug import (
    DefinitionError,
    FunctionSpec,
    SettingsField,
    SettingsSchema,
    ToolDefinition,
    ToolRegistry,
    UnknownToolError,
    Visibility,
)
from toolplug.registry import CodeDefinitionSource, Origin, RegisteredTool


class Dummy(toolplug.ToolImplementation):
    def __init__(self, key: str, definition: ToolDefinition | None = None) -> None:
        self.implementation_key = key
        self._definition = definition

    def definition(self) -> ToolDefinition | None:
        return self._definition

    async def execute(self, arguments: dict[str, Any], context: Any) -> str:
        return "ok"


def make(tool_id: str = "get_weather", **changes: Any) -> ToolDefinition:
    fields: dict[str, Any] = {
        "id": tool_id,
        "implementation_key": tool_id,
        "function": FunctionSpec(
            name=tool_id,
            description_for_llm="Get the weather.",
            parameters={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        ),
    }
    fields.update(changes)
    return ToolDefinition(**fields)


def register(definition: ToolDefinition, registry: ToolRegistry | None = None, key: str | None = None) -> ToolRegistry:
    registry = registry or ToolRegistry(components=("chat", "assistants", "legal_check"), option_sources={"languages"})
    implementation = Dummy(key or definition.implementation_key)
    registry.add(definition, {implementation.implementation_key: (implementation, Origin("acme"))}, Origin("acme"))
    return registry


def fields_of(registry: ToolRegistry) -> list[str]:
    return [d.field for d in registry.diagnostics]


def test_valid_definition_is_registered_with_its_plugin() -> None:
    # REQ: DEF-1, DEF-4
    registry = register(make())
    tool = registry.get("get_weather")
    assert (tool.plugin, tool.name) == ("acme", "get_weather")
    assert registry.diagnostics == []
    with pytest.raises(UnknownToolError, match="Known tools: get_weather"):
        registry.get("nope")


@pytest.mark.parametrize(
    ("definition", "field", "message"),
    [
        (make("GetWeather"), "id", "lower-case"),
        (make("get-weather"), "id", "lower-case"),
        (make(implementation_key="other"), "implementation_key", "must equal the id"),
        (make(function=FunctionSpec(name="other", description_for_llm="x")), "function.name", "must equal the id"),
        (
            make(function=FunctionSpec(name="get_weather", description_for_llm="x", parameters={"type": "array"})),
            "function.parameters",
            "type 'object'",
        ),
        (
            make(
                function=FunctionSpec(
                    name="get_weather",
                    description_for_llm="x",
                    parameters={"type": "object", "properties": {"a": {"type": "strnig"}}},
                )
            ),
            "function.parameters",
            "not a valid JSON Schema",
        ),
        (
            make(function=FunctionSpec(name="get_weather", description_for_llm=" ")),
            "function.description_for_llm",
            "must not be empty",
        ),
        (
            make(visible_in=Visibility(denied_components=("nowhere",))),
            "visible_in.denied_components",
            "unknown component 'nowhere'",
        ),
        (
            make(
                settings_schema=SettingsSchema(
                    fields=(SettingsField(name="lang", kind="choice", option_source="languages", enum=("en",)),)
                )
            ),
            "settings_schema.lang",
            "not both",
        ),
        (
            make(
                settings_schema=SettingsSchema(
                    fields=(SettingsField(name="lang", kind="choice", option_source="nope"),)
                )
            ),
            "settings_schema.lang",
            "unknown option source 'nope'",
        ),
    ],
)
def test_each_rejected_definition_gives_a_diagnostic_naming_tool_plugin_and_field(
    definition: ToolDefinition, field: str, message: str
) -> None:
    # REQ: DEF-4
    registry = register(definition)
    assert len(registry) == 0
    matching = [d for d in registry.diagnostics if d.field == field]
    assert matching, registry.diagnostics
    assert message in matching[0].message
    assert matching[0].tool_id == definition.id and matching[0].plugin == "acme"


def test_compatibility_reason_allows_different_names() -> None:
    # REQ: DEF-4
    definition = make(
        "mcp_files_read",
        implementation_key="mcp_files_read",
        function=FunctionSpec(name="readFile", description_for_llm="Read a file."),
        compatibility_reason="the MCP server names the tool readFile",
    )
    registry = register(definition)
    assert registry.get("mcp_files_read").name == "readFile"
    assert registry.by_function_name("readFile") is not None


def test_missing_implementation_and_duplicates_are_diagnostics() -> None:
    # REQ: DEF-4
    registry = ToolRegistry()
    registry.add(make(), {}, Origin("acme"))
    assert "no implementation registered for key 'get_weather'" in registry.diagnostics[0].message
    registry = register(make())
    register(make(), registry)
    assert len(registry) == 1
    assert "duplicate tool id 'get_weather': plugin 'acme' owns it" in registry.diagnostics[0].message


def _nested(levels: int) -> dict[str, Any]:
    root: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
    node = root
    for _ in range(levels - 1):
        child: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
        node["properties"]["x"] = child
        node["required"] = ["x"]
        node = child
    return root


def test_a_strict_definition_past_the_apis_limits_is_kept_and_sent_without_strict_mode() -> None:
    # REQ: DEF-4, DEF-7
    fits = make(function=FunctionSpec(name="get_weather", description_for_llm="x", parameters=_nested(10), strict=True))
    registry = register(fits)
    assert registry.diagnostics == []
    assert registry.get("get_weather").strict_conversion.exact
    too_deep = make(function=FunctionSpec(name="get_weather", description_for_llm="x", parameters=_nested(11),
                                          strict=True))
    registry = register(too_deep)
    assert registry.diagnostics == []  # a working tool, just not a strict one
    conversion = registry.get("get_weather").strict_conversion
    assert not conversion.convertible
    assert conversion.unconvertible == ("objects nested 11 levels deep; the API allows 10",)


def test_a_schema_past_the_untrusted_caps_is_a_diagnostic() -> None:
    # REQ: DEF-4, DEF-9
    definition = make(function=FunctionSpec(name="get_weather", description_for_llm="x", parameters=_nested(70)))
    registry = register(definition)
    assert fields_of(registry) == ["function.parameters"]
    assert "nested deeper than 128 levels" in registry.diagnostics[0].message


def test_code_source_and_data_source_join_by_implementation_key() -> None:
    # REQ: DEF-3
    code_tool = Dummy("get_weather", make())
    data_only = Dummy("shared_impl")  # definition() is None: it only implements
    registry = ToolRegistry()
    pool = {t.implementation_key: (t, Origin("acme")) for t in (code_tool, data_only)}
    registry.add_source(CodeDefinitionSource([code_tool, data_only]), Origin("acme"), pool)

    class DataSource:
        name = "files"

        def load_definitions(self) -> list[Any]:
            return [
                make(
                    "from_data",
                    implementation_key="shared_impl",
                    compatibility_reason="one implementation serves every data-defined tool",
                    function=FunctionSpec(name="from_data", description_for_llm="From a file."),
                )
            ]

        def implementations(self) -> list[Any]:
            return []

    registry.add_source(DataSource(), Origin("acme"), pool)
    assert registry.ids() == ["from_data", "get_weather"]
    assert registry.get("from_data").implementation is data_only
    assert registry.get("from_data").source == "files"


def test_a_data_definition_never_joins_another_plugins_implementation() -> None:
    # REQ: PLG-7, DEF-3
    denied_code = Dummy("shared_impl")
    pool = {"shared_impl": (denied_code, Origin("denied"))}
    registry = ToolRegistry()

    class Hijack:
        name = "files"

        def load_definitions(self) -> list[Any]:
            return [make("hijack", implementation_key="shared_impl", compatibility_reason="joins another plugin",
                         function=FunctionSpec(name="hijack", description_for_llm="Runs someone else's code."))]

        def implementations(self) -> list[Any]:
            return []

    registry.add_source(Hijack(), Origin("files"), pool)
    assert "hijack" not in registry
    (diagnostic,) = registry.diagnostics
    assert diagnostic.field == "implementation_key" and diagnostic.plugin == "files"
    assert "plugin 'denied'" in diagnostic.message and "its own plugin's code" in diagnostic.message
    # A sub-plugin of the same installed plugin may: mcp.github runs code of mcp.
    registry.add_source(Hijack(), Origin("denied.sub"), pool)
    assert registry.get("hijack").implementation is denied_code


def test_failing_source_is_a_diagnostic_not_a_crash() -> None:
    # REQ: DEF-3, DEF-4
    class Broken:
        name = "broken"

        def load_definitions(self) -> list[Any]:
            raise ConnectionError("server down")

        def implementations(self) -> list[Any]:
            return []

    registry = ToolRegistry()
    registry.add_source(Broken(), Origin("x"), {})
    assert registry.diagnostics[0].field == "source" and "server down" in registry.diagnostics[0].message


def test_registered_tool_from_implementation_raises_definition_error() -> None:
    # REQ: DEF-4
    with pytest.raises(DefinitionError, match="field id"):
        RegisteredTool.from_implementation(Dummy("Bad Id", make("Bad Id")))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=10,
)
definition_like = st.fixed_dictionaries(
    {},
    optional={
        "id": st.one_of(st.text(max_size=10), st.from_regex(r"[a-z_]{1,8}", fullmatch=True), json_values),
        "implementation_key": st.text(max_size=10),
        "function": st.one_of(
            json_values,
            st.fixed_dictionaries(
                {
                    "name": st.text(max_size=8),
                    "description_for_llm": st.text(max_size=8),
                    "parameters": st.one_of(json_values, st.just({"type": "object"})),
                    "strict": st.booleans(),
                }
            ),
        ),
        "visible_in": json_values,
        "settings_schema": json_values,
        "minimum_provider_confidence": st.one_of(st.sampled_from(["high", "low", "bogus"]), st.integers()),
    },
)


@settings(max_examples=200, deadline=None)
@given(definition_like)
def test_property_arbitrary_definitions_never_crash_the_registry(data: dict[str, Any]) -> None:
    # REQ: DEF-4
    registry = ToolRegistry(components=("chat",))
    key = data.get("implementation_key") if isinstance(data.get("implementation_key"), str) else "k"
    implementation = Dummy(key)
    result = registry.add(data, {key: (implementation, Origin("fuzz"))}, Origin("fuzz"))
    assert (result is None) == bool(registry.diagnostics)
    for diagnostic in registry.diagnostics:
        assert diagnostic.plugin == "fuzz" and diagnostic.field and diagnostic.message


def test_standalone_tool_with_a_choice_setting_validates_without_a_host() -> None:
    # REQ: DEF-4, SET-2
    definition = make(
        settings_schema=SettingsSchema(fields=(SettingsField(name="lang", kind="choice", option_source="languages"),))
    )
    tool = Dummy("get_weather", definition)
    assert RegisteredTool.from_implementation(tool).id == "get_weather"
    with pytest.raises(DefinitionError, match="unknown option source 'languages'"):
        RegisteredTool.from_implementation(tool, option_sources=["colours"])


def test_two_tools_may_not_share_a_function_name() -> None:
    # REQ: DEF-4
    first = make("alpha_search", function=FunctionSpec(name="search", description_for_llm="x"),
                 compatibility_reason="legacy name")
    second = make("beta_search", function=FunctionSpec(name="search", description_for_llm="y"),
                  compatibility_reason="legacy name")
    registry = register(first)
    register(second, registry)
    assert registry.ids() == ["alpha_search"]
    assert "duplicate function name 'search'" in registry.diagnostics[0].message


def test_source_diagnostics_are_collected() -> None:
    # REQ: DEF-3, DEF-4
    from toolplug.registry import Diagnostic

    class PinnedSource:
        name = "pinned"
        diagnostics = [Diagnostic("files_old", "files", "fingerprint", "definition changed since it was approved")]

        def load_definitions(self) -> list[Any]:
            return []

        def implementations(self) -> list[Any]:
            return []

    registry = ToolRegistry()
    registry.add_source(PinnedSource(), Origin("files"), {})
    assert registry.diagnostics[0].field == "fingerprint" and registry.rejected == {"files_old": "files"}
