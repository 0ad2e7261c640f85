"""mkdocs hook: generate ``settings-reference.md`` from the built-in tools' definitions.

Only the plugins of the ``toolplug`` distribution itself are loaded, with the built-in config defaults,
so the page never depends on what else happens to be installed where the docs are built.
"""

from __future__ import annotations

from importlib import metadata
from typing import Any

PAGE = "settings-reference.md"


def builtin_settings_reference() -> str:
    """The Markdown of the settings reference of every built-in tool."""
    from toolplug.config import HostConfig
    from toolplug.host import Host
    from toolplug.plugins import ENTRY_POINT_GROUP
    from toolplug.settings_docs import settings_reference, settings_reference_markdown

    builtin = [
        entry_point
        for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP)
        if entry_point.dist is not None and entry_point.dist.metadata["Name"] == "toolplug"
    ]
    host = Host(HostConfig(), entry_points=builtin, strict=True)
    intro = (
        "!!! note\n"
        "    This page is generated from the definitions of toolplug's built-in tools when the docs are built.\n"
        "    For the tools installed on your machine, plugins included, run `toolplug settings docs`.\n\n"
    )
    markdown = settings_reference_markdown(settings_reference(host))
    title, _, rest = markdown.partition("\n")
    return f"{title}\n\n{intro}{rest.lstrip()}"


def on_files(files: Any, config: Any) -> Any:
    """Add the generated page to the site."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, PAGE, content=builtin_settings_reference()))
    return files
