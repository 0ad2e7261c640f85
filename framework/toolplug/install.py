"""``toolplug install PKG...``: plugins installed into the environment toolplug itself runs in.

It runs ``python -m pip install`` with the interpreter running toolplug, so a plugin lands where
toolplug finds it whatever ``pip`` is first on the PATH. Before pip runs, it refuses a package that would
take the name of an installed plugin of another distribution:

- a package named like an installed plugin (``toolplug install web`` while the built-in ``web`` exists);
- a local folder or wheel whose ``toolplug`` entry points name an installed plugin of another distribution
  (read from its ``pyproject.toml`` or the wheel's ``entry_points.txt``).

A package from an index is checked by its name only (its entry points are known once it is installed);
after pip, every plugin name is checked again, and a collision is reported with the plugin that wins.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
import zipfile
from collections.abc import Sequence
from configparser import ConfigParser
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from toolplug.errors import UsageError

ENTRY_POINT_GROUP = "toolplug"
_VALUE_OPTIONS = frozenset({
    "-c", "--constraint", "-r", "--requirement", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
    "-t", "--target", "--prefix", "--root", "--platform", "--python-version", "--implementation", "--abi",
    "--src", "--upgrade-strategy", "--progress-bar", "--cache-dir", "--log", "--proxy", "--retries", "--timeout",
    "--trusted-host", "--cert", "--client-cert", "--exists-action", "--report",
})
_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def canonical(name: str) -> str:
    """A distribution or plugin name as packaging compares them (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True, slots=True)
class Collision:
    """A name a package would bring that an installed plugin of another distribution already has."""

    package: str
    plugin: str
    owner: str

    def __str__(self) -> str:
        return f"{self.package} would add the plugin {self.plugin!r}, a name the installed {self.owner} already uses"


def installed_plugins() -> dict[str, str]:
    """Every installed plugin (entry-point) name, canonical, with the distribution that provides it."""
    owners: dict[str, str] = {}
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        owner = entry_point.dist.metadata["Name"] if entry_point.dist is not None else "?"
        owners.setdefault(canonical(entry_point.name), owner)
    return owners


def packages_of(arguments: Sequence[str]) -> list[str]:
    """The package arguments among pip's (options and their values left out; ``-e PATH`` is a package)."""
    packages: list[str] = []
    skip = False
    for argument in arguments:
        if skip:
            skip = False
            continue
        if argument in _VALUE_OPTIONS:
            skip = True
        elif argument in ("-e", "--editable"):
            continue
        elif not argument.startswith("-"):
            packages.append(argument)
    return packages


def local_entry_points(package: str) -> tuple[str | None, list[str]] | None:
    """The distribution name and ``toolplug`` entry-point names of a local folder or wheel; None if not local."""
    path = Path(package)
    if path.is_dir() and (path / "pyproject.toml").is_file():
        project = tomllib.loads((path / "pyproject.toml").read_text(encoding="utf-8")).get("project", {})
        names = list((project.get("entry-points") or {}).get(ENTRY_POINT_GROUP, {}))
        return project.get("name"), names
    if path.is_file() and path.suffix == ".whl":
        with zipfile.ZipFile(path) as wheel:
            files = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
            parser = ConfigParser(delimiters=("=",))
            parser.optionxform = str  # type: ignore[assignment,method-assign]
            if files:
                parser.read_string(wheel.read(files[0]).decode("utf-8"))
        names = list(parser[ENTRY_POINT_GROUP]) if parser.has_section(ENTRY_POINT_GROUP) else []
        return path.name.split("-")[0], names
    return None


def collisions(packages: Sequence[str], plugins: dict[str, str]) -> list[Collision]:
    """The names the packages would bring that installed plugins of other distributions already have."""
    found = []
    for package in packages:
        local = local_entry_points(package)
        if local is not None:
            distribution, names = local
        else:
            match = _NAME.match(package)
            distribution, names = (match.group(1) if match else None), []
            if distribution is not None:
                names = [distribution]  # a plugin usually bears its distribution's name
        own = canonical(distribution) if distribution else None
        for name in names:
            owner = plugins.get(canonical(name))
            if owner is not None and canonical(owner) != own:
                found.append(Collision(package, name, owner))
    return found


def duplicated_plugins() -> dict[str, list[str]]:
    """Plugin names that more than one installed distribution provides."""
    providers: dict[str, set[str]] = {}
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        owner = entry_point.dist.metadata["Name"] if entry_point.dist is not None else "?"
        providers.setdefault(canonical(entry_point.name), set()).add(owner)
    return {name: sorted(owners) for name, owners in providers.items() if len(owners) > 1}


def install(arguments: Sequence[str]) -> int:
    """Check the names, run pip with toolplug's own interpreter, check again; pip's exit code."""
    packages = packages_of(arguments)
    if not packages:
        raise UsageError("Name at least one package to install (a name, a folder or a wheel).")
    refused = collisions(packages, installed_plugins())
    if refused:
        raise UsageError(
            "; ".join(str(c) for c in refused) + ". Nothing was installed: a plugin name must be unique, it is what "
            "admins allow or deny."
        )
    before = duplicated_plugins()
    done = subprocess.run([sys.executable, "-m", "pip", "install", *arguments], check=False)
    if done.returncode != 0:
        return done.returncode
    metadata_cache_clear()
    new_duplicates = {name: owners for name, owners in duplicated_plugins().items() if name not in before}
    for name, owners in new_duplicates.items():
        print(
            f"Warning: the plugin name {name!r} is now provided by {', '.join(owners)}; only one of them is "
            "loaded (the built-in one, else the distribution whose name sorts first). Uninstall the other.",
            file=sys.stderr,
        )
    return 1 if new_duplicates else 0


def metadata_cache_clear() -> None:
    """Forget cached distribution lookups so the newly installed ones are seen."""
    import importlib

    importlib.invalidate_caches()


__all__ = ["Collision", "canonical", "collisions", "install", "installed_plugins", "local_entry_points"]
