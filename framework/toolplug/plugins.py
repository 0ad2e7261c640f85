"""Finding and loading plugins, each in isolation, and calling their hooks one plugin at a time.

A plugin is an entry point in the group ``toolplug``; its name is the plugin's name, and the only name
it acts under. A plugin the admin denies globally is never imported. A plugin that fails to import,
whose hook raises, or that returns something malformed is recorded as ``failed`` with the reason and the
original exception, and everything it contributed is left out; the host and the other plugins go on.
``TOOLPLUG_STRICT_PLUGINS=1`` turns any such failure into a :class:`PluginLoadError`.

Plugins are always called in one documented order, which also decides every conflict between them: the
built-in plugins first, then every other plugin by name (code point order). When two installed
distributions name the same plugin, the built-in one wins, else the distribution whose name sorts first;
the other is recorded as ``failed`` and never imported.
"""

from __future__ import annotations

import inspect
import logging
import os
import re
import sys
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from importlib import metadata
from typing import Any

import pluggy

from toolplug import hookspecs
from toolplug.errors import PluginLoadError

logger = logging.getLogger("toolplug.plugins")

ENTRY_POINT_GROUP = "toolplug"
STRICT_ENV = "TOOLPLUG_STRICT_PLUGINS"
BUILTIN_DISTRIBUTION = "toolplug"
PLUGIN_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
"""A plugin's (entry point's) name: no dots, which are kept for the sub-plugins a plugin creates itself."""


@dataclass
class PluginRecord:
    """One plugin as ``toolplug plugins`` shows it."""

    name: str
    dist: metadata.Distribution | None = field(default=None, repr=False)
    """The installed distribution it came from (None when registered directly)."""
    hooks: list[str] = field(default_factory=list)
    status: str = "loaded"
    """``loaded``, ``failed`` or ``denied``."""
    reason: str = ""
    error: BaseException | None = None
    """The original exception of a failure (with its traceback chained)."""
    given_distribution: str | None = field(default=None, repr=False)

    # Reading a distribution's METADATA costs a file parse; start-up never needs it, so it is lazy.
    @cached_property
    def distribution(self) -> str | None:
        """The distribution's name."""
        if self.dist is None:
            return self.given_distribution
        return str(self.dist.metadata["Name"])

    def read_distribution(self) -> str | None:
        """The distribution's name (a method, to hand on where it may never be needed)."""
        return self.distribution

    @cached_property
    def version(self) -> str | None:
        """The distribution's version."""
        return None if self.dist is None else str(self.dist.version)

    @cached_property
    def builtin(self) -> bool:
        """True for the plugins toolplug itself ships."""
        return _normalise(_distribution_name(self.dist) if self.dist else self.given_distribution) == (
            BUILTIN_DISTRIBUTION
        )

    @property
    def rank(self) -> tuple[int, str]:
        """The plugin's place in the calling order: built-ins first, then by name."""
        return (0 if self.builtin else 1, self.name)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolplug plugins --json``."""
        return {
            "name": self.name,
            "distribution": self.distribution,
            "version": self.version,
            "hooks": list(self.hooks),
            "status": self.status,
            "reason": self.reason,
        }


@dataclass(slots=True)
class Contribution:
    """Something a plugin's hook returned, with the plugin it came from."""

    item: Any
    plugin: PluginRecord


Validator = Callable[[Any], str | None]
"""Returns why an item a hook returned is malformed, or None when it is fine."""
ArgumentsFor = Callable[[PluginRecord], Mapping[str, Any]]
"""Builds the arguments of one plugin's hook call (for hooks whose arguments are per plugin)."""


def strict_from_environment() -> bool:
    """True when ``TOOLPLUG_STRICT_PLUGINS`` asks for failures to be fatal."""
    return os.environ.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes", "on")


_HOOKABLE = (types.FunctionType, types.MethodType, staticmethod, classmethod)


class _HookManager(pluggy.PluginManager):
    """pluggy's manager, with a quick answer for the plain attributes of a plugin module.

    pluggy inspects every name in a plugin module through ``inspect.getattr_static``; the classes,
    modules and constants a module imports are most of them, and none can be a hook. They are
    skipped here with one dictionary lookup; everything else gets pluggy's own answer.
    """

    def parse_hookimpl_opts(self, plugin: Any, name: str) -> pluggy.HookimplOpts | None:
        if type(plugin) is types.ModuleType:
            value = plugin.__dict__.get(name, _HOOKABLE)
            if value is not _HOOKABLE and not isinstance(value, _HOOKABLE):
                return None
        return super().parse_hookimpl_opts(plugin, name)


class PluginManager:
    """The host's plugins: discovery, isolated loading, and hook calls that blame the right plugin."""

    def __init__(self, *, deny: Iterable[str] = (), strict: bool | None = None) -> None:
        self.deny = frozenset(deny)
        self.strict = strict_from_environment() if strict is None else strict
        self._pm = _HookManager(hookspecs.PROJECT_NAME)
        self._pm.add_hookspecs(hookspecs)
        self.records: dict[str, PluginRecord] = {}
        """Every plugin by name (for a name two distributions claim: the one that won)."""
        self.clashes: list[PluginRecord] = []
        """Plugins never loaded because another distribution's plugin has the same name."""

    # -- loading -------------------------------------------------------------------------------------

    def load_entry_points(self, entry_points: Iterable[metadata.EntryPoint] | None = None) -> None:
        """Load every plugin of the ``toolplug`` entry-point group (or the given entry points)."""
        found = metadata.entry_points(group=ENTRY_POINT_GROUP) if entry_points is None else entry_points
        by_name: dict[str, list[metadata.EntryPoint]] = {}
        for entry_point in found:
            by_name.setdefault(entry_point.name, []).append(entry_point)
        for name in sorted(by_name):
            candidates = by_name[name]
            if len(candidates) > 1:
                candidates = sorted(candidates, key=_claim_order)
                for loser in candidates[1:]:
                    self._clash(loser, candidates[0])
            self._load_entry_point(candidates[0])

    def _clash(self, loser: metadata.EntryPoint, winner: metadata.EntryPoint) -> None:
        record = PluginRecord(loser.name, loser.dist)
        self.clashes.append(record)
        taken_by = _describe(winner.dist)
        self._fail(
            record,
            f"another distribution ({taken_by}) installs a plugin named {loser.name!r}, and it comes first "
            f"(built-ins first, then by distribution name); {loser.value!r} was not imported",
            None,
        )

    def _load_entry_point(self, entry_point: metadata.EntryPoint) -> None:
        record = PluginRecord(entry_point.name, entry_point.dist)
        if entry_point.name in self.records:
            self.clashes.append(record)
            self._fail(record, f"another plugin is already named {entry_point.name!r}; not imported", None)
            return
        self.records[record.name] = record
        if record.name in self.deny:
            record.status = "denied"
            record.reason = "denied by the admin ([plugins] deny); not imported"
            return
        if not PLUGIN_NAME.match(record.name):
            self._fail(record, _bad_name(record.name), None)
            return
        before = set(sys.modules)
        try:
            plugin = entry_point.load()
        except (Exception, SystemExit) as exc:
            # Undo a half-done import so a retry or another plugin never sees a broken module.
            for name in set(sys.modules) - before:
                sys.modules.pop(name, None)
            self._fail(record, f"import failed: {type(exc).__name__}: {exc}", exc)
            return
        self._register(plugin, record)

    def register(self, plugin: Any, name: str | None = None, *, distribution: str | None = None) -> PluginRecord:
        """Register a plugin object directly (a module, class or instance with hook functions)."""
        plugin_name = name or getattr(plugin, "__name__", None) or type(plugin).__name__
        if not PLUGIN_NAME.match(plugin_name):
            raise PluginLoadError(plugin_name, _bad_name(plugin_name))
        record = PluginRecord(plugin_name, given_distribution=distribution)
        if plugin_name in self.records:
            raise PluginLoadError(plugin_name, "a plugin with this name is already registered")
        self.records[plugin_name] = record
        if plugin_name in self.deny:
            record.status = "denied"
            record.reason = "denied by the admin ([plugins] deny)"
            return record
        self._register(plugin, record)
        return record

    def _register(self, plugin: Any, record: PluginRecord) -> None:
        try:
            self._pm.register(plugin, name=record.name)
        except Exception as exc:
            if self._pm.is_registered(plugin):
                self._pm.unregister(plugin)
            self._fail(record, f"invalid hook implementation: {exc}", exc)
            return
        record.hooks = sorted(
            hook
            for hook in hookspecs.HOOK_NAMES
            if any(impl.plugin_name == record.name for impl in getattr(self._pm.hook, hook).get_hookimpls())
        )
        unknown = [
            name
            for name in dir(plugin)
            if name.startswith("register_")
            and name not in hookspecs.HOOK_NAMES
            and callable(getattr(plugin, name, None))
            and hasattr(getattr(plugin, name), "toolplug_impl")
        ]
        if unknown:
            self._fail(record, f"implements unknown hooks: {', '.join(unknown)}", None)

    def _fail(self, record: PluginRecord, reason: str, error: BaseException | None) -> None:
        record.status = "failed"
        record.reason = reason
        record.error = error
        where = f" ({record.distribution} {record.version})" if record.distribution else ""
        logger.warning("Plugin %r%s left out: %s", record.name, where, reason)
        if self.strict:
            raise PluginLoadError(record.name, f"{reason} [{STRICT_ENV} is set]") from error

    def fail(self, plugin: str, reason: str, error: BaseException | None = None, *, hook: str | None = None) -> None:
        """Mark ``plugin`` as failed (used by the host for faults found after a hook returned)."""
        record = self.records[plugin]
        if record.status == "failed":
            return
        self._fail(record, f"{hook}: {reason}" if hook else reason, error)

    # -- calling hooks -------------------------------------------------------------------------------

    def call(
        self,
        hook: str,
        validate: Validator | None = None,
        *,
        arguments_for: ArgumentsFor | None = None,
        **kwargs: Any,
    ) -> list[Contribution]:
        """Call ``hook`` on every loaded plugin, one at a time in the plugins' order, and check what each returned.

        A plugin whose implementation raises or returns a malformed value is marked ``failed`` and
        contributes nothing. An implementation may accept any subset of ``kwargs`` (or of what
        ``arguments_for`` builds for its plugin).
        """
        contributions: list[Contribution] = []
        for impl, record in self._implementations(hook):
            given = kwargs if arguments_for is None else {**kwargs, **arguments_for(record)}
            try:
                items = self._call_one(impl, given, validate)
            except Exception as exc:
                self._fail(record, f"hook {hook} {exc}", exc.__cause__ or exc)
                continue
            contributions.extend(Contribution(item, record) for item in items)
        return contributions

    def _implementations(self, hook: str) -> list[tuple[Any, PluginRecord]]:
        # The plugins' order, not pluggy's: tryfirst/trylast markers must not let a plugin jump the queue.
        found = []
        for impl in getattr(self._pm.hook, hook).get_hookimpls():
            record = self.records.get(impl.plugin_name)
            if record is not None and record.status == "loaded":
                found.append((impl, record))
        return sorted(found, key=lambda pair: pair[1].rank)

    @staticmethod
    def _call_one(impl: Any, given: Mapping[str, Any], validate: Validator | None) -> list[Any]:
        missing = [name for name in impl.argnames if name not in given]
        if missing:
            raise _HookFault(f"asks for unknown arguments: {', '.join(missing)}")
        try:
            returned = impl.function(**{name: given[name] for name in impl.argnames})
        except Exception as exc:
            raise _HookFault(f"raised {type(exc).__name__}: {exc}") from exc
        if inspect.isawaitable(returned):
            if hasattr(returned, "close"):
                returned.close()
            raise _HookFault("returned a coroutine; hooks are plain functions")
        if returned is None:
            return []
        if not isinstance(returned, list | tuple):
            raise _HookFault(f"must return a list, not {type(returned).__name__}")
        try:
            items = list(returned)
            problem = next((p for p in map(validate, items) if p), None) if validate else None
        except Exception as exc:  # a list subclass or an item whose attributes raise
            raise _HookFault(f"returned something that raised {type(exc).__name__}: {exc}") from exc
        if problem:
            raise _HookFault(f"returned {problem}")
        return items

    def loaded(self, contributions: Iterable[Contribution]) -> list[Contribution]:
        """The contributions whose plugin is still loaded (a later failure removes everything it gave)."""
        return [c for c in contributions if c.plugin.status == "loaded"]

    def plugin_object(self, name: str) -> Any:
        """The registered plugin object called ``name``, or None."""
        return self._pm.get_plugin(name)


class _HookFault(Exception):
    """What is wrong with one hook call (the message follows "hook <name> ")."""


def _normalise(name: str | None) -> str | None:
    return None if name is None else re.sub(r"[-_.]+", "-", name).lower()


def _distribution_name(dist: metadata.Distribution | None) -> str | None:
    """The distribution's name, from its folder's name where that is enough (no METADATA parse)."""
    if dist is None:
        return None
    cheap = getattr(dist, "_normalized_name", None)
    if isinstance(cheap, str) and cheap:
        return cheap
    return str(dist.metadata["Name"])


def _describe(dist: metadata.Distribution | None) -> str:
    if dist is None:
        return "an unknown distribution"
    return f"{dist.metadata['Name']} {dist.version}"


def _claim_order(entry_point: metadata.EntryPoint) -> tuple[int, str, str]:
    """Which of several entry points of one name wins: the built-in one, else by distribution name."""
    name = _normalise(_distribution_name(entry_point.dist)) or ""
    return (0 if name == BUILTIN_DISTRIBUTION else 1, name, entry_point.value)


def _bad_name(name: str) -> str:
    return (
        f"{name!r} is not a valid plugin name (letters, digits, '-' and '_'); a dotted name is a sub-plugin, "
        "which only its owning plugin creates"
    )


__all__ = [
    "ENTRY_POINT_GROUP",
    "PLUGIN_NAME",
    "STRICT_ENV",
    "Contribution",
    "PluginManager",
    "PluginRecord",
    "strict_from_environment",
]
