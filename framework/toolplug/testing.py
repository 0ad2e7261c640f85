"""Test doubles for tool authors and hosts: a scripted provider adapter and a schema-driven test model.

Neither needs a network or a real model::

    model = ScriptedAdapter([tool_calls_round(tool_call("weather", {"city": "Lisbon"})), "It is sunny."])
    result = await generate_text(model, prompt="Weather?", tools=[weather], stop_when=loop_finished())

    result = await generate_text(SchemaTestModel(), prompt="Try every tool", tools=my_tools,
                                 stop_when=loop_finished())
"""

from __future__ import annotations

import inspect
import itertools
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any, TypeAlias

from toolplug.definitions import ToolKind
from toolplug.errors import UsageError
from toolplug.hookspecs import hookimpl
from toolplug.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
)
from toolplug.providers.base import (
    ReasoningDelta,
    Round,
    RoundDelta,
    RoundRequest,
    TextDelta,
    ToolInputDelta,
    ToolInputEndDelta,
    ToolInputStartDelta,
    Usage,
)

ScriptItem: TypeAlias = Round | str | ToolCallPart | Sequence[ToolCallPart]
"""A round, a text answer, one tool call, or several tool calls in one round."""

Responder: TypeAlias = Callable[[Sequence[Message], RoundRequest], "ScriptItem | Awaitable[ScriptItem]"]
"""Answers a round from the conversation so far and the request."""


def tool_call(
    tool_name: str,
    input: Any = None,
    *,
    call_id: str = "",
    provider_executed: bool = False,
    dynamic: bool = False,
    provider_metadata: dict[str, Any] | None = None,
) -> ToolCallPart:
    """A tool call as a model would make it; ``input`` may be a dict or raw JSON text. No id: one is made."""
    return ToolCallPart(
        call_id,
        tool_name,
        {} if input is None else input,
        provider_executed=provider_executed,
        dynamic=dynamic,
        provider_metadata=provider_metadata,
    )


def text_round(text: str, *, reasoning: str | None = None, usage: Usage | None = None) -> Round:
    """A round in which the model answers with ``text``."""
    content: list[Any] = [] if reasoning is None else [ReasoningPart(reasoning)]
    content.append(TextPart(text))
    return Round(content, "stop", usage or Usage())


def tool_calls_round(*calls: ToolCallPart, text: str = "", usage: Usage | None = None) -> Round:
    """A round in which the model calls tools (after optional text)."""
    content: list[Any] = [TextPart(text)] if text else []
    content.extend(calls)
    return Round(content, "tool-calls", usage or Usage())


class ScriptedAdapter:
    """A provider adapter that answers from a script instead of a model (stateful for one call).

    :param script: the rounds to answer, in order (each a :data:`ScriptItem`), or a function of the
        conversation and the request returning one.
    :param chunk_size: how many characters each streamed text delta holds (whole parts when None).

    :attr:`messages` is the conversation as the adapter saw it (begin, turns, results);
    :attr:`requests` every request it received.
    """

    def __init__(
        self,
        script: Sequence[ScriptItem] | Responder,
        *,
        provider_id: str = "scripted",
        model_id: str = "scripted-model",
        chunk_size: int | None = None,
    ) -> None:
        self.provider_id = provider_id
        self.model_id = model_id
        self.chunk_size = chunk_size
        self._responder: Responder | None = None
        self._script: list[ScriptItem] = []
        if callable(script):
            self._responder = script
        else:
            self._script = list(script)
        self._position = 0
        self._ids = itertools.count(1)
        self.messages: list[Message] = []
        self.requests: list[RoundRequest] = []
        self.results: dict[str, ToolResultPart] = {}

    # -- the adapter protocol ---------------------------------------------------------------------------

    def begin(self, messages: Sequence[Message]) -> None:
        """Start the conversation."""
        self.messages = list(messages)

    async def run_round(self, request: RoundRequest) -> Round:
        """The next scripted round."""
        self.requests.append(request)
        item: Any
        if self._responder is not None:
            item = self._responder(self.messages, request)
            if inspect.isawaitable(item):
                item = await item
        else:
            if self._position >= len(self._script):
                raise UsageError(
                    f"ScriptedAdapter has no round left for step {request.step_number} "
                    f"(its script has {len(self._script)})"
                )
            item = self._script[self._position]
            self._position += 1
        return self._as_round(item)

    async def stream_round(self, request: RoundRequest) -> AsyncIterator[RoundDelta | Round]:
        """The next scripted round, as deltas and then the round."""
        round_ = await self.run_round(request)
        for part in round_.content:
            if isinstance(part, TextPart | ReasoningPart):
                delta_type = TextDelta if isinstance(part, TextPart) else ReasoningDelta
                size = self.chunk_size or max(len(part.text), 1)
                for start in range(0, max(len(part.text), 1), size):
                    yield delta_type(part.text[start : start + size])
            elif isinstance(part, ToolCallPart):
                yield ToolInputStartDelta(part.tool_call_id, part.tool_name, part.provider_executed)
                raw = part.input if isinstance(part.input, str) else json.dumps(part.input)
                yield ToolInputDelta(part.tool_call_id, raw)
                yield ToolInputEndDelta(part.tool_call_id)
        yield round_

    def record_model_turn(self, round: Round) -> None:
        """Remember the model's turn."""
        self.messages.append(AssistantMessage(round.content))

    def record_tool_result(self, call_id: str, result: ToolResultPart) -> None:
        """Remember a result; the results of one round share one tool message."""
        self.results[call_id] = result
        last = self.messages[-1] if self.messages else None
        if isinstance(last, ToolMessage):
            last.content.append(result)
        else:
            self.messages.append(ToolMessage([result]))

    # -- helpers ----------------------------------------------------------------------------------------

    def _as_round(self, item: Any) -> Round:
        if isinstance(item, Round):
            round_ = item
        elif isinstance(item, str):
            round_ = text_round(item)
        elif isinstance(item, ToolCallPart):
            round_ = tool_calls_round(item)
        else:
            round_ = tool_calls_round(*item)
        if any(isinstance(part, ToolCallPart) and not part.tool_call_id for part in round_.content):
            round_ = round_.but(content=[self._with_id(part) for part in round_.content])
        if not round_.provider or not round_.model:
            round_ = round_.but(provider=round_.provider or self.provider_id, model=round_.model or self.model_id)
        return round_

    def _with_id(self, part: Any) -> Any:
        if not isinstance(part, ToolCallPart) or part.tool_call_id:
            return part
        return ToolCallPart(
            f"call_{next(self._ids)}",
            part.tool_name,
            part.input,
            provider_executed=part.provider_executed,
            dynamic=part.dynamic,
            provider_metadata=part.provider_metadata,
        )


class SchemaTestModel(ScriptedAdapter):
    """A test model that calls every offered function tool once, with arguments made from its schema.

    In its first round it calls each offered tool (provider-defined and custom tools excluded) with
    :func:`arguments_from_schema`; in the next it answers with a JSON object of each tool's output.
    """

    def __init__(self, *, provider_id: str = "schema-test", model_id: str = "schema-test-model") -> None:
        super().__init__(self._respond, provider_id=provider_id, model_id=model_id)

    def _respond(self, messages: Sequence[Message], request: RoundRequest) -> ScriptItem:
        called = [m for m in messages if isinstance(m, AssistantMessage) and not isinstance(m.content, str)]
        if request.step_number == 0 and not called and request.tools:
            calls = [
                tool_call(definition.function.name, arguments_from_schema(definition.function.parameters))
                for definition in request.tools
                if definition.kind in (ToolKind.FUNCTION, ToolKind.DYNAMIC)
            ]
            if calls:
                return calls
        outputs = {result.tool_name: result.output for result in self.results.values()}
        return json.dumps(outputs, ensure_ascii=False, default=str)


def arguments_from_schema(schema: Mapping[str, Any], *, root: Mapping[str, Any] | None = None) -> Any:
    """A value that matches ``schema``: every declared property, the smallest values constraints allow.

    Handles ``$ref`` to ``#/$defs`` and ``#/definitions``, const, enum, default, anyOf/oneOf (the
    first non-null branch), allOf, type lists, strings (length, common formats), numbers (bounds,
    multipleOf), booleans, arrays (minItems) and objects.
    """
    root = schema if root is None else root
    if "$ref" in schema:
        return arguments_from_schema(_resolve(schema["$ref"], root), root=root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    if "default" in schema:
        return schema["default"]
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            branches = [b for b in schema[combinator] if b.get("type") != "null"] or schema[combinator]
            return arguments_from_schema(branches[0], root=root)
    if "allOf" in schema:
        merged: dict[str, Any] = {}
        for branch in schema["allOf"]:
            value = arguments_from_schema(branch, root=root)
            if isinstance(value, dict):
                merged.update(value)
            else:
                return value
        return merged
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "string"
    if kind == "object":
        properties = schema.get("properties") or {}
        return {name: arguments_from_schema(sub, root=root) for name, sub in properties.items()}
    if kind == "array":
        items = schema.get("items") or {}
        count = max(int(schema.get("minItems", 1)), 1)
        if "maxItems" in schema:
            count = min(count, int(schema["maxItems"]))
        return [arguments_from_schema(items, root=root) for _ in range(count)]
    if kind == "string":
        return _string_for(schema)
    if kind in ("integer", "number"):
        return _number_for(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    return None


def _resolve(reference: str, root: Mapping[str, Any]) -> Mapping[str, Any]:
    if not reference.startswith("#/"):
        raise UsageError(f"arguments_from_schema follows only local references, not {reference!r}")
    node: Any = root
    for key in reference[2:].split("/"):
        node = node[key.replace("~1", "/").replace("~0", "~")]
    return node  # type: ignore[no-any-return]


_FORMAT_EXAMPLES = {
    "date": "2024-01-01",
    "date-time": "2024-01-01T00:00:00Z",
    "time": "00:00:00Z",
    "email": "someone@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "192.0.2.1",
    "hostname": "example.com",
}


def _string_for(schema: Mapping[str, Any]) -> str:
    example = _FORMAT_EXAMPLES.get(str(schema.get("format", "")))
    if example is not None:
        return example
    minimum = int(schema.get("minLength", 1))
    maximum = int(schema.get("maxLength", max(minimum, 4)))
    return "test"[: max(min(maximum, 4), 0)].ljust(minimum, "x")


def _number_for(schema: Mapping[str, Any], *, integer: bool) -> int | float:
    value: float = 1
    if "minimum" in schema:
        value = max(value, schema["minimum"]) if "maximum" not in schema else schema["minimum"]
    if "exclusiveMinimum" in schema:
        value = schema["exclusiveMinimum"] + 1
    if "maximum" in schema and value > schema["maximum"]:
        value = schema["maximum"]
    if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
        value = schema["exclusiveMaximum"] - 1
    step = schema.get("multipleOf")
    if step:
        value = (int(value // step) + (1 if value % step else 0)) * step
    if integer:
        return int(value) if float(value).is_integer() else int(value) + 1
    return value




# --- a host for tests --------------------------------------------------------------------------------

TEST_API = "toolplug-test"
"""The API name of the provider :func:`offline_host` configures; its factory hands out the test model."""


class _TestModelFactory:
    """A provider adapter factory that always returns the one test model it was given."""

    api = TEST_API

    def __init__(self, model: Any) -> None:
        self.model = model

    def create(self, profile: Any, **options: Any) -> Any:
        return self.model


class _TestPlugin:
    """The tools and the test model of a :func:`offline_host`, as one plugin."""

    def __init__(self, tools: Sequence[Any], model: Any) -> None:
        self.tools = list(tools)
        self.factory = _TestModelFactory(model)

    @hookimpl
    def register_tools(self) -> list[Any]:
        return self.tools

    @hookimpl
    def register_provider_adapters(self) -> list[Any]:
        return [self.factory]


def offline_host(
    *tools: Any,
    model: Any = None,
    plugins: Sequence[Any] = (),
    config: Mapping[str, Any] | None = None,
    confidence: str = "unknown",
    settings_dir: str | None = None,
) -> Any:
    """A :class:`~toolplug.host.Host` whose only provider is a test model: no network, no API key, no plugin.

    :param tools: tool implementations (``function_tool``, ``@tool``...) registered as plugin ``tests``.
    :param model: the provider adapter every chat turn uses (default: a :class:`SchemaTestModel`).
    :param plugins: further plugin objects (or ``(name, object)`` pairs); installed plugins are not loaded.
    :param config: more host config (a parsed mapping); its ``[providers]`` come after the test one.
    :param confidence: the test provider's confidence level.
    :param settings_dir: where settings are kept (default: a fresh temporary folder, removed with the host).
    """
    import shutil
    import tempfile
    import weakref

    from toolplug.config import parse_config
    from toolplug.host import Host

    plugin = _TestPlugin(tools, model if model is not None else SchemaTestModel())
    data = dict(config or {})
    model_id = getattr(plugin.factory.model, "model_id", "test-model")
    test_provider = {"api": TEST_API, "model": model_id, "confidence": confidence, "base_url": "toolplug-test:"}
    data["providers"] = {"test": test_provider, **dict(data.get("providers") or {})}
    folder = settings_dir or tempfile.mkdtemp(prefix="toolplug-test-")
    host = Host(
        parse_config(data, source="<test host>"), plugins=[("tests", plugin), *plugins], load_entry_points=False,
        settings_dir=folder,
    )
    if settings_dir is None:
        weakref.finalize(host, shutil.rmtree, folder, ignore_errors=True)
    return host


def block_model_requests() -> Any:
    """A context manager in which every real provider request fails at once (test models still answer)."""
    import contextlib

    import toolplug.providers

    @contextlib.contextmanager
    def blocked() -> Any:
        previous = toolplug.providers.ALLOW_MODEL_REQUESTS
        toolplug.providers.ALLOW_MODEL_REQUESTS = False
        try:
            yield
        finally:
            toolplug.providers.ALLOW_MODEL_REQUESTS = previous

    return blocked()


__all__ = [
    "TEST_API",
    "Responder",
    "SchemaTestModel",
    "ScriptItem",
    "ScriptedAdapter",
    "arguments_from_schema",
    "block_model_requests",
    "offline_host",
    "text_round",
    "tool_call",
    "tool_calls_round",
]
