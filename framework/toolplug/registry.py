"""The central registry: definitions from every source, joined to implementations and validated once.

Every definition is checked the same way whatever its source; a rejected one becomes a
:class:`Diagnostic` naming the tool, the plugin and the field, and never crashes the host.
"""

from __future__ import annotations

import dataclasses
import re
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from pydantic import ValidationError

from toolplug.definitions import SettingKind, ToolDefinition, ToolKind
from toolplug.errors import DefinitionError, PluginLoadError, UnknownToolError
from toolplug.schema import ArgumentValidator, SchemaProblem, check_schema
from toolplug.tools import ToolImplementation

if TYPE_CHECKING:
    from toolplug.strict import StrictConversion

SOURCES_HOOK = "register_definition_sources"
TOOL_ID = re.compile(r"^[a-z][a-z0-9_]*$")
MAX_TOOL_ID_LENGTH = 64  # the longest function name any of the three provider APIs accepts


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem with one tool definition: which tool, which plugin, which field, what is wrong."""

    tool_id: str
    plugin: str
    field: str
    message: str

    def as_dict(self) -> dict[str, str]:
        """A JSON-ready copy."""
        return {"tool_id": self.tool_id, "plugin": self.plugin, "field": self.field, "message": self.message}

    def __str__(self) -> str:
        return f"{self.tool_id} ({self.plugin}) {self.field}: {self.message}"


@dataclass(slots=True)
class RegisteredTool:
    """A validated definition with its implementation, argument validator and origin."""

    definition: ToolDefinition
    implementation: ToolImplementation
    plugin: str = "app"
    """The plugin (entry-point name) the tool came from; ``app`` for tools the host registered itself."""
    origin: Origin | None = None
    """Where the tool came from (its distribution is read from there on demand)."""
    source: str = "code"
    """The definition source's name."""
    extra: dict[str, Any] = field(default_factory=dict)
    _validator: ArgumentValidator | None = None

    @property
    def validator(self) -> ArgumentValidator:
        """The compiled argument validator; compiled on first use, then cached.

        The registry already checked the schema against the meta-schema, so start-up does not pay
        for compiling validators of tools that are never called.
        """
        if self._validator is None:
            self._validator = ArgumentValidator(self.definition.function.parameters)
        return self._validator

    @property
    def strict_conversion(self) -> StrictConversion:
        """The OpenAI strict form of the parameters, its changes, or why there is none (cached)."""
        from toolplug.strict import strict_conversion

        return strict_conversion(self.definition.function.parameters)

    @property
    def distribution(self) -> str | None:
        """The distribution the tool's plugin was installed from, or None."""
        return None if self.origin is None else self.origin.distribution

    @property
    def id(self) -> str:
        """The tool id."""
        return self.definition.id

    @property
    def name(self) -> str:
        """The function name the model calls."""
        return self.definition.function.name

    @classmethod
    def from_implementation(
        cls, implementation: ToolImplementation, *, plugin: str = "app", option_sources: Iterable[str] | None = None
    ) -> RegisteredTool:
        """Validate a code tool on its own (for ``generate_text`` and tests); raises DefinitionError.

        Without a host there is no list of option sources: a setting's source is then checked only when
        ``option_sources`` is given.
        """
        definition = implementation.definition()
        if definition is None:
            raise DefinitionError(implementation.implementation_key or "?", "definition", "the tool has no definition")
        registry = ToolRegistry(option_sources=option_sources)
        problems = registry.check(definition, implementation, plugin=plugin)
        if problems:
            first = problems[0]
            raise DefinitionError(first.tool_id, first.field, first.message, plugin=plugin)
        return cls(definition, implementation, plugin=plugin)


@runtime_checkable
class DefinitionSource(Protocol):
    """Where definitions come from. The code source asks implementations; others bring data.

    ``load_definitions`` returns definitions; each is joined to an implementation by its
    ``implementation_key``. ``implementations`` returns implementations the source brings itself
    (for example one per MCP server tool); they take part in the join but never define tools on
    their own. A source that fails raises; the registry turns that into a diagnostic.

    A source may also have a ``diagnostics`` attribute: after ``load_definitions`` the registry reads
    it for tools the source left out itself (say, a definition that changed since an admin pinned it).
    A source that holds connections may have a ``close()`` method; :meth:`toolplug.host.Host.close`
    calls it. A source whose tools can change while the host runs (an MCP server announcing a new
    tool list) may have ``watch(listener)``: the host passes a callable, the source calls it with
    itself once its new definitions are ready, and the host reads the source again and replaces its
    tools in the registry (:meth:`ToolRegistry.replace_source`).
    """

    name: str

    def load_definitions(self) -> Iterable[ToolDefinition]:
        """The definitions this source provides."""
        ...

    def implementations(self) -> Iterable[ToolImplementation]:
        """Implementations this source brings for its own definitions (may be empty)."""
        ...


class Origin:
    """Which plugin (and distribution) contributed something.

    ``distribution`` may be given as a callable: reading an installed distribution's metadata costs a
    file parse, and start-up never needs it, so the registry asks only when someone does.
    """

    __slots__ = ("_distribution", "plugin")

    def __init__(self, plugin: str, distribution: str | Callable[[], str | None] | None = None) -> None:
        self.plugin = plugin
        self._distribution = distribution

    @property
    def distribution(self) -> str | None:
        """The distribution's name, or None."""
        if callable(self._distribution):
            self._distribution = self._distribution()
        return self._distribution

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Origin) and (self.plugin, self.distribution) == (other.plugin, other.distribution)

    def __hash__(self) -> int:
        return hash(self.plugin)

    def __repr__(self) -> str:
        return f"Origin({self.plugin!r})"

    @property
    def owner(self) -> str:
        """The installed plugin behind this origin (``mcp`` for the sub-plugin ``mcp.github``)."""
        return self.plugin.partition(".")[0]

    def describe(self) -> str:
        """``plugin 'name' (distribution)`` for messages that name who contributed what."""
        distribution = self.distribution
        return f"plugin {self.plugin!r}" + (f" ({distribution})" if distribution else "")


@dataclass(slots=True)
class SourceContents:
    """What one definition source gave, read once and checked for the protocol's types."""

    name: str
    definitions: list[ToolDefinition | dict[str, Any]] = field(default_factory=list)
    implementations: list[ToolImplementation] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    failure: str | None = None
    """Why loading failed (the source raised): a diagnostic, not a fault of the plugin."""


class _SourceFailed(Exception):
    """The source raised while loading (a server down, a file unreadable)."""


def read_source(source: Any, plugin: str) -> SourceContents:
    """Read everything ``source`` offers, for ``plugin``.

    A source that raises while loading yields contents with ``failure`` set. A source that breaks the
    protocol (a name that is no string, something not iterable, an item of the wrong type, an attribute
    that raises) raises :class:`PluginLoadError`: that is its plugin's fault.
    """
    name = _attribute(source, "name", plugin)
    if not isinstance(name, str) or not name.strip():
        raise _misbehaved(plugin, f"a definition source's name must be a non-empty string, not {name!r}")
    try:
        implementations = _collect(source, "implementations", plugin)
        definitions = _collect(source, "load_definitions", plugin)
    except _SourceFailed as exc:
        return SourceContents(name, failure=f"definition source failed: {exc.__cause__!r}")
    contents = SourceContents(name)
    for implementation in implementations:
        if not isinstance(implementation, ToolImplementation):
            raise _misbehaved(plugin, f"source {name!r} implementations() gave {type(implementation).__name__}")
        key = _attribute(implementation, "implementation_key", plugin)
        if not isinstance(key, str):
            raise _misbehaved(plugin, f"source {name!r} gave an implementation whose key is {type(key).__name__}")
        contents.implementations.append(implementation)
    contents.definitions = [_plain_definition(item, name, plugin) for item in definitions]
    contents.diagnostics = _source_diagnostics(source, name, plugin)
    return contents


def _attribute(owner: Any, attribute: str, plugin: str) -> Any:
    try:
        return getattr(owner, attribute, None)
    except Exception as exc:
        raise _misbehaved(plugin, f"reading {attribute} of {type(owner).__name__} raised {exc!r}") from exc


def _collect(source: Any, method: str, plugin: str) -> list[Any]:
    function = _attribute(source, method, plugin)
    if not callable(function):
        raise _misbehaved(plugin, f"the definition source's {method} is not callable")
    try:
        returned = function()
    except Exception as exc:
        raise _SourceFailed() from exc
    try:
        iterator = iter(returned)
    except Exception as exc:
        raise _misbehaved(plugin, f"{method}() returned {type(returned).__name__}, which is not iterable") from exc
    try:
        return list(iterator)
    except Exception as exc:  # a generator that fails midway: nothing of it is kept
        raise _SourceFailed() from exc


def _plain_definition(item: Any, source: str, plugin: str) -> ToolDefinition | dict[str, Any]:
    if type(item) is ToolDefinition:
        return item
    try:
        if isinstance(item, ToolDefinition):  # a subclass may override what the registry reads
            return ToolDefinition.model_validate(item.model_dump())
        if isinstance(item, Mapping):
            return dict(item)
    except Exception as exc:
        raise _misbehaved(plugin, f"source {source!r} gave a definition that raised {exc!r}") from exc
    raise _misbehaved(plugin, f"source {source!r} gave {type(item).__name__} instead of a ToolDefinition or a mapping")


def _source_diagnostics(source: Any, name: str, plugin: str) -> list[Diagnostic]:
    raw = _attribute(source, "diagnostics", plugin)
    if raw is None:
        return []
    try:
        items = list(raw)
    except Exception as exc:
        raise _misbehaved(plugin, f"source {name!r} diagnostics is {type(raw).__name__}, not a list") from exc
    for item in items:
        if not isinstance(item, Diagnostic):
            raise _misbehaved(plugin, f"source {name!r} diagnostics holds {type(item).__name__}, not a Diagnostic")
    return items


def _misbehaved(plugin: str, message: str) -> PluginLoadError:
    return PluginLoadError(plugin, message, hook=SOURCES_HOOK)


def same_owner(implementation: Origin, definition: Origin) -> bool:
    """Whether a definition from ``definition`` may run code from ``implementation``: one installed plugin."""
    if implementation is definition or implementation.plugin == definition.plugin:
        return True
    return implementation.owner == definition.owner


class CodeDefinitionSource:
    """Asks every registered implementation for its definition."""

    name = "code"

    def __init__(self, implementations: Sequence[ToolImplementation]) -> None:
        self._implementations = list(implementations)

    def load_definitions(self) -> Iterable[ToolDefinition]:
        for implementation in self._implementations:
            definition = implementation.definition()
            if definition is not None:
                yield definition

    def implementations(self) -> Iterable[ToolImplementation]:
        return iter(self._implementations)


class ToolRegistry:
    """Holds every valid tool; :attr:`diagnostics` lists every rejected definition.

    :param components: the host's components; a visibility list naming another one is invalid.
    :param option_sources: names of the registered option sources.
    """

    def __init__(self, components: Sequence[str] = (), option_sources: Iterable[str] | None = ()) -> None:
        self.components = tuple(components)
        self.option_sources = None if option_sources is None else frozenset(option_sources)
        """The registered option sources; None skips the check (a registry without a host)."""
        self._tools: dict[str, RegisteredTool] = {}
        self._by_name: dict[str, RegisteredTool] = {}
        self.diagnostics: list[Diagnostic] = []
        self.rejected: dict[str, str] = {}
        """Tool ids that were rejected, with the plugin they came from."""
        self._source_diagnostics: dict[str, list[Diagnostic]] = {}
        self._replacing = threading.Lock()

    # -- reading ---------------------------------------------------------------------------------

    def __contains__(self, tool_id: object) -> bool:
        return tool_id in self._tools

    def __iter__(self) -> Any:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, tool_id: str) -> RegisteredTool:
        """The registered tool with this id; raises UnknownToolError."""
        try:
            return self._tools[tool_id]
        except KeyError:
            raise UnknownToolError(tool_id, list(self._tools)) from None

    def by_function_name(self, name: str) -> RegisteredTool | None:
        """The tool a model calls by ``name``, or None."""
        return self._by_name.get(name)

    def ids(self) -> list[str]:
        """Every valid tool id, sorted."""
        return sorted(self._tools)

    # -- building ---------------------------------------------------------------------------------

    def add_source(
        self,
        source: DefinitionSource,
        origin: Origin,
        implementations: Mapping[str, tuple[ToolImplementation, Origin]],
    ) -> None:
        """Load, join and validate every definition of ``source``.

        ``implementations`` maps implementation keys to the implementations of ``origin``'s plugin;
        the source's own implementations are added to it for this source only. Raises
        PluginLoadError when the source breaks the protocol (see :func:`read_source`).
        """
        self.add_contents(read_source(source, origin.plugin), origin, implementations)

    def replace_source(
        self,
        source: DefinitionSource,
        origin: Origin,
        implementations: Mapping[str, tuple[ToolImplementation, Origin]],
        elsewhere: Mapping[str, tuple[ToolImplementation, Origin]] | None = None,
    ) -> None:
        """Read ``source`` again: its tools and diagnostics replace the ones it brought before.

        Safe while other threads read the registry: the new state is built aside and swapped in.
        Raises PluginLoadError, leaving the registry as it was, when the source breaks the protocol.
        """
        contents = read_source(source, origin.plugin)
        with self._replacing:
            old = {id(diagnostic) for diagnostic in self._source_diagnostics.get(contents.name, ())}
            staged = ToolRegistry(self.components, self.option_sources)
            staged._tools = {key: tool for key, tool in self._tools.items() if tool.source != contents.name}
            staged._by_name = {tool.definition.function.name: tool for tool in staged._tools.values()}
            staged.diagnostics = [d for d in self.diagnostics if id(d) not in old]
            staged._source_diagnostics = dict(self._source_diagnostics)
            staged.add_contents(contents, origin, implementations, elsewhere=elsewhere)
            for diagnostic in staged.diagnostics:
                staged.rejected.setdefault(diagnostic.tool_id, diagnostic.plugin)
            self._tools, self._by_name = staged._tools, staged._by_name
            self.diagnostics, self.rejected = staged.diagnostics, staged.rejected
            self._source_diagnostics = staged._source_diagnostics

    def add_contents(
        self,
        contents: SourceContents,
        origin: Origin,
        implementations: Mapping[str, tuple[ToolImplementation, Origin]],
        *,
        elsewhere: Mapping[str, tuple[ToolImplementation, Origin]] | None = None,
    ) -> None:
        """Join and validate what :func:`read_source` read from one source of ``origin``.

        ``elsewhere``: other plugins' implementations, consulted only to explain a key that is not
        ``origin``'s own (a definition never runs them).
        """
        first = len(self.diagnostics)
        self._add_contents(contents, origin, implementations, elsewhere)
        self._source_diagnostics[contents.name] = self.diagnostics[first:]

    def _add_contents(
        self,
        contents: SourceContents,
        origin: Origin,
        implementations: Mapping[str, tuple[ToolImplementation, Origin]],
        elsewhere: Mapping[str, tuple[ToolImplementation, Origin]] | None,
    ) -> None:
        if contents.failure is not None:
            self._diagnose(f"<{contents.name}>", origin.plugin, "source", contents.failure)
            return
        pool = dict(implementations)
        for implementation in contents.implementations:
            pool.setdefault(implementation.implementation_key, (implementation, origin))
        for diagnostic in contents.diagnostics:
            if diagnostic.plugin != origin.plugin and not diagnostic.plugin.startswith(f"{origin.plugin}."):
                diagnostic = dataclasses.replace(diagnostic, plugin=origin.plugin)
            self.diagnostics.append(diagnostic)
            self.rejected.setdefault(diagnostic.tool_id, diagnostic.plugin)
        for definition in contents.definitions:
            self.add(definition, pool, origin, source_name=contents.name, elsewhere=elsewhere)

    def add(
        self,
        definition: Any,
        implementations: Mapping[str, tuple[ToolImplementation, Origin]],
        origin: Origin,
        *,
        source_name: str = "code",
        elsewhere: Mapping[str, tuple[ToolImplementation, Origin]] | None = None,
    ) -> RegisteredTool | None:
        """Validate one definition and register it; on failure record diagnostics and return None.

        ``implementations`` should hold ``origin``'s own plugin's implementations; one of another plugin
        is never joined. ``elsewhere`` (other plugins' implementations) only explains a missing key.
        """
        if not isinstance(definition, ToolDefinition):
            if isinstance(definition, Mapping):
                try:
                    definition = ToolDefinition.model_validate(definition)
                except ValidationError as exc:
                    for error in exc.errors():
                        location = ".".join(str(part) for part in error["loc"])
                        tool_id = str(definition.get("id", "?"))
                        self._diagnose(tool_id, origin.plugin, location or "definition", error["msg"])
                    return None
            else:
                self._diagnose("?", origin.plugin, "definition", f"not a ToolDefinition: {type(definition).__name__}")
                return None
        joined = implementations.get(definition.implementation_key)
        if joined is None and elsewhere is not None:
            joined = elsewhere.get(definition.implementation_key)
        foreign = joined is not None and not same_owner(joined[1], origin)
        implementation = joined[0] if joined and not foreign else None
        problems = self._check(definition, implementation, origin.plugin)
        if foreign and joined is not None:
            problems = [p for p in problems if p.field != "implementation_key" or "no implementation" not in p.message]
            problems.append(
                Diagnostic(
                    definition.id,
                    origin.plugin,
                    "implementation_key",
                    f"{definition.implementation_key!r} is implemented by {joined[1].describe()}; a definition of "
                    f"{origin.describe()} runs only its own plugin's code",
                )
            )
        if definition.id in self._tools or definition.function.name in self._by_name:
            problems += self._conflicts(definition, origin)
        if problems or implementation is None:
            self.diagnostics.extend(problems)
            self.rejected.setdefault(definition.id, origin.plugin)
            return None
        registered = RegisteredTool(
            definition, implementation, plugin=origin.plugin, origin=origin, source=source_name
        )
        self._tools[definition.id] = registered
        self._by_name[definition.function.name] = registered
        return registered

    def _conflicts(self, definition: ToolDefinition, origin: Origin) -> list[Diagnostic]:
        """The id and function name belong to whoever registered them first (the plugins' order)."""
        found = []
        same_name = self._by_name.get(definition.function.name)
        if same_name is not None and same_name.id != definition.id:
            found.append(
                Diagnostic(
                    definition.id,
                    origin.plugin,
                    "function.name",
                    f"duplicate function name {definition.function.name!r}: tool {same_name.id!r} of "
                    f"{_describe(same_name)} already uses it; this definition of {origin.describe()} is rejected",
                )
            )
        existing = self._tools.get(definition.id)
        if existing is not None:
            found.append(
                Diagnostic(
                    definition.id,
                    origin.plugin,
                    "id",
                    f"duplicate tool id {definition.id!r}: {_describe(existing)} owns it; this definition of "
                    f"{origin.describe()} is rejected",
                )
            )
        return found

    def check(
        self, definition: ToolDefinition, implementation: ToolImplementation | None, *, plugin: str = "app"
    ) -> list[Diagnostic]:
        """Every problem the registry finds in ``definition`` (without the uniqueness check)."""
        return self._check(definition, implementation, plugin)

    def _check(
        self, definition: ToolDefinition, implementation: ToolImplementation | None, plugin: str
    ) -> list[Diagnostic]:
        problems: list[Diagnostic] = []

        def problem(field_name: str, message: str) -> None:
            problems.append(Diagnostic(definition.id, plugin, field_name, message))

        if not TOOL_ID.match(definition.id):
            problem("id", "must be lower-case letters, digits and underscores, starting with a letter")
        elif len(definition.id) > MAX_TOOL_ID_LENGTH:
            problem("id", f"must be at most {MAX_TOOL_ID_LENGTH} characters")
        if definition.compatibility_reason is None:
            if definition.implementation_key != definition.id:
                problem("implementation_key", f"must equal the id {definition.id!r} unless compatibility_reason is set")
            if definition.function.name != definition.id:
                problem("function.name", f"must equal the id {definition.id!r} unless compatibility_reason is set")
        elif not re.match(r"^[A-Za-z0-9_-]{1,64}$", definition.function.name):
            problem("function.name", "must be 1-64 letters, digits, underscores or hyphens")
        if implementation is None:
            problem("implementation_key", f"no implementation registered for key {definition.implementation_key!r}")
        if not definition.function.description_for_llm.strip() and definition.kind is ToolKind.FUNCTION:
            problem("function.description_for_llm", "must not be empty: the model chooses tools by it")
        # Schemas are untrusted data: checked (shape, caps, refs, dialect, meta-schema) before anything
        # else reads them. A strict tool whose schema has no strict form is sent without strict mode;
        # `toolplug check` reports it, so it is not a diagnostic.
        parameters = definition.function.parameters
        try:
            check_schema(parameters)
        except SchemaProblem as exc:
            problem("function.parameters", str(exc))
        else:
            if parameters.get("type") != "object":
                problem("function.parameters", "the root must be a JSON Schema of type 'object'")
        if definition.kind is ToolKind.PROVIDER_DEFINED and definition.provider_tool is None:
            problem("provider_tool", "a provider-defined tool needs provider_tool (id and args)")
        if self.components:
            for list_name in ("allowed_components", "denied_components"):
                for component in getattr(definition.visible_in, list_name):
                    if component not in self.components:
                        problem(
                            f"visible_in.{list_name}",
                            f"unknown component {component!r}; the host has: {', '.join(self.components)}",
                        )
        seen: set[str] = set()
        for setting in definition.settings_schema.fields:
            where = f"settings_schema.{setting.name}"
            if setting.name in seen:
                problem(where, "setting declared twice")
            seen.add(setting.name)
            if not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", setting.name):
                problem(where, "setting names are letters, digits and underscores")
            if setting.option_source and setting.enum is not None:
                problem(where, "a setting takes its choices from an option source or an enum list, not both")
            if (
                setting.option_source
                and self.option_sources is not None
                and setting.option_source not in self.option_sources
            ):
                known = ", ".join(sorted(self.option_sources)) or "none"
                problem(where, f"unknown option source {setting.option_source!r} (registered: {known})")
            if setting.kind is SettingKind.CHOICE and not setting.option_source:
                problem(where, "a choice setting names its option source")
            if setting.kind is SettingKind.ENUM and not setting.enum:
                problem(where, "an enum setting lists its values")
            if setting.kind is SettingKind.SECRET and setting.default is not None:
                problem(where, "a secret cannot have a default value")
        return problems

    def _diagnose(self, tool_id: str, plugin: str, field_name: str, message: str) -> None:
        self.diagnostics.append(Diagnostic(tool_id, plugin, field_name, message))
        self.rejected.setdefault(tool_id, plugin)


def _describe(tool: RegisteredTool) -> str:
    return tool.origin.describe() if tool.origin is not None else f"plugin {tool.plugin!r}"


__all__ = [
    "CodeDefinitionSource",
    "DefinitionSource",
    "Diagnostic",
    "Origin",
    "RegisteredTool",
    "SourceContents",
    "ToolRegistry",
    "read_source",
    "same_owner",
]
