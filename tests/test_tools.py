"""The three ways to write a tool: a ToolImplementation, ``@tool``, ``function_tool``."""

from __future__ import annotations

import asyncio
import datetime
import enum
import functools
import threading
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field

import toolplug
from toolplug import (
    CallScope,
    ConfidenceLevel,
    InvalidArgumentError,
    RegisteredTool,
    ToolDefinition,
    ToolExecutionContext,
    ToolExecutor,
    ToolKind,
    ToolParameterSchemaBuilder,
)


def run(tool: toolplug.ToolImplementation, arguments: dict[str, Any]) -> toolplug.ToolCallOutcome:
    return asyncio.run(ToolExecutor().execute(RegisteredTool.from_implementation(tool), arguments))


class Weather(toolplug.ToolImplementation):
    implementation_key = "get_weather"
    display_name = "Current Weather"
    description = "Shows the weather for a city."
    icon = "cloud"
    sensitive_argument_names = frozenset({"city"})

    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            id="get_weather",
            implementation_key="get_weather",
            minimum_provider_confidence=ConfidenceLevel.VERY_LOW,
            function=toolplug.FunctionSpec(
                name="get_weather",
                description_for_llm="Get the current weather in a given location.",
                parameters=ToolParameterSchemaBuilder()
                .required_string("city", "The city.")
                .required_enum("unit", "The unit.", "celsius", "fahrenheit")
                .build(),
            ),
        )

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> str:
        return f"The weather in {arguments['city']} is 85 degrees {arguments['unit']}."


def test_tool_implementation_carries_definition_and_user_facing_members() -> None:
    # REQ: DEF-2
    weather = Weather()
    definition = weather.definition()
    assert definition.id == definition.implementation_key == definition.function.name == "get_weather"
    assert weather.validate_configuration({}) == []
    outcome = run(weather, {"city": "Lisbon", "unit": "celsius"})
    assert outcome.text == "The weather in Lisbon is 85 degrees celsius."
    assert outcome.trace.arguments == {"city": "[redacted]", "unit": "celsius"}


def test_display_name_falls_back_to_the_title_then_the_id() -> None:
    # REQ: DEF-2
    schema = {"type": "object"}
    titled = toolplug.function_tool("lookup", "Look up.", schema, lambda a: "x", title="Look Up")
    plain = toolplug.function_tool("lookup", "Look up.", schema, lambda a: "x")
    assert (titled.display_name, plain.display_name) == ("Look Up", "lookup")


def test_translated_setting_labels_reach_the_settings_reference(tmp_path: Any) -> None:
    # REQ: DEF-2
    from toolplug.config import HostConfig
    from toolplug.host import Host
    from toolplug.settings_docs import settings_reference

    class Translated(Weather):
        def settings_field_label(self, field: toolplug.SettingsField) -> str:
            return {"units": "Einheiten"}.get(field.name, super().settings_field_label(field))

        def settings_field_description(self, field: toolplug.SettingsField) -> str:
            return f"[de] {field.description}"

        def definition(self) -> ToolDefinition:
            return super().definition().model_copy(update={"settings_schema": toolplug.SettingsSchema(fields=(
                toolplug.SettingsField(name="units", description="Which units."),
                toolplug.SettingsField(name="station", title="Station", description="Where."),
                toolplug.SettingsField(name="plain"),
            ))})

    class Plugin:
        @toolplug.hookimpl
        def register_tools(self) -> list[Any]:
            return [Translated()]

    host = Host(HostConfig(), plugins=[("de", Plugin())], load_entry_points=False, settings_dir=tmp_path)
    rows = {row["field"]: (row["label"], row["meaning"]) for row in settings_reference(host)}
    assert rows == {"units": ("Einheiten", "[de] Which units."), "station": ("Station", "[de] Where."),
                    "plain": ("plain", "[de] ")}


def test_tool_decorator_builds_schema_from_type_hints_and_docstring() -> None:
    # REQ: DEF-6
    @toolplug.tool(minimum_provider_confidence="low")
    def forecast(
        city: str, days: int = 3, unit: Literal["c", "f"] = "c", tags: list[str] | None = None
    ) -> dict[str, Any]:
        """Forecast the weather.

        Longer explanation that stays out of the summary.

        Args:
            city: The city to forecast.
            days: How many days,
                at most a week.
        """
        return {"city": city, "days": days, "unit": unit, "tags": tags}

    definition = forecast.definition()
    assert definition.function.description_for_llm == "Forecast the weather."
    parameters = definition.function.parameters
    assert parameters["required"] == ["city"]
    assert parameters["properties"]["city"] == {"type": "string", "description": "The city to forecast."}
    assert parameters["properties"]["days"]["description"] == "How many days, at most a week."
    assert parameters["properties"]["unit"]["enum"] == ["c", "f"]
    assert definition.minimum_provider_confidence is ConfidenceLevel.LOW
    outcome = run(forecast, {"city": "Oslo"})
    assert outcome.result.json_content == {"city": "Oslo", "days": 3, "unit": "c", "tags": None}
    assert forecast("Rome")["city"] == "Rome"  # still callable as the plain function


def test_sync_tool_runs_in_a_worker_thread_and_async_tool_on_the_loop() -> None:
    # REQ: DEF-6
    seen: dict[str, Any] = {}

    @toolplug.tool
    def blocking(x: int) -> int:
        """Blocking work."""
        seen["thread"] = threading.current_thread() is threading.main_thread()
        return x * 2

    @toolplug.tool
    async def non_blocking(x: int, ctx: ToolExecutionContext) -> int:
        """Async work with the context."""
        seen["call_id"] = ctx.call_id
        return x + 1

    assert run(blocking, {"x": 2}).result.json_content == 4
    assert seen["thread"] is False
    assert run(non_blocking, {"x": 2}).result.json_content == 3
    assert "ctx" not in non_blocking.definition().function.parameters["properties"]


def test_tool_decorator_rejects_untyped_parameters() -> None:
    # REQ: DEF-6
    def untyped(x):  # type: ignore[no-untyped-def]
        """No hints."""
        return x

    with pytest.raises(InvalidArgumentError, match="needs a type hint"):
        toolplug.tool(untyped)


def test_function_tool_from_name_description_schema_and_execute() -> None:
    # REQ: DEF-6
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    weather = toolplug.function_tool(
        "weather",
        "Returns a short forecast.",
        schema,
        lambda arguments: {"city": arguments["city"], "forecast": "sunny"},
    )
    assert weather.definition().function.parameters == schema
    assert run(weather, {"city": "Lisbon"}).result.json_content == {"city": "Lisbon", "forecast": "sunny"}

    async def with_context(arguments: dict[str, Any], context: ToolExecutionContext) -> str:
        return context.scope.component

    contextual = toolplug.function_tool("where", "Where am I.", {"type": "object"}, with_context, pass_context=True)
    registered = RegisteredTool.from_implementation(contextual)
    outcome = asyncio.run(ToolExecutor().execute(registered, {}, scope=CallScope(component="assistants")))
    assert outcome.text == "assistants"


def test_tool_kinds_provider_defined_custom_dynamic() -> None:
    # REQ: DEF-8
    search = toolplug.provider_defined_tool("openai.web_search", "web_search", {"search_context_size": "low"})
    assert search.definition().kind is ToolKind.PROVIDER_DEFINED and not search.has_execute
    assert search.definition().provider_tool == toolplug.ProviderToolSpec(
        id="openai.web_search", args={"search_context_size": "low"}
    )
    with pytest.raises(InvalidArgumentError, match=r"<provider>\.<tool>"):
        toolplug.provider_defined_tool("websearch", "web_search")
    sql = toolplug.custom_tool("write_sql", "Write SQL.", grammar_syntax="regex", grammar_definition="SELECT .+")
    assert sql.definition().kind is ToolKind.CUSTOM and sql.definition().grammar.syntax == "regex"  # type: ignore[union-attr]
    with pytest.raises(InvalidArgumentError, match="together"):
        toolplug.custom_tool("bad", grammar_syntax="regex")
    dyn = toolplug.dynamic_tool("dyn", "Dynamic.", {"type": "object"}, lambda a: "x", title="Dyn", metadata={"v": 1})
    assert dyn.definition().kind is ToolKind.DYNAMIC
    assert (dyn.definition().title, dyn.definition().metadata) == ("Dyn", {"v": 1})


class Point(BaseModel):
    x: int
    y: int


class Unit(enum.Enum):
    CELSIUS = "c"
    FAHRENHEIT = "f"


def test_tool_decorator_builds_the_annotated_types_from_json_arguments() -> None:
    # REQ: DEF-6
    @toolplug.tool
    def place(where: Point, unit: Unit, span: tuple[int, int], tags: list[str] | None = None) -> str:
        """Place a point."""
        assert isinstance(where, Point) and isinstance(unit, Unit) and isinstance(span, tuple)
        return f"{where.x},{where.y} {unit.name} {span} {tags}"

    outcome = run(place, {"where": {"x": 1, "y": 2}, "unit": "f", "span": [3, 4]})
    assert outcome.status is toolplug.CallStatus.OK, outcome.text
    assert outcome.text == "1,2 FAHRENHEIT (3, 4) None"


# --- @tool fidelity -------------------------------------------------------------------------------------


def _without_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _without_titles(v) for k, v in node.items() if not (k == "title" and isinstance(v, str))}
    if isinstance(node, list):
        return [_without_titles(item) for item in node]
    return node


class _Address(BaseModel):
    street: str
    number: Annotated[int, Field(ge=1)] = 1


def _every_feature(
    n: Annotated[int, Field(ge=1, le=5, description="How many.")],
    name: Annotated[str, Field(min_length=2, max_length=8, pattern="^[a-z]+$")],
    ratio: Annotated[float, Field(gt=0, lt=1)] = 0.5,
    tags: Annotated[list[str], Field(max_length=3)] = [],  # noqa: B006
    address: _Address | None = None,
    mode: Literal["fast", "careful"] = "fast",
    when: datetime.date | None = None,
) -> str:
    return "ok"


def test_the_tool_schema_is_pydantics_reading_of_the_signature() -> None:
    # REQ: DEF-6
    from pydantic import TypeAdapter

    made = toolplug.tool(_every_feature)
    assert made.definition().function.parameters == _without_titles(TypeAdapter(_every_feature).json_schema())


def test_annotated_field_constraints_and_descriptions_are_kept_and_enforced() -> None:
    # REQ: DEF-6, EXE-4
    from toolplug.calls import check_tool_call
    from toolplug.messages import ToolCallPart

    made = toolplug.tool(name="every_feature")(_every_feature)
    properties = made.definition().function.parameters["properties"]
    assert properties["n"] == {"description": "How many.", "maximum": 5, "minimum": 1, "type": "integer"}
    registered = RegisteredTool.from_implementation(made)
    offered = {"every_feature": registered}
    assert not check_tool_call(ToolCallPart("c", "every_feature", {"n": 3, "name": "ada"}), offered).invalid
    for bad in ({"n": 9, "name": "ada"}, {"n": 3, "name": "A"}, {"n": 3, "name": "ada", "ratio": 1},
                {"n": 3, "name": "ada", "tags": ["a", "b", "c", "d"]}, {"n": 3, "name": "ada", "when": "today"}):
        assert check_tool_call(ToolCallPart("c", "every_feature", bad), offered).invalid, bad


def _google(count: int, label: str = "x") -> str:
    """Count things.

    Args:
        count (int): How many things
            to count.
        label: What to call them.

    Returns:
        The count.
    """
    return label


def _numpy(count: int, label: str = "x") -> str:
    """Count things.

    Parameters
    ----------
    count : int
        How many things
        to count.
    label : str, optional
        What to call them.

    Returns
    -------
    str
    """
    return label


def _sphinx(count: int, label: str = "x") -> str:
    """Count things.

    :param count: How many things
        to count.
    :type count: int
    :param str label: What to call them.
    :returns: the count
    """
    return label


@pytest.mark.parametrize("function", [_google, _numpy, _sphinx], ids=["google", "numpy", "sphinx"])
def test_argument_descriptions_come_from_google_numpy_and_sphinx_docstrings(function: Any) -> None:
    # REQ: DEF-6
    definition = toolplug.tool(function).definition()
    assert definition.function.description_for_llm == "Count things."
    properties = definition.function.parameters["properties"]
    assert properties["count"]["description"] == "How many things to count."
    assert properties["label"]["description"] == "What to call them."


def test_an_async_callable_object_is_awaited() -> None:
    # REQ: DEF-6
    class Doubler:
        async def __call__(self, n: int) -> int:
            """Double a number."""
            await asyncio.sleep(0)
            return n * 2

    made = toolplug.tool(name="double")(Doubler())
    assert made.definition().function.description_for_llm == "Double a number."
    assert asyncio.run(made.execute({"n": 21}, None)) == 42  # type: ignore[arg-type]
    partial = toolplug.function_tool("p", "x", {"type": "object"}, functools.partial(_async_echo, "a"))
    assert asyncio.run(partial.execute({}, None)) == "a"  # type: ignore[arg-type]


async def _async_echo(text: str, arguments: Any) -> str:
    return text


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("def f(a: int, /) -> None: ...", "positional-only"),
        ("def f(*items: int) -> None: ...", r"takes \*items"),
        ("def f(**options: int) -> None: ...", r"takes \*\*options"),
    ],
    ids=["positional-only", "args", "kwargs"],
)
def test_signatures_a_tool_cannot_be_called_with_are_refused_at_decoration(source: str, words: str) -> None:
    # REQ: DEF-6
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(toolplug.InvalidArgumentError, match=words):
        toolplug.tool(namespace["f"])
