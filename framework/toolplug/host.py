"""``Host``: the one object a host application builds at startup.

It reads the config, loads the plugins (a globally denied one is never imported), collects what each
contributes, builds and validates the registry, and owns the settings service, the selector, the
prompt-injection guard and the executor.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolplug.config import HostConfig, load_config
from toolplug.definitions import ConfidenceLevel, SettingKind, ToolDefinition
from toolplug.errors import ConfigError, InvalidToolInputError, PluginLoadError, ToolNotRunnableError, UsageError
from toolplug.execution import CallScope, ToolCallOutcome, ToolExecutor
from toolplug.plugins import Contribution, PluginManager, PluginRecord
from toolplug.registry import (
    DefinitionSource,
    Diagnostic,
    Origin,
    RegisteredTool,
    SourceContents,
    ToolRegistry,
    read_source,
)
from toolplug.selection import Selection, SelectionRequest, ToolSelector
from toolplug.settings import JsonSettingsStore, OptionSource, SecretStore, ToolSettingsService, default_settings_dir
from toolplug.tools import ToolImplementation

if TYPE_CHECKING:
    from toolplug.chat import ChatResult
    from toolplug.guard import GuardReport, PromptInjectionGuard
    from toolplug.messages import Message


@dataclass(frozen=True, slots=True)
class ToolStatus:
    """One line of ``toolplug tools``: a tool, where it came from, and whether it may run."""

    id: str
    plugin: str
    status: str
    """``runnable``, ``excluded`` or ``invalid``."""
    reasons: tuple[str, ...] = ()
    deferred: bool = False
    """Runnable, but not sent to the model until a tool search finds it (``[tool_search]``)."""

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolplug tools --json``."""
        return {
            "id": self.id,
            "plugin": self.plugin,
            "status": self.status,
            "reasons": list(self.reasons),
            "deferred": self.deferred,
        }


def _is_tool(item: Any) -> str | None:
    return None if isinstance(item, ToolImplementation) else f"{type(item).__name__} instead of a ToolImplementation"


def _is_option_source(item: Any) -> str | None:
    if not isinstance(item, OptionSource):
        return f"{type(item).__name__} instead of an OptionSource"
    return None if isinstance(item.name, str) and item.name else "an OptionSource without a name"


def _is_definition_source(item: Any) -> str | None:
    if isinstance(item, DefinitionSource):
        return None
    return f"{type(item).__name__}, which lacks name/load_definitions/implementations of a DefinitionSource"


def _is_injection_filter(item: Any) -> str | None:
    if callable(getattr(item, "filter", None)) and isinstance(getattr(item, "name", None), str):
        return None
    return f"{type(item).__name__}, which lacks the name and filter() of an InjectionFilter"


def _is_adapter_factory(item: Any) -> str | None:
    api = getattr(item, "api", None)
    if isinstance(api, str) and api and callable(getattr(item, "create", None)):
        return None
    return f"{type(item).__name__}, which lacks the api and create() of a ProviderAdapterFactory"


logger = logging.getLogger("toolplug.host")

_Pool = Mapping[str, tuple[ToolImplementation, Origin]]
_SUB_PLUGIN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")


class Host:
    """Everything a host application needs, built from one config.

    Build it with :meth:`from_config`. Attributes: ``config``, ``plugins`` (the plugin manager),
    ``registry``, ``settings``, ``selector``, ``guard``, ``executor``, ``option_sources``,
    ``adapter_factories``.

    ``on_guard_report`` is called with every :class:`~toolplug.guard.GuardReport` of a tool call in
    which the prompt-injection guard neutralised something or a filter could not run (the same
    reports also reach each call's trace, and so ``LoopResult.guard_reports``).
    """

    def __init__(
        self,
        config: HostConfig,
        *,
        plugins: Iterable[Any | tuple[str, Any]] = (),
        load_entry_points: bool = True,
        entry_points: Iterable[metadata.EntryPoint] | None = None,
        strict: bool | None = None,
        settings_dir: str | os.PathLike[str] | None = None,
        secret_store: SecretStore | None = None,
        on_guard_report: Callable[[GuardReport], None] | None = None,
    ) -> None:
        self.config = config
        self.plugins = PluginManager(deny=config.plugins.deny, strict=strict)
        if load_entry_points:
            self.plugins.load_entry_points(entry_points)
        for plugin in plugins:
            name, obj = plugin if isinstance(plugin, tuple) else (None, plugin)
            self.plugins.register(obj, name)

        self.plugin_diagnostics: list[Diagnostic] = []
        """Contributions left out because an earlier plugin owns their name (option sources, adapters)."""
        tools = self._collect_tools()
        options = self.plugins.call("register_option_sources", _is_option_source)
        filters = self.plugins.call("register_injection_filters", _is_injection_filter)
        adapters = self.plugins.call("register_provider_adapters", _is_adapter_factory)
        sources = self.plugins.call("register_definition_sources", _is_definition_source, host=self)
        self.injection_filters = [c.item for c in self.plugins.loaded(filters)]  # a source may guard what it reads
        read = self._read_sources(sources)

        self.option_sources: dict[str, OptionSource] = self._claim(
            options, "register_option_sources", lambda source: source.name, {}
        )
        self.adapter_factories: dict[str, Any] = self._claim(
            adapters, "register_provider_adapters", lambda factory: factory.api, _builtin_adapter_factories()
        )
        self.registry = ToolRegistry(config.host.components, self.option_sources)
        self.definition_sources = [c.item for c in self.plugins.loaded(sources)]
        self._source_contexts: dict[int, tuple[Origin, _Pool, _Pool]] = {}
        """Per definition source: its origin and the implementations it may join, to read it again."""
        self._build_registry(self.plugins.loaded(tools), read)
        self._watch_sources()

        store_dir = Path(settings_dir) if settings_dir is not None else default_settings_dir()
        self.settings = ToolSettingsService(
            JsonSettingsStore(store_dir / "settings.json"),
            secret_store or SecretStore(),
            locked=config.locked_settings(),
            defaults=config.default_settings(),
            option_sources=self.option_sources,
        )
        self.selector = ToolSelector(self.registry, self.settings, config)
        self._on_guard_report = on_guard_report
        self.admin_diagnostics = self._admin_mistakes(read)
        """Config entries that name nothing: a plugin, a default tool or an API nobody provides."""
        for diagnostic in self.admin_diagnostics:
            logger.warning("%s", diagnostic.message)

    @cached_property
    def guard(self) -> PromptInjectionGuard:
        """The prompt-injection guard over the plugins' filters, made when a tool first needs it."""
        from toolplug.guard import PromptInjectionGuard

        return PromptInjectionGuard(self.injection_filters, self._on_guard_report)

    @cached_property
    def executor(self) -> ToolExecutor:
        """The executor that runs every tool call, with the guard."""
        return ToolExecutor(self.settings.for_execution, guard=self.guard)

    @classmethod
    def from_config(cls, path: str | os.PathLike[str] | None = None, **options: Any) -> Host:
        """Read the config (``path``, else ``$TOOLPLUG_CONFIG``, else defaults) and build the host.

        ``options``: ``plugins`` (objects or ``(name, object)`` pairs registered directly),
        ``load_entry_points`` (False for an isolated host), ``strict``, ``settings_dir``, ``secret_store``.
        """
        return cls(load_config(path), **options)

    # -- building ------------------------------------------------------------------------------------

    def _collect_tools(self) -> list[Contribution]:
        """Each tool with its definition, read once; a definition() that raises fails its plugin."""
        contributions = self.plugins.call("register_tools", _is_tool)
        for contribution in contributions:
            record = contribution.plugin
            if record.status != "loaded":
                continue
            implementation: ToolImplementation = contribution.item
            try:
                key = implementation.implementation_key
                definition = implementation.definition()
            except Exception as exc:
                self.plugins.fail(
                    record.name, f"{type(implementation).__name__}.definition() raised {exc!r}", exc,
                    hook="register_tools",
                )
                continue
            if not isinstance(key, str) or not (definition is None or isinstance(definition, ToolDefinition)):
                self.plugins.fail(
                    record.name,
                    f"{type(implementation).__name__}: implementation_key must be a string and definition() "
                    "must return a ToolDefinition or None",
                    hook="register_tools",
                )
                continue
            contribution.item = (implementation, definition)
        return contributions

    def _read_sources(self, sources: Sequence[Contribution]) -> list[tuple[Contribution, str, SourceContents]]:
        """Read every source once, under the name the host stamps; a source that misbehaves fails its plugin."""
        read = []
        denied: list[tuple[Any, str]] = []
        for contribution in sources:
            record = contribution.plugin
            if record.status != "loaded":
                continue
            try:
                owner = _source_owner(contribution.item, record.name)
                if owner in self.plugins.deny:  # a sub-plugin the admin denies globally: its tools never load
                    denied.append((contribution.item, owner))
                    continue
                read.append((contribution, owner, read_source(contribution.item, owner)))
            except PluginLoadError as exc:
                self.plugins.fail(record.name, exc.reason, exc, hook="register_definition_sources")
        for contribution in sources:
            if contribution.plugin.status != "loaded" or any(item is contribution.item for item, _ in denied):
                _close_quietly(contribution.item)
        self.denied_sub_plugins = sorted({owner for _, owner in denied})
        """Sub-plugins named in ``[plugins] deny``: their sources were closed unread."""
        return [entry for entry in read if entry[0].plugin.status == "loaded"]

    def _claim(
        self, contributions: Sequence[Contribution], hook: str, name_of: Any, taken: dict[str, Any]
    ) -> dict[str, Any]:
        """Each name to the first plugin that registers it (built-ins first); later ones are diagnostics."""
        owners: dict[str, PluginRecord | None] = dict.fromkeys(taken)  # None: toolplug's own
        for contribution in self.plugins.loaded(contributions):
            record = contribution.plugin
            try:
                name = name_of(contribution.item)
            except Exception as exc:  # checked when the hook returned; a property may still raise the second time
                self.plugins.fail(record.name, f"reading a name raised {exc!r}", exc, hook=hook)
                continue
            if name in taken:
                owner, this_one = _owner_phrase(owners[name]), _owner_phrase(record)
                message = f"{name!r} belongs to {owner}; this one of {this_one} is left out"
                self.plugin_diagnostics.append(Diagnostic("*", record.name, hook, message))
                logger.warning("%s: %s", hook, message)
                continue
            taken[name] = contribution.item
            owners[name] = record
        return taken

    def _build_registry(
        self, tools: Sequence[Contribution], sources: Sequence[tuple[Contribution, str, SourceContents]]
    ) -> None:
        """Every definition in the plugins' order: built-ins first, then by name; each plugin's code, then its sources.

        A definition joins only implementations of its own plugin.
        """
        pools: dict[str, dict[str, tuple[ToolImplementation, Origin]]] = {}
        origins: dict[str, Origin] = {}
        code: dict[str, list[tuple[ToolDefinition, Origin]]] = {}
        records: dict[str, PluginRecord] = {}
        for contribution in tools:
            implementation, definition = contribution.item
            record = contribution.plugin
            origin = origins.get(record.name)
            if origin is None:
                records[record.name] = record
                origin = origins[record.name] = Origin(record.name, record.read_distribution)
                pools[record.name], code[record.name] = {}, []
            pools[record.name].setdefault(implementation.implementation_key, (implementation, origin))
            if definition is not None:
                code[record.name].append((definition, origin))
        by_plugin: dict[str, list[tuple[Any, str, SourceContents]]] = {}
        for contribution, owner, contents in sources:
            records.setdefault(contribution.plugin.name, contribution.plugin)
            by_plugin.setdefault(contribution.plugin.name, []).append((contribution.item, owner, contents))
        ordered = sorted(records.values(), key=lambda r: r.rank)
        # Another plugin's implementations only explain a key a definition does not find in its own plugin.
        elsewhere: dict[str, tuple[ToolImplementation, Origin]] = {}
        for record in reversed(ordered):
            elsewhere.update(pools.get(record.name, {}))
        for record in ordered:
            pool = pools.get(record.name, {})
            for definition, origin in code.get(record.name, ()):
                self.registry.add(definition, pool, origin, elsewhere=elsewhere)
            for source, owner, contents in by_plugin.get(record.name, ()):
                if owner not in origins:
                    origins[owner] = Origin(owner, record.read_distribution)
                self._source_contexts[id(source)] = (origins[owner], pool, elsewhere)
                self.registry.add_contents(contents, origins[owner], pool, elsewhere=elsewhere)

    def _watch_sources(self) -> None:
        for source in self.definition_sources:
            watch = getattr(source, "watch", None)
            if callable(watch) and id(source) in self._source_contexts:
                watch(self._reload_source)

    def _reload_source(self, source: DefinitionSource) -> None:
        """A source said its tools changed: its tools in the registry are replaced by what it has now."""
        context = self._source_contexts.get(id(source))
        if context is None or not any(known is source for known in self.definition_sources):
            return  # closed, or not this host's
        try:
            self.registry.replace_source(source, *context)
        except PluginLoadError as exc:  # the source broke the protocol: its old tools stay
            logger.warning("The definition source %r changed and could not be read again: %s", source.name, exc)
            return
        logger.info("The definition source %r changed: its tools were read again", source.name)

    # -- shutting down -------------------------------------------------------------------------------

    def close(self) -> None:
        """Release what the plugins hold (MCP server connections and the like); safe to call twice."""
        for source in self.definition_sources:
            _close_quietly(source)
        self.definition_sources = []

    def __enter__(self) -> Host:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- plugins and tools ---------------------------------------------------------------------------

    def plugin_records(self, *, include_builtin: bool = True) -> list[PluginRecord]:
        """Every plugin with its status, sorted by name; both sides of a name two distributions claim."""
        records = sorted([*self.plugins.records.values(), *self.plugins.clashes], key=lambda r: r.name)
        return [r for r in records if include_builtin or not r.builtin]

    def scope(self, component: str = "chat", provider_id: str | None = None) -> CallScope:
        """The call scope of a component and provider (None: a person, no confidence checks)."""
        self._check_component(component)
        if provider_id is None:
            return CallScope(component=component)
        provider = self.config.providers.get(provider_id)
        if provider is None:
            known = ", ".join(sorted(self.config.providers)) or "none configured"
            raise ConfigError(f"Unknown provider {provider_id!r} (providers: {known}).", key=f"providers.{provider_id}")
        return CallScope(
            component=component,
            provider_id=provider_id,
            provider_confidence=provider.confidence,
            provider_trusted=self.config.is_trusted(provider_id),
            model=provider.model,
        )

    def select(
        self,
        component: str = "chat",
        provider_id: str | None = None,
        *,
        selected: Iterable[str] | None = None,
        chat_required_confidence: ConfidenceLevel | None = None,
    ) -> Selection:
        """The runnable tools for a chat turn, and why each other tool is left out."""
        scope = self.scope(component, provider_id)
        provider = self.config.providers.get(provider_id) if provider_id else None
        request = SelectionRequest(
            component=component,
            provider_id=provider_id,
            provider_confidence=scope.provider_confidence,
            provider_trusted=scope.provider_trusted,
            model_supports_tools=provider.supports_tools if provider else True,
            selected=None if selected is None else frozenset(selected),
            chat_required_confidence=chat_required_confidence,
        )
        return self.selector.select(request)

    def deferred_tools(
        self, runnable: Sequence[RegisteredTool], selected: Iterable[str] | None = None
    ) -> list[RegisteredTool]:
        """Which of ``runnable`` are deferred by ``[tool_search]`` and their authors (see tool search)."""
        search = self.config.tool_search
        if not search.deferred and search.offer_at_most is None and not any(t.definition.deferred for t in runnable):
            return []  # nothing can be deferred: the search module is not even loaded
        from toolplug.tool_search import split_offer

        return split_offer(runnable, self.config.tool_search.options(), tuple(selected or ()))[1]

    def tool_statuses(self, component: str = "chat", provider_id: str | None = None) -> list[ToolStatus]:
        """Every tool, valid or not, with its status and reasons (``toolplug tools``)."""
        selection = self.select(component, provider_id)
        deferred = {tool.id for tool in self.deferred_tools(selection.runnable)}
        statuses = [ToolStatus(t.id, t.plugin, "runnable", deferred=t.id in deferred) for t in selection.runnable]
        statuses += [ToolStatus(e.id, e.tool.plugin, "excluded", e.reasons) for e in selection.excluded]
        for tool_id, plugin in self.registry.rejected.items():
            reasons = tuple(
                f"{d.field}: {d.message}"
                for d in self.registry.diagnostics
                if d.tool_id == tool_id and d.plugin == plugin
            )
            statuses.append(ToolStatus(tool_id, plugin, "invalid", reasons))
        return sorted(statuses, key=lambda s: (s.id, s.plugin))

    async def call_tool(
        self,
        tool_id: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        component: str = "chat",
        provider_id: str | None = None,
        call_id: str = "call_1",
    ) -> ToolCallOutcome:
        """Run one tool through the selector's checks and the executor.

        Raises UnknownToolError, ToolNotRunnableError (with the reasons) or InvalidToolInputError;
        failures of the tool itself come back as an outcome with status ``error`` or ``blocked``.
        """
        registered = self.registry.get(tool_id)
        scope = self.scope(component, provider_id)
        selection_request = SelectionRequest(
            component=component,
            provider_id=provider_id,
            provider_confidence=scope.provider_confidence,
            provider_trusted=scope.provider_trusted,
            selected=(tool_id,),
        )
        reasons = self.selector.check(registered, selection_request)
        if reasons:
            raise ToolNotRunnableError(tool_id, reasons)
        if not registered.implementation.has_execute:
            raise ToolNotRunnableError(tool_id, ("the tool has no execute: its provider or caller runs it",))
        arguments = self.executor.validate_arguments(registered, dict(arguments or {}))
        return await self.executor.execute(registered, arguments, scope=scope, call_id=call_id, validated=True)

    async def run_chat(self, prompt_or_messages: str | Sequence[Message], **options: Any) -> ChatResult:
        """Run one chat turn on a configured provider with the runnable tools, one call at a time and the limits.

        ``options`` are those of :func:`toolplug.chat.run_host_chat` (``provider_id``, ``component``,
        ``selected``, ``stream``, ``on_event``, ``record_dir``, ``system``, ``chat_required_confidence``,
        ``tool_choice``).
        """
        from toolplug.chat import run_host_chat

        return await run_host_chat(self, prompt_or_messages, **options)

    def _admin_mistakes(self, sources: Sequence[tuple[Contribution, str, SourceContents]]) -> list[Diagnostic]:
        where = self.config.source or "<config>"
        known = {*self.plugins.records, *(r.name for r in self.plugins.clashes)}
        known |= {owner for _, owner, _ in sources} | {t.plugin for t in self.registry} | set(self.denied_sub_plugins)
        found = []
        policy = self.config.plugins
        entries = [("plugins.deny", name) for name in policy.deny]
        for component, rules in policy.components.items():
            entries += [(f"plugins.components.{component}.allow", name) for name in rules.allow or ()]
            entries += [(f"plugins.components.{component}.deny", name) for name in rules.deny]
        installed = ", ".join(sorted(known)) or "none"
        for key, name in entries:
            if name not in known:
                message = f"{where}: {key}: {name!r} names no installed plugin (installed: {installed})"
                found.append(Diagnostic("*", "config", key, message))
        for tool_id in self.config.host.default_tools or ():
            if tool_id not in self.registry and tool_id not in self.registry.rejected:
                message = f"{where}: host.default_tools: {tool_id!r} names no registered tool"
                found.append(Diagnostic(tool_id, "config", "host.default_tools", message))
        for provider_id, provider in self.config.providers.items():
            if provider.api not in self.adapter_factories:
                apis = ", ".join(sorted(self.adapter_factories))
                message = f"{where}: providers.{provider_id}.api: unknown API {provider.api!r} (available: {apis})"
                found.append(Diagnostic("*", "config", f"providers.{provider_id}.api", message))
        return found

    def diagnostics(self) -> list[Diagnostic]:
        """Everything ``toolplug check`` reports, besides failed plugins: definitions, conflicts and the config."""
        return [*self.registry.diagnostics, *self.plugin_diagnostics, *self.config_diagnostics()]

    def config_diagnostics(self) -> list[Diagnostic]:
        """Admin values that cannot apply: in ``[tools.<id>]`` an unknown tool, unknown field, a secret or a bad
        value; policy entries naming no installed plugin, default tools naming no tool, APIs nobody provides."""
        found = list(self.admin_diagnostics)
        for tool_id, section in self.config.tools.items():
            where = f"{self.config.source or '<config>'}: tools.{tool_id}"
            if tool_id not in self.registry:
                found.append(Diagnostic(tool_id, "config", "tools", f"{where}: no such tool is registered"))
                continue
            definition = self.registry.get(tool_id).definition
            for layer, values in (("locked", section.locked), ("defaults", section.defaults)):
                for name, value in values.items():
                    field = definition.settings_schema.field(name)
                    if field is None:
                        problem = "the tool has no such setting"
                    elif field.kind is SettingKind.SECRET:
                        problem = "secrets live in the OS keyring and cannot be set in the config"
                    else:
                        problem = self.settings.check_value(field, value) or ""
                    if problem:
                        message = f"{where}.{layer}.{name}: {problem}"
                        found.append(Diagnostic(tool_id, "config", f"{layer}.{name}", message))
        return found

    def tool(self, tool_id: str) -> RegisteredTool:
        """The registered tool ``tool_id`` (raises UnknownToolError)."""
        return self.registry.get(tool_id)

    def _check_component(self, component: str) -> None:
        if component not in self.config.host.components:
            raise UsageError(
                f"Unknown component {component!r}; the host's components are: {', '.join(self.config.host.components)}"
            )


def _source_owner(source: Any, plugin: str) -> str:
    """The plugin a source acts under: its own plugin, or a sub-plugin ``<plugin>.<name>`` it names itself."""
    try:
        claimed = getattr(source, "plugin", None)
    except Exception as exc:
        raise PluginLoadError(plugin, f"reading the source's plugin raised {exc!r}") from exc
    if claimed is None or claimed == plugin:
        return plugin
    if isinstance(claimed, str) and claimed.startswith(f"{plugin}.") and _SUB_PLUGIN.match(claimed[len(plugin) + 1 :]):
        return claimed
    raise PluginLoadError(
        plugin,
        f"a definition source claims the plugin name {claimed!r}; a plugin's sources act only under its own name "
        f"or a sub-plugin of it ({plugin}.<name>)",
    )


def _close_quietly(source: Any) -> None:
    try:
        close = getattr(source, "close", None)
        if callable(close):
            close()
    except Exception:  # one source failing to close must not keep the others open
        logger.exception("Closing a definition source of type %s failed", type(source).__name__)


def _owner_phrase(record: PluginRecord | None) -> str:
    """``plugin 'x' (its-distribution)``; reads the distribution's METADATA, so only for a message."""
    if record is None:
        return "toolplug (built-in)"
    return f"plugin {record.name!r}" + (f" ({record.distribution})" if record.distribution else "")


def _builtin_adapter_factories() -> dict[str, Any]:
    from toolplug.providers import builtin_adapter_factories

    return dict(builtin_adapter_factories())


__all__ = ["Host", "InvalidToolInputError", "ToolStatus"]
