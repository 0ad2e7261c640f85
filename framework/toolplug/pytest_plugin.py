"""pytest fixtures for tool authors, registered through the ``pytest11`` entry point.

Installed with toolplug, so any plugin package's tests can ask for:

- ``toolplug_host``: builds an isolated :class:`~toolplug.host.Host` from only the plugins named —
  objects, or names of installed entry points — never every installed plugin; with a temporary
  settings folder, an in-memory keyring, and the built-in config defaults unless a config is given.
- ``check_tool_contract``: the one check to call on each tool (also importable as a function): the
  definition passes the registry, it converts cleanly to the Chat Completions, Responses and
  Anthropic shapes (the report lists what OpenAI strict mode changes), and the tool runs on
  schema-valid arguments generated with hypothesis without an unexpected exception.
- ``toolplug_keyring``: the in-memory keyring of the test.
- ``toolplug_testing``: the ``toolplug.testing`` module (the scripted provider); its names are also
  re-exported from this module on first access.

Nothing here is autouse, and the module imports nothing heavy until a fixture is used, so having
toolplug installed never changes an unrelated test session.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import copy
import importlib
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from toolplug.config import HostConfig
    from toolplug.definitions import ToolDefinition
    from toolplug.execution import CallScope, ToolCallOutcome
    from toolplug.host import Host
    from toolplug.memory_keyring import MemoryKeyring
    from toolplug.registry import RegisteredTool
    from toolplug.settings import OptionSource
    from toolplug.tools import ToolImplementation

_WIRE_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


# --- the isolated host --------------------------------------------------------------------------------


class ToolplugHostBuilder:
    """Builds isolated hosts for one test; call it: ``toolplug_host(plugins=[my_plugin])``."""

    def __init__(self, make_settings_dir: Callable[[], Path]) -> None:
        self._make_settings_dir = make_settings_dir
        self.hosts: list[Host] = []
        """Every host built in this test, in order."""

    def __call__(
        self,
        plugins: Iterable[Any] = (),
        *,
        config: HostConfig | Mapping[str, Any] | str | os.PathLike[str] | None = None,
        strict: bool = True,
        settings_dir: str | os.PathLike[str] | None = None,
    ) -> Host:
        """A host with only ``plugins``.

        :param plugins: plugin objects (modules, classes, instances with hook functions),
            ``(name, object)`` pairs, or names of installed entry points in the group ``toolplug``
            (loaded as the real host loads them, with their distribution and version).
        :param config: a HostConfig, a mapping shaped like the TOML file, or a path to one;
            None for the built-in defaults (``$TOOLPLUG_CONFIG`` is never read).
        :param strict: make any plugin failure raise :class:`~toolplug.errors.PluginLoadError`
            at once (the default here, so a broken plugin fails its test with the reason).
        :param settings_dir: the settings folder; a fresh temporary one when None.
        """
        from toolplug.host import Host

        objects: list[Any] = []
        entry_points = []
        for plugin in plugins:
            if isinstance(plugin, str):
                entry_points.append(_installed_entry_point(plugin))
            else:
                objects.append(plugin)
        host = Host(
            _host_config(config),
            plugins=objects,
            load_entry_points=bool(entry_points),
            entry_points=entry_points,
            strict=strict,
            settings_dir=settings_dir if settings_dir is not None else self._make_settings_dir(),
        )
        self.hosts.append(host)
        return host


def _installed_entry_point(name: str) -> Any:
    from importlib import metadata

    from toolplug.errors import UsageError
    from toolplug.plugins import ENTRY_POINT_GROUP

    found = list(metadata.entry_points(group=ENTRY_POINT_GROUP, name=name))
    if not found:
        installed = sorted({ep.name for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)})
        raise UsageError(
            f"No installed plugin is named {name!r} (entry-point group {ENTRY_POINT_GROUP!r}; installed: "
            f"{', '.join(installed) or 'none'}). Install the package first, e.g. `pip install -e .`."
        )
    return found[0]


def _host_config(config: HostConfig | Mapping[str, Any] | str | os.PathLike[str] | None) -> HostConfig:
    from toolplug.config import HostConfig, load_config, parse_config

    if config is None:
        return HostConfig()
    if isinstance(config, HostConfig):
        return config
    if isinstance(config, Mapping):
        return parse_config(config, source="<toolplug_host config>")
    return load_config(config)


@pytest.fixture
def toolplug_keyring() -> Iterator[MemoryKeyring]:
    """An in-memory keyring installed as the process's keyring for this test, then restored."""
    import keyring

    from toolplug.memory_keyring import MemoryKeyring

    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    try:
        yield memory
    finally:
        keyring.set_keyring(previous)


@pytest.fixture
def toolplug_host(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, toolplug_keyring: MemoryKeyring
) -> ToolplugHostBuilder:
    """Build isolated hosts: ``host = toolplug_host(plugins=[my_plugin])``.

    Installed plugins are never loaded unless named; settings go to a temporary folder
    (``$TOOLPLUG_SETTINGS_DIR`` points there too) and secrets to an in-memory keyring; no
    ``TOOLPLUG_SECRET_*`` variable of the environment is visible.
    """
    monkeypatch.setenv("TOOLPLUG_SETTINGS_DIR", str(tmp_path_factory.mktemp("toolplug-settings")))
    for name in [name for name in os.environ if name.startswith("TOOLPLUG_SECRET_")]:
        monkeypatch.delenv(name)  # the developer's own secrets never reach the tools under test
    return ToolplugHostBuilder(lambda: tmp_path_factory.mktemp("toolplug-host"))


# --- the tool contract ---------------------------------------------------------------------------------


class ToolContractError(AssertionError):
    """A tool broke its contract; the message says which check failed and how to fix it."""


@dataclass(slots=True)
class ContractReport:
    """What :func:`check_tool_contract` checked, for a test to print or assert on."""

    tool_id: str
    wire_shapes: dict[str, dict[str, Any]]
    """``chat_completions``, ``responses`` and ``anthropic``: the request shape of the tool."""
    strict: bool
    """Whether the definition asks for OpenAI strict mode (then the OpenAI shapes carry the strict schema)."""
    strict_changes: list[str]
    """What the strict conversion changes in the schema (applied only when ``strict`` is set)."""
    examples_run: int = 0
    """How many argument sets the tool ran on."""
    statuses: dict[str, int] = field(default_factory=dict)
    """How those calls ended: ``ok`` and ``blocked`` counts (an ``error`` fails the check)."""
    notes: list[str] = field(default_factory=list)


def wire_shape_functions() -> tuple[Callable[[ToolDefinition], dict[str, Any]], ...]:
    """The three shape functions of :mod:`toolplug.providers.wire_tools`."""
    from toolplug.providers.wire_tools import to_anthropic_tool, to_chat_completions_tool, to_responses_tool

    return (to_chat_completions_tool, to_responses_tool, to_anthropic_tool)


def check_tool_contract(
    tool: ToolImplementation | RegisteredTool,
    *,
    settings: Mapping[str, Any] | None = None,
    option_sources: Iterable[OptionSource | str] = (),
    host: Host | None = None,
    components: Sequence[str] | None = None,
    scope: CallScope | None = None,
    max_examples: int = 50,
    examples: Iterable[Mapping[str, Any]] = (),
    execute: bool = True,
) -> ContractReport:
    """Check one tool the way the host will use it; raise :class:`ToolContractError` on the first broken rule.

    1. The definition passes every registry check.
    2. It converts to the three wire shapes; each is JSON, names and schemas fit the APIs, and where
       ``strict`` is set the OpenAI shapes carry a schema in which every property is required.
    3. It runs on ``examples`` and on up to ``max_examples`` argument sets generated from its schema
       with hypothesis; a result with an error output type and a ToolExecutionBlockedError are fine,
       any other exception fails the check (hypothesis shrinks it to a small example first).

    :param settings: the tool's settings for the calls (secrets included); every Required setting
        must be present. With ``host`` and no ``settings``, the host's settings are used.
    :param option_sources: option sources (or their names) the tool's choice settings refer to;
        with ``host``, the host's.
    :param components: the host's components (default: the host's, else ``chat`` and ``assistants``).
    :param scope: who calls; default a HIGH-confidence provider in the ``chat`` component.
    :param execute: False checks the definition and shapes only (for tools that reach the network).
    """
    from toolplug.config import DEFAULT_COMPONENTS
    from toolplug.registry import RegisteredTool, ToolRegistry
    from toolplug.schema import SchemaProblem, compile_validator

    if isinstance(tool, RegisteredTool):
        implementation = tool.implementation
        definition: ToolDefinition | None = tool.definition
    else:
        implementation = tool
        definition = implementation.definition()
    if definition is None:
        raise ToolContractError(f"{implementation!r}.definition() returned None: a code tool returns its definition")

    source_names = {s if isinstance(s, str) else s.name for s in option_sources}
    if host is not None:
        source_names |= set(host.option_sources)
        components = components if components is not None else host.config.host.components
    registry = ToolRegistry(components if components is not None else DEFAULT_COMPONENTS, source_names)
    problems = registry.check(definition, implementation)
    if problems:
        raise ToolContractError(
            f"tool {definition.id!r} fails the registry checks:\n" + "\n".join(f"  - {p}" for p in problems)
        )
    try:
        compile_validator(definition.function.parameters)
    except SchemaProblem as exc:
        raise ToolContractError(f"tool {definition.id!r}: function.parameters: {exc}") from exc
    registered = RegisteredTool(definition=definition, implementation=implementation)

    report = _check_wire_shapes(definition)
    if not execute or not implementation.has_execute:
        report.notes.append("not executed" if implementation.has_execute else "the tool has no execute")
        return report
    run_settings = _settings_for(registered, settings, host)
    _run_examples(registered, report, run_settings, scope, max_examples, list(examples))
    return report


@pytest.fixture(name="check_tool_contract")
def check_tool_contract_fixture(toolplug_keyring: MemoryKeyring) -> Callable[..., ContractReport]:
    """:func:`check_tool_contract`, with the test's in-memory keyring installed."""
    return check_tool_contract


def _check_wire_shapes(definition: ToolDefinition) -> ContractReport:
    from toolplug.definitions import ToolKind
    from toolplug.schema import SchemaProblem, compile_validator
    from toolplug.strict import strict_conversion

    tool_id = definition.id
    parameters = definition.function.parameters
    conversion = strict_conversion(parameters)
    changes = [str(change) for change in conversion.changes]
    report = ContractReport(tool_id, {}, definition.function.strict, changes)
    if not conversion.convertible:
        report.notes.append(
            "the schema has no strict form, so it is sent without strict mode: " + "; ".join(conversion.unconvertible)
        )
    if definition.kind not in (ToolKind.FUNCTION, ToolKind.DYNAMIC):
        report.notes.append(f"wire shapes of {definition.kind.value} tools are the provider adapters' to check")
        return report

    chat, responses, anthropic = (shape(definition) for shape in wire_shape_functions())
    report.wire_shapes = {"chat_completions": chat, "responses": responses, "anthropic": anthropic}
    for api, shape in report.wire_shapes.items():
        try:
            if json.loads(json.dumps(shape)) != shape:
                raise ValueError("it changes when sent as JSON")
        except (TypeError, ValueError) as exc:
            raise ToolContractError(f"tool {tool_id!r}: the {api} shape is not plain JSON: {exc}") from exc
    function = chat.get("function")
    if chat.get("type") != "function" or not isinstance(function, dict):
        raise ToolContractError(f"tool {tool_id!r}: the chat_completions shape must nest the tool under 'function'")
    if responses.get("type") != "function" or "function" in responses:
        raise ToolContractError(f"tool {tool_id!r}: the responses shape must be flat with type 'function'")
    if "input_schema" not in anthropic:
        raise ToolContractError(f"tool {tool_id!r}: the anthropic shape must carry the schema as 'input_schema'")
    if anthropic["input_schema"] != parameters:
        raise ToolContractError(f"tool {tool_id!r}: the anthropic shape must carry the canonical schema unchanged")
    openai_shapes = {"chat_completions": function, "responses": responses}
    for api, body in {**openai_shapes, "anthropic": anthropic}.items():
        if not isinstance(body.get("name"), str) or not _WIRE_NAME.match(body["name"]):
            raise ToolContractError(
                f"tool {tool_id!r}: the {api} name {body.get('name')!r} is not 1-64 letters, digits, '_' or '-'"
            )
        if not isinstance(body.get("description"), str) or not body["description"].strip():
            raise ToolContractError(f"tool {tool_id!r}: the {api} shape has no description")
    for api, body in openai_shapes.items():
        schema = body.get("parameters")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            raise ToolContractError(f"tool {tool_id!r}: the {api} parameters must be a schema with an object root")
        try:
            compile_validator(schema)
        except SchemaProblem as exc:
            raise ToolContractError(f"tool {tool_id!r}: the {api} parameters: {exc}") from exc
        if definition.function.strict and conversion.convertible:
            if body.get("strict") is not True:
                raise ToolContractError(f"tool {tool_id!r}: the {api} shape must say strict: true")
            loose = _not_strict(schema)
            if loose:
                raise ToolContractError(
                    f"tool {tool_id!r}: the {api} schema is not strict at {', '.join(loose)} "
                    "(every property required, additionalProperties false)"
                )
        elif schema != parameters or body.get("strict") is True:
            raise ToolContractError(
                f"tool {tool_id!r}: the {api} shape must carry the schema as written, without strict mode"
            )
    return report


def strict_changes(original: Mapping[str, Any], strict: Mapping[str, Any], path: str = "") -> list[str]:
    """In words, what the OpenAI strict conversion changed between ``original`` and ``strict``."""
    changes: list[str] = []
    where = path or "(root)"
    if isinstance(strict.get("properties"), Mapping):
        required = set(original.get("required", ()))
        properties: Mapping[str, Any] = original.get("properties", {})
        for name, new in strict["properties"].items():
            old = properties.get(name, {})
            child = f"{path}.{name}" if path else name
            if name not in required:
                changes.append(f"{child}: optional made required and nullable ({_nullable_change(old, new)})")
            if isinstance(old, Mapping) and isinstance(new, Mapping):
                changes += strict_changes(old, new, child)
        if original.get("additionalProperties") is not False:
            changes.append(f"{where}: additionalProperties set to false")
    for key in ("items", "additionalProperties", "not"):
        if isinstance(strict.get(key), Mapping) and isinstance(original.get(key), Mapping):
            changes += strict_changes(original[key], strict[key], f"{path}[]" if key == "items" else f"{path}.{key}")
    for key in ("anyOf", "oneOf", "allOf", "prefixItems"):
        old_list, new_list = original.get(key), strict.get(key)
        if isinstance(old_list, list) and isinstance(new_list, list):
            for index, (old, new) in enumerate(zip(old_list, new_list, strict=False)):
                if isinstance(old, Mapping) and isinstance(new, Mapping):
                    changes += strict_changes(old, new, f"{path}.{key}[{index}]")
    for key in ("$defs", "definitions"):
        old_defs, new_defs = original.get(key), strict.get(key)
        if isinstance(old_defs, Mapping) and isinstance(new_defs, Mapping):
            for name, new in new_defs.items():
                if isinstance(old_defs.get(name), Mapping) and isinstance(new, Mapping):
                    changes += strict_changes(old_defs[name], new, f"{key}.{name}")
    return changes


def _nullable_change(old: Any, new: Any) -> str:
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return "null allowed"
    parts = []
    if old.get("type") != new.get("type"):
        parts.append(f"type {json.dumps(old.get('type'))} -> {json.dumps(new.get('type'))}")
    if "enum" in new and old.get("enum") != new["enum"]:
        parts.append("null added to enum")
    if "anyOf" in new and old.get("anyOf") != new["anyOf"]:
        parts.append("null added to anyOf")
    return ", ".join(parts) or "null allowed"


def _not_strict(schema: Any, path: str = "(root)") -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    loose = []
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        if set(schema.get("required", ())) != set(properties) or schema.get("additionalProperties") is not False:
            loose.append(path)
        for name, sub in properties.items():
            loose += _not_strict(sub, name if path == "(root)" else f"{path}.{name}")
    if isinstance(schema.get("items"), Mapping):
        loose += _not_strict(schema["items"], f"{path}[]")
    for key in ("anyOf", "oneOf", "allOf"):
        for index, sub in enumerate(schema.get(key) or ()):
            loose += _not_strict(sub, f"{path}.{key}[{index}]")
    for key in ("$defs", "definitions"):
        for name, sub in (schema.get(key) or {}).items():
            loose += _not_strict(sub, f"{key}.{name}")
    return loose


def _settings_for(
    registered: RegisteredTool, settings: Mapping[str, Any] | None, host: Host | None
) -> dict[str, Any]:
    definition = registered.definition
    if settings is None and host is not None:
        values = dict(host.settings.effective(definition))
    else:
        values = dict(settings or {})
    fields = definition.settings_schema.fields
    unknown = sorted(set(values) - {f.name for f in fields})
    if unknown:
        raise ToolContractError(f"tool {definition.id!r} has no settings named {', '.join(unknown)}")
    missing = [f.name for f in fields if f.required and values.get(f.name) in (None, "")]
    if missing:
        raise ToolContractError(
            f"tool {definition.id!r} needs its Required settings to run: pass settings={{...}} with "
            f"{', '.join(missing)}"
        )
    problems = registered.implementation.validate_configuration(values)
    if problems:
        raise ToolContractError(f"tool {definition.id!r}: validate_configuration rejects the settings: {problems}")
    return values


def _run_examples(
    registered: RegisteredTool,
    report: ContractReport,
    settings: dict[str, Any],
    scope: CallScope | None,
    max_examples: int,
    examples: list[Mapping[str, Any]],
) -> None:
    from toolplug.definitions import ConfidenceLevel, SettingKind
    from toolplug.execution import CallScope, ToolExecutor

    secrets = [
        str(settings[f.name])
        for f in registered.definition.settings_schema.fields
        if f.kind is SettingKind.SECRET and f.name in settings
    ]
    executor = ToolExecutor(lambda _tool: (settings, secrets))
    call_scope = scope or CallScope(
        component="chat", provider_id="contract-check", provider_confidence=ConfidenceLevel.HIGH, model="contract-check"
    )

    def work() -> None:
        with asyncio.Runner() as runner:

            def run_one(arguments: Mapping[str, Any]) -> None:
                _check_one(registered, report, arguments, lambda args: runner.run(
                    executor.execute(registered, args, scope=call_scope, call_id=f"contract_{report.examples_run}")
                ))

            for arguments in examples:
                run_one(arguments)
            if max_examples > 0:
                _run_generated(registered, run_one, max_examples)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        work()
        return
    # Called from inside an async test: run the calls on a loop of their own in a worker thread.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(work).result()


def _check_one(
    registered: RegisteredTool,
    report: ContractReport,
    arguments: Mapping[str, Any],
    run: Callable[[dict[str, Any]], ToolCallOutcome],
) -> None:
    from toolplug.execution import CallStatus

    definition = registered.definition
    call_arguments: dict[str, Any] = copy.deepcopy(dict(arguments))
    if not registered.validator.is_valid(arguments):
        problems = "; ".join(registered.validator.problems(arguments))
        raise ToolContractError(
            f"example arguments {arguments!r} do not match the schema of {definition.id!r}: {problems}"
        )
    if definition.function.strict:
        _check_strict_round_trip(registered, arguments)
    outcome = run(call_arguments)
    report.examples_run += 1
    status = outcome.status.value
    if outcome.status is CallStatus.ERROR:
        error = outcome.error
        raise ToolContractError(
            f"tool {definition.id!r} raised on schema-valid arguments {arguments!r}: "
            f"{type(error).__name__ if error else 'error'}: {outcome.text}\n"
            "Raise ToolExecutionBlockedError to refuse on purpose, or return a ToolExecutionResult with an error "
            "output type for a failure the model should read."
        ) from error
    report.statuses[status] = report.statuses.get(status, 0) + 1


def _check_strict_round_trip(registered: RegisteredTool, arguments: Mapping[str, Any]) -> None:
    """What a strict-mode model sends for ``arguments`` is accepted, and reads back as ``arguments``."""
    from toolplug.schema import ArgumentValidator

    conversion = registered.strict_conversion
    if not conversion.convertible:
        return
    tool_id = registered.definition.id
    with_nulls = conversion.to_strict(dict(arguments))
    strict = ArgumentValidator(conversion.schema())
    narrowed = any(change.kind == "narrowed" for change in conversion.changes)
    if not narrowed and not strict.is_valid(with_nulls):
        raise ToolContractError(
            f"tool {tool_id!r}: the strict schema rejects {with_nulls!r} (valid under the canonical schema "
            f"with absent optionals as null): {'; '.join(strict.problems(with_nulls))}"
        )
    if conversion.exact and conversion.undo(with_nulls) != dict(arguments):
        raise ToolContractError(
            f"tool {tool_id!r}: {with_nulls!r} (the strict form of {dict(arguments)!r}) reads back as "
            f"{conversion.undo(with_nulls)!r}"
        )


def _run_generated(registered: RegisteredTool, run_one: Callable[[Mapping[str, Any]], None], max_examples: int) -> None:
    from datetime import timedelta

    from hypothesis import HealthCheck, given
    from hypothesis import settings as hypothesis_settings

    strategy = arguments_strategy(registered.definition.function.parameters)

    @hypothesis_settings(
        max_examples=max_examples,
        # Generous, for loaded machines: the generator is bounded by the schema, so only a slow tool trips it.
        deadline=timedelta(seconds=10),
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
    )
    @given(strategy)
    def run_generated(arguments: dict[str, Any]) -> None:
        run_one(arguments)

    run_generated()


def with_absent_as_null(schema: Mapping[str, Any], value: Any, root: Mapping[str, Any] | None = None) -> Any:
    """``value`` with every absent optional property set to null, as a strict-mode model would send it.

    Follows the strict conversion of ``schema`` (so ``anyOf`` branches are told apart by validation);
    for a schema without a strict form, a structural guess.
    """
    if root is None:
        from toolplug.strict import strict_conversion

        conversion = strict_conversion(schema)
        if conversion.convertible:
            return conversion.to_strict(value)
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if isinstance(value, dict):
        for key in ("anyOf", "oneOf"):
            for branch in schema.get(key) or ():
                branch = _resolve(branch, root)
                if isinstance(branch.get("properties"), Mapping) and set(value) <= set(branch["properties"]):
                    return with_absent_as_null(branch, value, root)
        properties = schema.get("properties")
        if isinstance(properties, Mapping):
            filled = {
                key: with_absent_as_null(properties[key], item, root) if key in properties else item
                for key, item in value.items()
            }
            for name in properties:
                filled.setdefault(name, None)
            return filled
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [with_absent_as_null(schema["items"], item, root) for item in value]
    return value


def _resolve(schema: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    seen = 0
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < 32:
        schema = _pointer(root, schema["$ref"])
        seen += 1
    return schema if isinstance(schema, Mapping) else {}


def _pointer(root: Mapping[str, Any], ref: str) -> Any:
    if not ref.startswith("#"):
        raise UnsupportedSchemaError(f"only local $ref is supported, not {ref!r}")
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref != "#" else []:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, Mapping) or part not in node:
            raise UnsupportedSchemaError(f"$ref {ref!r} points nowhere")
        node = node[part]
    return node


# --- arguments from a JSON Schema --------------------------------------------------------------------


class UnsupportedSchemaError(ValueError):
    """The schema uses a keyword the argument generator does not handle."""


_UNSUPPORTED = frozenset({
    "not", "if", "then", "else", "dependentSchemas", "dependentRequired", "patternProperties", "contains",
    "propertyNames", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef", "$recursiveRef",
})
_MAX_ITEMS = 5
_MAX_REF_DEPTH = 4
_SAFE_INTEGER = 2**53 - 1


def arguments_strategy(schema: Mapping[str, Any]) -> SearchStrategy[Any]:
    """A hypothesis strategy of values valid under ``schema``.

    Covers what the builders and ``@tool`` write: the JSON types, ``enum``/``const``, string length,
    pattern and common formats, numeric bounds, arrays (items, prefixItems, length, uniqueness),
    objects (required and optional properties, additionalProperties), ``anyOf``/``oneOf``, a single
    ``allOf`` and local ``$ref``. Every value is checked against the compiled schema at the end, so
    keywords it only approximates never produce an invalid value. Raises UnsupportedSchemaError for
    keywords it cannot handle (``not``, ``if``/``then``, ...): pass ``examples=`` to the contract check.
    """
    from toolplug.schema import compile_validator

    validator = compile_validator(schema)
    return _Generator(schema).build(schema, 0).filter(validator.is_valid)


class _Generator:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.nesting = 0
        """How many arrays and objects enclose the schema being built: deeper ones get fewer members."""

    def nested(self, schema: Any, ref_depth: int) -> SearchStrategy[Any]:
        self.nesting += 1
        try:
            return self.build(schema, ref_depth)
        finally:
            self.nesting -= 1

    def build(self, schema: Any, ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        if schema is True or schema == {}:
            return _json_scalars()
        if schema is False:
            return st.nothing()
        if not isinstance(schema, Mapping):
            raise UnsupportedSchemaError(f"a schema must be an object or a boolean, not {schema!r}")
        unsupported = sorted(_UNSUPPORTED & set(schema))
        if unsupported:
            raise UnsupportedSchemaError(f"cannot generate values for the keywords {', '.join(unsupported)}")
        if "$ref" in schema:
            if ref_depth >= _MAX_REF_DEPTH:
                return st.nothing()
            target = _pointer(self.root, schema["$ref"])
            return self.build(target, ref_depth + 1)
        if "const" in schema:
            return st.just(schema["const"])
        if "enum" in schema:
            return st.sampled_from(list(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return st.one_of([self.build({**_without(schema, key), **branch}, ref_depth)
                                  if isinstance(branch, Mapping) else self.build(branch, ref_depth)
                                  for branch in schema[key]])
        if "allOf" in schema:
            parts = schema["allOf"]
            if len(parts) != 1 or not isinstance(parts[0], Mapping):
                raise UnsupportedSchemaError("cannot generate values for allOf with more than one schema")
            return self.build({**_without(schema, "allOf"), **parts[0]}, ref_depth)
        kind = schema.get("type")
        if isinstance(kind, list):
            return st.one_of([self.build({**schema, "type": single}, ref_depth) for single in kind])
        if kind is None:
            if "properties" in schema:
                kind = "object"
            elif "items" in schema or "prefixItems" in schema:
                kind = "array"
            else:
                return _json_scalars()
        builder = getattr(self, f"_{kind}", None)
        if builder is None:
            raise UnsupportedSchemaError(f"unknown type {kind!r}")
        strategy: SearchStrategy[Any] = builder(schema, ref_depth)
        return strategy

    def _null(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.none()

    def _boolean(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        return st.booleans()

    def _string(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        min_size = int(schema.get("minLength", 0))
        max_size = schema.get("maxLength")
        formats: dict[str, SearchStrategy[str]] = {
            "date-time": st.datetimes().map(lambda d: d.isoformat() + "Z"),
            "date": st.dates().map(lambda d: d.isoformat()),
            "time": st.times().map(lambda t: t.isoformat() + "Z"),
            "email": st.emails(),
            "uri": st.from_regex(r"\Ahttps://[a-z]{1,12}\.example/[a-z0-9]{0,12}\Z"),
            "uri-reference": st.from_regex(r"\A/[a-z0-9]{0,12}\Z"),
            "uuid": st.uuids().map(str),
            "ipv4": st.ip_addresses(v=4).map(str),
            "ipv6": st.ip_addresses(v=6).map(str),
            "hostname": st.from_regex(r"\A[a-z]{1,12}(\.[a-z]{1,12}){0,2}\Z"),
            "duration": st.integers(0, 999).map(lambda n: f"P{n}D"),
        }
        if schema.get("format") in formats:
            strategy = formats[schema["format"]]
        elif "pattern" in schema:
            strategy = st.from_regex(schema["pattern"])
        else:
            # Bounded: the schema's maxLength, else a size that keeps examples quick.
            return st.text(min_size=min_size, max_size=max(min_size, 64) if max_size is None else int(max_size))
        return strategy.filter(lambda s: len(s) >= min_size and (max_size is None or len(s) <= max_size))

    def _integer(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        import math

        from hypothesis import strategies as st

        low, high = schema.get("minimum"), schema.get("maximum")
        if "exclusiveMinimum" in schema:
            low = math.floor(schema["exclusiveMinimum"]) + 1
        if "exclusiveMaximum" in schema:
            high = math.ceil(schema["exclusiveMaximum"]) - 1
        # Without bounds, stay within the integers JSON carries exactly (RFC 8259 interoperability).
        low = -_SAFE_INTEGER if low is None else math.ceil(low)
        high = _SAFE_INTEGER if high is None else math.floor(high)
        strategy = st.integers(min_value=low, max_value=high)
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            strategy = strategy.filter(lambda n: n % step == 0)
        return strategy

    def _number(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        low = schema.get("exclusiveMinimum", schema.get("minimum"))
        high = schema.get("exclusiveMaximum", schema.get("maximum"))
        floats = st.floats(
            min_value=low, max_value=high, allow_nan=False, allow_infinity=False,
            exclude_min=low is not None and "exclusiveMinimum" in schema,
            exclude_max=high is not None and "exclusiveMaximum" in schema,
        )
        return st.one_of(floats, self._integer(schema, ref_depth))

    def _array(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        min_size = int(schema.get("minItems", 0))
        # The schema's bounds, and fewer items the deeper the array: nested lists multiply.
        room = max(_MAX_ITEMS - 2 * self.nesting, 1)
        max_size = max(min_size, min(int(schema.get("maxItems", room)), room))
        items = schema.get("items", True)
        if "prefixItems" in schema:
            prefix = [self.nested(sub, ref_depth) for sub in schema["prefixItems"]]
            return st.tuples(*prefix).map(list)
        unique = (lambda value: json.dumps(value, sort_keys=True)) if schema.get("uniqueItems") else None
        return st.lists(self.nested(items, ref_depth), min_size=min_size, max_size=max_size, unique_by=unique)

    def _object(self, schema: Mapping[str, Any], ref_depth: int) -> SearchStrategy[Any]:
        from hypothesis import strategies as st

        properties: Mapping[str, Any] = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fixed = {name: self.nested(sub, ref_depth) for name, sub in properties.items() if name in required}
        optional = {name: self.nested(sub, ref_depth) for name, sub in properties.items() if name not in required}
        for name in required - set(properties):
            fixed[name] = self.nested(schema.get("additionalProperties", True), ref_depth)
        strategy = st.fixed_dictionaries(fixed, optional=optional)
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping) or (extra is True and not properties):
            keys = st.text(min_size=1, max_size=12).filter(lambda k: k not in properties)
            extras = st.dictionaries(keys, self.nested(extra, ref_depth), max_size=max(3 - self.nesting, 0))
            strategy = st.tuples(strategy, extras).map(lambda pair: {**pair[1], **pair[0]})
        return strategy


def _without(schema: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in schema.items() if k != key}


def _json_scalars() -> SearchStrategy[Any]:
    from hypothesis import strategies as st

    return st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20))


# --- the scripted provider (toolplug.testing) --------------------------------------------------------


def _testing_module() -> ModuleType:
    try:
        return importlib.import_module("toolplug.testing")
    except ModuleNotFoundError as exc:
        if exc.name != "toolplug.testing":
            raise
        raise ModuleNotFoundError(
            "toolplug.testing (the scripted provider) is not part of this toolplug version; upgrade toolplug",
            name="toolplug.testing",
        ) from exc


@pytest.fixture
def toolplug_testing() -> ModuleType:
    """The ``toolplug.testing`` module: the scripted provider and test model for running tools without a real model."""
    return _testing_module()


def __getattr__(name: str) -> Any:
    # Re-export toolplug.testing lazily: importing this plugin must stay cheap for every pytest session,
    # and pytest's own look-ups (pytest_plugins, hook names) must not import it.
    if name.startswith(("_", "pytest")):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = _testing_module()
    except ModuleNotFoundError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
    try:
        return getattr(module, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


__all__ = [
    "ContractReport",
    "ToolContractError",
    "ToolplugHostBuilder",
    "UnsupportedSchemaError",
    "arguments_strategy",
    "check_tool_contract",
    "strict_changes",
    "wire_shape_functions",
    "with_absent_as_null",
]
