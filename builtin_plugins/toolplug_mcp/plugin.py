"""The entry point of the built-in MCP plugin: the MCP definition source and ``toolplug serve``.

Importing this module imports neither the ``mcp`` SDK nor any transport: that happens only when
``[mcp.servers]`` names a server or ``toolplug serve`` runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import toolplug

if TYPE_CHECKING:
    import click

    from toolplug.host import Host


@toolplug.hookimpl
def register_definition_sources(host: Host) -> Sequence[Any]:
    """One definition source per enabled ``[mcp.servers.NAME]``; all servers start listing at once."""
    raw = host.config.mcp
    if not raw:
        return []
    from toolplug_mcp.config import parse_mcp_config

    config = parse_mcp_config(raw, source=host.config.source)
    servers = [server for server in config.servers.values() if server.enabled]
    if not servers:
        return []
    from toolplug_mcp.sdk import require_sdk

    require_sdk("The MCP servers in [mcp.servers]")
    from toolplug_mcp.source import McpDefinitionSource, open_connection

    sources = [McpDefinitionSource(open_connection(server), host) for server in servers]
    for source in sources:
        source.start()
    return sources


@toolplug.hookimpl
def register_commands(cli: click.Group) -> Sequence[Any]:
    """``toolplug serve`` and ``toolplug mcp pins``."""
    from toolplug_mcp.commands import mcp_group, serve

    cli.add_command(serve)
    cli.add_command(mcp_group)
    return [serve, mcp_group]
