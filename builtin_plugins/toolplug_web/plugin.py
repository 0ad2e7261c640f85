"""The entry point of the built-in web plugin: web_search, read_web_page, web_fetch and the built-in filter.

The tool modules (and httpx2 under them) are imported when the host asks for the tools, not when the
plugin is loaded, so commands that never build a host (``toolplug --help``) stay fast.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import toolplug

if TYPE_CHECKING:
    from toolplug.guard import InjectionFilter


@toolplug.hookimpl
def register_tools() -> Sequence[toolplug.ToolImplementation]:
    """web_search, read_web_page and web_fetch."""
    from toolplug_web.tools import ReadWebPageTool, WebFetchTool, WebSearchTool

    return [WebSearchTool(), ReadWebPageTool(), WebFetchTool()]


@toolplug.hookimpl
def register_option_sources() -> Sequence[toolplug.OptionSource]:
    """The languages web_search can ask SearXNG for."""
    from toolplug_web.tools import SEARCH_LANGUAGES

    return [SEARCH_LANGUAGES]


@toolplug.hookimpl
def register_injection_filters() -> Sequence[InjectionFilter]:
    """The built-in prompt-injection filter."""
    from toolplug.builtin_filter import BuiltinInjectionFilter

    return [BuiltinInjectionFilter()]
