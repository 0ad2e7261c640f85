"""The plugin API: every hook a toolplug plugin may implement.

A plugin is a module (or object) named by an entry point in the group ``toolplug``; the entry
point's name is the plugin's name, the one admins allow or deny. Implement a hook by defining a
function of the same name decorated with :data:`toolplug.hookimpl`. An implementation may accept any
subset of the documented arguments, so adding an argument later never breaks a plugin.

Every hook returns a list; the host calls each plugin's implementation on its own, checks what it
returned, and blames the right plugin when something is wrong. None of the hooks stops at the first
result. The reference with an example for each hook is ``docs/hooks.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import click

    from toolplug.guard import InjectionFilter
    from toolplug.host import Host
    from toolplug.providers.base import ProviderAdapterFactory
    from toolplug.registry import DefinitionSource
    from toolplug.settings import OptionSource
    from toolplug.tools import ToolImplementation

PROJECT_NAME = "toolplug"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# --- tools and where their definitions come from --------------------------------------------------


@hookspec
def register_tools() -> Sequence[ToolImplementation]:  # type: ignore[empty-body]
    """Return the tool implementations this plugin provides.

    A code tool returns its own definition from ``definition()``; an implementation whose
    definitions arrive through a definition source returns None there and is joined to them by
    ``implementation_key``.

    :returns: a list of :class:`toolplug.ToolImplementation` instances.

    Since 0.1.
    """


@hookspec
def register_definition_sources(host: Host) -> Sequence[DefinitionSource]:  # type: ignore[empty-body]
    """Return definition sources: objects bringing tool definitions from data (files, MCP servers).

    :param host: the host being built; read ``host.config`` for the plugin's own settings
        (for example ``host.config.mcp``). The registry does not exist yet.
    :returns: a list of objects following :class:`toolplug.DefinitionSource`.

    Since 0.1.
    """


# --- providers -------------------------------------------------------------------------------------


@hookspec
def register_provider_adapters() -> Sequence[ProviderAdapterFactory]:  # type: ignore[empty-body]
    """Return factories of provider adapters, each for one API name.

    The built-in APIs are ``openai-chat``, ``openai-responses`` and ``anthropic``; a plugin adds its
    own API name and a provider in the host config may then use ``api = "<name>"``.

    :returns: a list of :class:`toolplug.providers.ProviderAdapterFactory`.

    Since 0.1.
    """


# --- settings --------------------------------------------------------------------------------------


@hookspec
def register_option_sources() -> Sequence[OptionSource]:  # type: ignore[empty-body]
    """Return named lists of choices for settings declared with ``required_choice``/``optional_choice``.

    :returns: a list of :class:`toolplug.OptionSource` (a name and its options with display names).

    Since 0.1.
    """


# --- content safety --------------------------------------------------------------------------------


@hookspec
def register_injection_filters() -> Sequence[InjectionFilter]:  # type: ignore[empty-body]
    """Return prompt-injection filters the guard runs over fetched content before a model sees it.

    A filter never rejects content; it returns the texts neutralised and what it found. A filter
    that raises or times out lets the text through unchanged and the user is warned.

    :returns: a list of objects following :class:`toolplug.guard.InjectionFilter`.

    Since 0.1.
    """


# --- the command line ------------------------------------------------------------------------------


@hookspec
def register_commands(cli: click.Group) -> Sequence[Any] | None:
    """Add commands to the ``toolplug`` command line.

    :param cli: a :class:`click.Group` of this plugin's own; call ``cli.add_command(...)`` or use
        ``@cli.command()``. Its commands join the root command line; a name a built-in command or an
        earlier plugin's command has is left out with a warning.
    :returns: nothing (None), or the commands added.

    Since 0.1.
    """


HOOK_NAMES: tuple[str, ...] = (
    "register_tools",
    "register_definition_sources",
    "register_provider_adapters",
    "register_option_sources",
    "register_injection_filters",
    "register_commands",
)
"""Every hook. The host calls them in this order: register_tools, register_option_sources,
register_injection_filters, register_provider_adapters, register_definition_sources; the command
line calls register_commands. Each hook is called on the built-in plugins first, then on the others by
name, and that order decides every conflict between plugins."""
