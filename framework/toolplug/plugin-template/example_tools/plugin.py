"""The plugin module: the entry point `example-tools` names this module, and toolplug calls its hooks."""

from __future__ import annotations

import toolplug

from example_tools.notes import REGIONS, SearchNotesTool
from example_tools.temperature import convert_temperature


@toolplug.hookimpl
def register_tools() -> list[toolplug.ToolImplementation]:
    """Every tool this plugin provides."""
    return [SearchNotesTool(), convert_temperature]


@toolplug.hookimpl
def register_option_sources() -> list[toolplug.OptionSource]:
    """The lists of choices this plugin's settings offer."""
    return [REGIONS]
