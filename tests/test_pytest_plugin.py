"""The pytest plugin for tool authors (UX-2): isolated hosts, the tool contract check, generated arguments."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

import jsonschema
import pytest
from hypothesis import given, settings
from pydantic import BaseModel

import toolplug
from toolplug import (
    ConfidenceLevel,
    FunctionSpec,
    OptionSource,
    OutputType,
    ToolDefinition,
    ToolExecutionBlockedError,
    ToolExecutionResult,
    ToolParameterSchemaBuilder,
    ToolSettingsSchemaBuilder,
)
from toolplug.errors import PluginLoadError, UsageError
from toolplug.memory_keyring import MemoryKeyring
from toolplug.pytest_plugin import (
    ToolContractError,
    UnsupportedSchemaError,
    arguments_strategy,
    check_tool_contract,
    strict_changes,
    with_absent_as_null,
)

pytest_plugins = ["pytester"]

EVERY_KIND = (
    ToolParameterSchemaBuilder.create()
    .required_string("text", "Some text.", maxLength=50)
    .optional_integer("count", "A count.", minimum=0, maximum=10)
    .optional_number("ratio", "A ratio.", minimum=0, maximum=1)
    .optional_boolean("loud", "Shout.")
    .required_enum("mode", "How.", "a", "b")
    .optional_array("tags", "Tags.", {"type": "string"}, maxItems=3)
    .optional_object("extra", "More.", ToolParameterSchemaBuilder.create().optional_string("note", "A note."))
    .build()
)


class EchoTool(toolplug.ToolImplementation):
    """A well-behaved tool with an argument of each kind and one Required setting of each sort."""

    implementation_key = "echo"

    def __init__(self, *, strict: bool = False, fail_above: int | None = None, block_loud: bool = False) -> None:
        self.strict = strict
        self.fail_above = fail_above
        self.block_loud = block_loud

    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            id="echo",
            implementation_key="echo",
            settings_schema=ToolSettingsSchemaBuilder.create()
            .required("prefix", "Prefix")
            .required_secret("token", "Token")
            .required_choice("colour", "colours", "Colour")
            .build(),
            function=FunctionSpec(name="echo", description_for_llm="Echo the text.", parameters=EVERY_KIND,
                                  strict=self.strict),
        )

    async def execute(self, arguments: dict[str, Any], context: toolplug.ToolExecutionContext) -> Any:
        if self.block_loud and arguments.get("loud"):
            raise ToolExecutionBlockedError("no shouting")
        if self.fail_above is not None and arguments.get("count", 0) > self.fail_above:
            raise RuntimeError("count too large")
        if arguments["text"] == "":
            return ToolExecutionResult(text_content="empty text", output_type=OutputType.ERROR_TEXT)
        return f"{context.settings['prefix']}{arguments['text']}"


SETTINGS = {"prefix": "> ", "token": "sekrit-token", "colour": "red"}
COLOURS = OptionSource.of("colours", ["red", "blue"])


def plugin_with(*tools: Any, options: tuple[OptionSource, ...] = ()) -> Any:
    class Plugin:
        @toolplug.hookimpl
        def register_tools(self) -> list[Any]:
            return list(tools)

        @toolplug.hookimpl
        def register_option_sources(self) -> list[OptionSource]:
            return list(options)

    return Plugin()


# --- registration ------------------------------------------------------------------------------------------


# REQ: UX-2
def test_the_plugin_is_registered_through_pytest11(request: pytest.FixtureRequest) -> None:
    (entry_point,) = metadata.entry_points(group="pytest11", name="toolplug")
    assert entry_point.value == "toolplug.pytest_plugin"
    assert request.config.pluginmanager.hasplugin("toolplug")


# REQ: UX-2
def test_an_unrelated_session_gets_the_fixtures_without_importing_anything(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        def test_fixtures(toolplug_host, check_tool_contract):
            host = toolplug_host()
            assert host.plugin_records() == []
            assert callable(check_tool_contract)
        """
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)


# REQ: UX-2
def test_importing_the_plugin_stays_cheap() -> None:
    code = (
        "import sys, toolplug.pytest_plugin; "
        "heavy = [m for m in ('hypothesis', 'toolplug.host', 'toolplug.testing') if m in sys.modules]; "
        "assert not heavy, heavy"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr


# --- toolplug_host ------------------------------------------------------------------------------------------


# REQ: UX-2, PLG-5
def test_toolplug_host_loads_only_the_plugins_named(toolplug_host: Any) -> None:
    host = toolplug_host(plugins=[("mine", plugin_with(EchoTool(), options=(COLOURS,)))])
    assert [r.name for r in host.plugin_records()] == ["mine"]
    assert host.registry.ids() == ["echo"]
    assert host.registry.diagnostics == []


# REQ: UX-2
def test_toolplug_host_loads_an_installed_plugin_by_its_entry_point_name(toolplug_host: Any) -> None:
    host = toolplug_host(plugins=["web"])
    (record,) = host.plugin_records()
    assert (record.name, record.distribution, record.status) == ("web", "toolplug", "loaded")


# REQ: UX-2
def test_toolplug_host_names_the_installed_plugins_for_an_unknown_name(toolplug_host: Any) -> None:
    with pytest.raises(UsageError, match=r"No installed plugin is named 'nope'.*web"):
        toolplug_host(plugins=["nope"])


# REQ: UX-2, SET-1
def test_toolplug_host_keeps_settings_and_secrets_away_from_the_user(
    toolplug_host: Any, toolplug_keyring: MemoryKeyring, tmp_path_factory: pytest.TempPathFactory
) -> None:
    host = toolplug_host(plugins=[("mine", plugin_with(EchoTool(), options=(COLOURS,)))])
    definition = host.tool("echo").definition
    host.settings.set(definition, "prefix", ">> ")
    host.settings.set_secret(definition, "token", "sekrit-token")
    assert toolplug_keyring.secrets == {("toolplug", "echo.token"): "sekrit-token"}
    base = tmp_path_factory.getbasetemp()
    assert Path(host.settings.store.path).is_relative_to(base)
    assert Path(os.environ["TOOLPLUG_SETTINGS_DIR"]).is_relative_to(base)


# REQ: UX-2
def test_toolplug_host_takes_a_config_mapping(toolplug_host: Any) -> None:
    host = toolplug_host(config={"host": {"components": ["chat", "legal_check"]}})
    assert host.config.host.components == ("chat", "legal_check")


# REQ: UX-2, PLG-3
def test_toolplug_host_makes_plugin_failures_fatal_by_default(toolplug_host: Any) -> None:
    class Broken:
        @toolplug.hookimpl
        def register_tools(self) -> list[Any]:
            raise RuntimeError("boom")

    with pytest.raises(PluginLoadError, match="boom"):
        toolplug_host(plugins=[("broken", Broken())])
    host = toolplug_host(plugins=[("broken", Broken())], strict=False)
    assert host.plugin_records()[0].status == "failed"


# --- check_tool_contract -------------------------------------------------------------------------------------


# REQ: UX-2, WIRE-1, DEF-7
def test_the_contract_check_passes_a_good_tool_and_shows_the_wire_shapes(check_tool_contract: Any) -> None:
    report = check_tool_contract(EchoTool(), settings=SETTINGS, option_sources=[COLOURS], max_examples=30)
    assert report.examples_run >= 1
    assert set(report.statuses) <= {"ok"}
    chat, responses, anthropic = (report.wire_shapes[k] for k in ("chat_completions", "responses", "anthropic"))
    assert chat["type"] == "function" and chat["function"]["name"] == "echo"
    assert chat["function"]["parameters"] == EVERY_KIND
    assert responses["name"] == "echo" and responses["strict"] is False and "function" not in responses
    assert anthropic == {"name": "echo", "description": "Echo the text.", "input_schema": EVERY_KIND}
    assert not report.strict
    assert "count: optional made required and nullable (type \"integer\" -> [\"integer\", \"null\"])" in (
        report.strict_changes)


# REQ: UX-2, DEF-7
def test_strict_tools_get_the_strict_schema_in_the_openai_shapes_only() -> None:
    tool = EchoTool(strict=True)
    report = check_tool_contract(tool, settings=SETTINGS, option_sources=[COLOURS], max_examples=10)
    function = report.wire_shapes["chat_completions"]["function"]
    assert function["strict"] is True
    assert sorted(function["parameters"]["required"]) == sorted(EVERY_KIND["properties"])
    assert report.wire_shapes["responses"]["parameters"] == function["parameters"]
    assert report.wire_shapes["anthropic"]["input_schema"] == EVERY_KIND
    assert "extra.note: optional made required and nullable (type \"string\" -> [\"string\", \"null\"])" in (
        report.strict_changes)
    # The builders already close every object, so strict mode adds no additionalProperties of its own.
    assert not [change for change in report.strict_changes if "additionalProperties" in change]


# REQ: UX-2, EXE-1
def test_the_contract_check_finds_an_exception_on_valid_arguments() -> None:
    with pytest.raises(ToolContractError, match=r"raised on schema-valid arguments .*count too large"):
        check_tool_contract(EchoTool(fail_above=5), settings=SETTINGS, option_sources=[COLOURS], max_examples=200)


# REQ: UX-2, EXE-1
def test_blocked_calls_and_error_results_are_fine() -> None:
    examples = [{"text": "x", "mode": "a", "loud": True}, {"text": "", "mode": "b"}]
    report = check_tool_contract(EchoTool(block_loud=True), settings=SETTINGS, option_sources=[COLOURS],
                                 examples=examples, max_examples=0)
    assert report.statuses == {"blocked": 1, "ok": 1}


# REQ: UX-2, DEF-4
def test_the_contract_check_reports_every_registry_problem() -> None:
    bad = toolplug.function_tool("Bad-Name", "", {"type": "object", "properties": {}}, lambda arguments: "x")
    with pytest.raises(ToolContractError) as caught:
        check_tool_contract(bad)
    message = str(caught.value)
    assert "fails the registry checks" in message
    assert "id:" in message and "function.description_for_llm" in message


# REQ: UX-2, SET-2
def test_the_contract_check_needs_the_option_sources_and_the_required_settings() -> None:
    with pytest.raises(ToolContractError, match="unknown option source 'colours'"):
        check_tool_contract(EchoTool(), settings=SETTINGS)
    with pytest.raises(ToolContractError, match=r"pass settings=.*prefix, token, colour"):
        check_tool_contract(EchoTool(), option_sources=[COLOURS])


# REQ: UX-2
def test_the_contract_check_works_inside_a_running_event_loop() -> None:
    async def inside() -> Any:
        return check_tool_contract(EchoTool(), settings=SETTINGS, option_sources=["colours"], max_examples=5)

    assert asyncio.run(inside()).examples_run >= 1


class Point(BaseModel):
    x: int
    y: int | None = None


# REQ: UX-2, DEF-6
def test_the_contract_check_passes_typed_function_tools() -> None:
    @toolplug.tool(strict=True)
    def locate(names: list[str], unit: Literal["m", "km"] = "m", note: str | None = None) -> str:
        """Locate places by name."""
        return f"{names} {unit} {note}"

    report = check_tool_contract(locate, max_examples=30)
    assert report.statuses == {"ok": report.examples_run}


# REQ: UX-2, DEF-6
def test_a_model_argument_reaches_the_function_as_the_model() -> None:
    @toolplug.tool
    def locate(where: Point) -> str:
        """Locate a point."""
        return f"{where.x},{where.y}"

    check_tool_contract(locate, max_examples=10)


# --- generated arguments -------------------------------------------------------------------------------------


class Nested(BaseModel):
    label: str
    weights: dict[str, float] = {}


def _function_schema() -> dict[str, Any]:
    @toolplug.tool
    def sample(items: list[Nested], pair: tuple[int, str], level: Literal[1, 2, 3] = 1, maybe: float | None = None,
               flag: bool = False) -> str:
        """Sample."""
        return ""

    return sample.definition().function.parameters  # type: ignore[no-any-return]


@pytest.mark.parametrize("schema", [EVERY_KIND, _function_schema()], ids=["builders", "typed-function"])
# REQ: UX-2
def test_generated_arguments_are_valid_under_a_reference_validator(schema: dict[str, Any]) -> None:
    @settings(max_examples=60, deadline=None, database=None)
    @given(arguments_strategy(schema))
    def check(value: Any) -> None:
        jsonschema.validate(value, schema)

    check()


# REQ: UX-2
def test_unsupported_keywords_are_named() -> None:
    with pytest.raises(UnsupportedSchemaError, match="not"):
        arguments_strategy({"type": "object", "properties": {"a": {"not": {"type": "string"}}}})


# REQ: DEF-7
def test_absent_optionals_become_null_recursively() -> None:
    value = {"text": "t", "mode": "a", "extra": {}}
    filled = with_absent_as_null(EVERY_KIND, value)
    assert filled == {"text": "t", "mode": "a", "extra": {"note": None}, "count": None, "ratio": None,
                      "loud": None, "tags": None}


# REQ: DEF-7
def test_strict_changes_are_listed_in_words() -> None:
    schema = ToolParameterSchemaBuilder.create().required_string("a").optional_enum("b", "", "x", "y").build()
    changed = strict_changes(schema, toolplug.to_openai_strict(schema))
    assert changed == ['b: optional made required and nullable (type "string" -> ["string", "null"], '
                       "null added to enum)"]


# REQ: UX-2
def test_the_scripted_provider_is_re_exported_lazily(toolplug_testing: Any) -> None:
    import toolplug.pytest_plugin as kit

    assert kit.ScriptedAdapter is toolplug_testing.ScriptedAdapter
    with pytest.raises(AttributeError):
        kit.pytest_something  # noqa: B018
    assert ConfidenceLevel.HIGH  # the kit's default scope is a HIGH-confidence provider


# --- generators bounded by the schema, strict round trip ----------------------------------------------


def _leaves(value: Any) -> int:
    if isinstance(value, list):
        return sum(_leaves(item) for item in value) or 1
    if isinstance(value, dict):
        return sum(_leaves(item) for item in value.values()) or 1
    return 1


def test_generated_arguments_stay_small_however_deeply_arrays_nest() -> None:
    # REQ: UX-2
    from hypothesis import given, settings

    from toolplug.pytest_plugin import arguments_strategy

    items: dict[str, Any] = {"type": "integer"}
    for _ in range(8):
        items = {"type": "array", "items": items}
    schema = {"type": "object", "properties": {"grid": items}, "required": ["grid"]}
    seen: list[int] = []

    @settings(max_examples=60, database=None, deadline=None)
    @given(arguments_strategy(schema))
    def draw(value: dict[str, Any]) -> None:
        seen.append(_leaves(value))

    draw()
    assert max(seen) <= 3  # three items in the outer array, then one per level (up to 5**8 before)


def test_the_contract_check_generates_every_asserted_format() -> None:
    # REQ: UX-2, EXE-4
    from toolplug import function_tool
    from toolplug.pytest_plugin import check_tool_contract

    formats = ["date", "date-time", "time", "email", "uri", "uuid", "ipv4", "ipv6", "hostname", "duration"]
    schema = {
        "type": "object",
        "properties": {f.replace("-", "_"): {"type": "string", "format": f} for f in formats},
        "required": [f.replace("-", "_") for f in formats],
    }
    report = check_tool_contract(function_tool("formats", "Formats.", schema, lambda a: "ok"), max_examples=15)
    assert report.examples_run == 15


def test_the_contract_check_proves_the_strict_round_trip(monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: DEF-7, UX-2
    from toolplug import function_tool
    from toolplug.pytest_plugin import ToolContractError, check_tool_contract
    from toolplug.strict import StrictConversion

    schema = {"type": "object", "properties": {"items": {"type": "array", "items": {
        "type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "integer"}}, "required": ["a"],
        "additionalProperties": False}}}, "required": ["items"], "additionalProperties": False}
    made = function_tool("nested", "Nested.", schema, lambda a: "ok", strict=True)
    check_tool_contract(made, max_examples=20, examples=[{"items": [{"a": "x"}]}])
    monkeypatch.setattr(StrictConversion, "undo", lambda self, arguments: arguments)
    with pytest.raises(ToolContractError, match="reads back as"):
        check_tool_contract(made, max_examples=0, examples=[{"items": [{"a": "x"}]}])
