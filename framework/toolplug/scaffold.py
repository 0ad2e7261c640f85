"""``toolplug new NAME``: a new tool package rendered from the plugin template.

The template is a complete, working package (``toolplug/plugin_template/``, shipped inside the
installed toolplug as package data) whose name is the placeholder ``example-tools``. Rendering copies
it with that name replaced everywhere — file and folder names and file contents — in each of its
four spellings; nothing beyond plain string replacement, so no templating dependency.
"""

from __future__ import annotations

import keyword
import os
import re
import sys
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from toolplug.errors import UsageError

TEMPLATE_PACKAGE = "toolplug"
TEMPLATE_FOLDER = "plugin-template"
PLACEHOLDER = "example-tools"
"""The template's own name; every spelling of it is replaced."""
MAX_NAME_LENGTH = 40
"""Leaves room for the template's tool ids (``<module>_search_notes``) within the 64 characters of a tool id."""

_NAME = re.compile(r"^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$")
_SKIPPED = frozenset({"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", ".ruff_cache", "build", "dist"})
_RESERVED = frozenset({"toolplug", "test", "tests", "plugin", "plugins"})


@dataclass(frozen=True, slots=True)
class PluginNames:
    """Every spelling of a plugin package's name."""

    distribution: str
    """The name on PyPI and the entry-point (plugin) name admins allow or deny: ``weather-tools``."""
    module: str
    """The import name: ``weather_tools``."""
    class_prefix: str
    """The prefix of class names: ``WeatherTools``."""
    title: str
    """For people: ``Weather Tools``."""

    @classmethod
    def parse(cls, name: str) -> PluginNames:
        """Check ``name`` and derive its spellings; raises UsageError saying what is wrong."""
        if not _NAME.match(name):
            raise UsageError(
                f"{name!r} is not a valid plugin name: use lower-case letters and digits, words joined by single "
                "'-' or '_', starting with a letter (for example 'weather-tools')."
            )
        if len(name) > MAX_NAME_LENGTH:
            raise UsageError(f"{name!r} is too long: a plugin name has at most {MAX_NAME_LENGTH} characters.")
        words = re.split(r"[-_]", name)
        module = "_".join(words)
        if module in _RESERVED or keyword.iskeyword(module) or module in sys.stdlib_module_names:
            raise UsageError(
                f"{name!r} would be imported as {module!r}, which clashes with an existing module or keyword; "
                "choose a more specific name (for example 'acme-weather')."
            )
        return cls(
            distribution="-".join(words),
            module=module,
            class_prefix="".join(word.capitalize() for word in words),
            title=" ".join(word.capitalize() for word in words),
        )

    def replacements(self) -> list[tuple[str, str]]:
        """``(placeholder spelling, this name's spelling)`` pairs, in the order they are applied."""
        template = PluginNames.parse(PLACEHOLDER)
        return [
            (template.class_prefix, self.class_prefix),
            (template.title, self.title),
            (template.module, self.module),
            (template.distribution, self.distribution),
        ]


def template_root() -> Traversable:
    """The plugin template inside the installed toolplug package."""
    root = resources.files(TEMPLATE_PACKAGE).joinpath(TEMPLATE_FOLDER)
    if not root.is_dir():
        raise UsageError(
            f"The plugin template is missing from this toolplug installation ({root}); reinstall toolplug."
        )
    return root


def render_plugin(name: str, directory: str | os.PathLike[str] = ".") -> Path:
    """Render the template as a new package ``<directory>/<name>`` and return its path.

    Refuses an invalid name and an existing target folder (nothing is overwritten).
    """
    names = PluginNames.parse(name)
    _refuse_installed(names)
    target = Path(directory) / names.distribution
    if target.exists():
        raise UsageError(f"{target} already exists; choose another name or --dir (nothing was overwritten).")
    files = list(_template_files(template_root(), ()))
    replacements = names.replacements()
    target.mkdir(parents=True)
    for parts, source in files:
        destination = target.joinpath(*(_substitute(part, replacements) for part in parts))
        destination.parent.mkdir(parents=True, exist_ok=True)
        data = source.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            destination.write_bytes(data)
        else:
            destination.write_bytes(_substitute(text, replacements).encode("utf-8"))
    return target


def _refuse_installed(names: PluginNames) -> None:
    """A new package must not take the name of an installed plugin or distribution: one of the two would be lost."""
    from importlib import metadata

    from toolplug.plugins import ENTRY_POINT_GROUP

    def spelling(text: str) -> str:
        return re.sub(r"[-_.]+", "-", text).lower()

    wanted = {spelling(names.distribution), spelling(names.module)}
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if spelling(entry_point.name) in wanted:
            owner = entry_point.dist.name if entry_point.dist is not None else "an installed distribution"
            raise UsageError(
                f"{names.distribution!r} is the name of the installed plugin {entry_point.name!r} (from {owner}); "
                "choose another name."
            )
    try:
        metadata.distribution(names.distribution)
    except metadata.PackageNotFoundError:
        return
    raise UsageError(f"A distribution named {names.distribution!r} is already installed; choose another name.")


def _template_files(folder: Traversable, parts: tuple[str, ...]) -> list[tuple[tuple[str, ...], Traversable]]:
    found: list[tuple[tuple[str, ...], Traversable]] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name in _SKIPPED or entry.name.endswith((".pyc", ".egg-info")):
            continue
        if entry.is_dir():
            found += _template_files(entry, (*parts, entry.name))
        else:
            found.append(((*parts, entry.name), entry))
    return found


def _substitute(text: str, replacements: list[tuple[str, str]]) -> str:
    for placeholder, value in replacements:
        text = text.replace(placeholder, value)
    return text


__all__ = ["PLACEHOLDER", "PluginNames", "render_plugin", "template_root"]
