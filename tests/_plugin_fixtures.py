"""Builders for fake installed distributions: a module plus a ``*.dist-info`` folder on sys.path."""

from __future__ import annotations

import textwrap
from pathlib import Path


def write_distribution(
    root: Path, distribution: str, version: str, plugins: dict[str, str], modules: dict[str, str]
) -> None:
    """Write modules and a dist-info folder whose entry points (group ``toolplug``) name them.

    ``plugins`` maps entry-point names to module names; ``modules`` maps module names to source.
    """
    for module, source in modules.items():
        (root / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = root / f"{distribution.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = ["[toolplug]"] + [f"{name} = {module}" for name, module in plugins.items()]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


GOOD_PLUGIN = """
import toolplug

@toolplug.tool
def shout(text: str) -> str:
    '''Return the text in capitals.'''
    return text.upper()

@toolplug.hookimpl
def register_tools():
    return [shout]
"""
