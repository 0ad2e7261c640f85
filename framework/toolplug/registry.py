"""The central registry: definitions from every source, joined to implementations and validated once.

Every definition is checked the same way whatever its source; a rejected one becomes a
:class:`Diagnostic` naming the tool, the plugin and the field, and never crashes the host.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pydantic import ValidationError

from toolplug.definitions import SettingKind, ToolDefinition, ToolKind
from toolplug.errors import DefinitionError, UnknownToolError
from toolplug.schema import ArgumentValidator, SchemaProblem, check_schema
from toolplug.strict import StrictConversion, strict_conversion
from toolplug.tools import ToolImplementation

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
    calls it.
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

        ``implementations`` maps implementation keys to implementations from every plugin;
        the source's own implementations are added to it for this source only.
        """
        pool = dict(implementations)
        try:
            for implementation in source.implementations():
                pool.setdefault(implementation.implementation_key, (implementation, origin))
            definitions = list(source.load_definitions())
        except Exception as exc:  # a broken source is a diagnostic, never a crash
            self._diagnose(f"<{source.name}>", origin.plugin, "source", f"definition source failed: {exc!r}")
            return
        for diagnostic in getattr(source, "diagnostics", ()):
            if isinstance(diagnostic, Diagnostic):
                self.diagnostics.append(diagnostic)
                self.rejected.setdefault(diagnostic.tool_id, diagnostic.plugin)
        for definition in definitions:
            self.add(definition, pool, origin, source_name=source.name)

    def add(
        self,
        definition: Any,
        implementations: Mapping[str, tuple[ToolImplementation, Origin]],
        origin: Origin,
        *,
        source_name: str = "code",
    ) -> RegisteredTool | None:
        """Validate one definition and register it; on failure record diagnostics and return None."""
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
        implementation = joined[0] if joined else None
        problems = self._check(definition, implementation, origin.plugin)
        same_name = self._by_name.get(definition.function.name)
        if same_name is not None and same_name.id != definition.id:
            problems.append(
                Diagnostic(
                    definition.id,
                    origin.plugin,
                    "function.name",
                    f"duplicate function name {definition.function.name!r}: tool {same_name.id!r} "
                    f"(plugin {same_name.plugin!r}) already uses it",
                )
            )
        existing = self._tools.get(definition.id)
        if existing is not None:
            problems.append(
                Diagnostic(
                    definition.id,
                    origin.plugin,
                    "id",
                    f"duplicate tool id: already registered by plugin {existing.plugin!r}",
                )
            )
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


__all__ = [
    "CodeDefinitionSource",
    "DefinitionSource",
    "Diagnostic",
    "Origin",
    "RegisteredTool",
    "ToolRegistry",
]
