"""The MCP plugin's commands: ``toolplug serve`` and ``toolplug mcp pins``."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import click

from toolplug.cli import handles_errors
from toolplug.errors import UsageError
from toolplug_mcp.defaults import DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT


@click.command()
@click.option("--component", default="chat", show_default=True, help="The host component whose tools are offered.")
@click.option(
    "--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True,
    help="stdio (for a client that starts toolplug) or Streamable HTTP.",
)
@click.option("--host", "bind_host", default=DEFAULT_HTTP_HOST, show_default=True, help="The address HTTP binds to.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_HTTP_PORT, show_default=True)
@click.option("--provider", default=None, help="Serve as if this provider's model calls (its confidence applies).")
@click.option(
    "--trace-file", type=click.Path(dir_okay=False), default=None,
    help="Append the trace of every call to this file, one JSON object a line.",
)
@click.pass_obj
@handles_errors
def serve(
    state: Any,
    component: str,
    transport: str,
    bind_host: str,
    port: int,
    provider: str | None,
    trace_file: str | None,
) -> None:
    """Offer the runnable tools of a component as an MCP server (stdio or Streamable HTTP)."""
    from toolplug_mcp.sdk import require_sdk

    require_sdk("toolplug serve")
    from toolplug_mcp.serve import ToolServer, serve_http, serve_stdio
    from toolplug_mcp.source import close_all_connections

    host = state.host
    lock = threading.Lock()

    def write_trace(trace: Any) -> None:
        if trace_file is None:
            return
        with lock, open(trace_file, "a", encoding="utf-8") as stream:
            stream.write(json.dumps(trace.as_dict(), ensure_ascii=False) + "\n")

    bridge = ToolServer(host, component, provider, on_trace=write_trace)
    try:
        import asyncio  # only when serving: --help stays light

        if transport == "stdio":
            asyncio.run(serve_stdio(bridge))
        else:
            asyncio.run(serve_http(bridge, bind_host, port))
    except KeyboardInterrupt:
        pass
    finally:
        close_all_connections()


@click.group("mcp")
def mcp_group() -> None:
    """MCP servers configured in [mcp.servers]."""


@mcp_group.command("pins")
@click.option("--server", "only", default=None, help="Only this server.")
@click.pass_obj
@handles_errors
def pins(state: Any, only: str | None) -> None:
    """Print the fingerprints of every MCP tool as [mcp.servers.*.pinned] tables, for the admin to approve."""
    from toolplug.config import load_config
    from toolplug_mcp.config import parse_mcp_config
    from toolplug_mcp.sdk import require_sdk
    from toolplug_mcp.source import McpDefinitionSource, close_all_connections, field_fingerprints, open_connection

    config = load_config(state.config_path)
    servers = parse_mcp_config(config.mcp, source=config.source).servers
    if only is not None and only not in servers:
        raise UsageError(f"No MCP server {only!r} in [mcp.servers] (configured: {', '.join(servers) or 'none'}).")
    require_sdk("toolplug mcp pins")
    sources = [
        McpDefinitionSource(open_connection(server), None, check_pins=False)
        for name, server in servers.items()
        if only is None or name == only
    ]
    for source in sources:
        source.start()
    failed = False
    try:
        for source in sources:
            click.echo(f"[mcp.servers.{source.connection.name}.pinned]")
            try:
                definitions = source.server_definitions()  # as the server sent them: what a pin approves
            except Exception as exc:
                click.echo(f"# cannot list the tools: {exc}")
                failed = True
                continue
            for definition in definitions:
                fields = ", ".join(f"{k} = {json.dumps(v)}" for k, v in field_fingerprints(definition).items())
                name = json.dumps(definition.metadata["mcp"]["tool"])  # pins are keyed by the server's name
                fingerprint = json.dumps(definition.fingerprint())
                click.echo(f"{name} = {{ fingerprint = {fingerprint}, fields = {{ {fields} }} }}")
            click.echo("")
    finally:
        close_all_connections()
    sys.exit(1 if failed else 0)
