"""``toolplug web``: serve the chat page on 127.0.0.1 (Starlette and uvicorn, from the mcp extra)."""

from __future__ import annotations

import importlib.util
import sys
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    import socket

DEFAULT_PORT = 8766


def _check_dependencies() -> None:
    missing = [name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None]
    if missing:
        click.echo(
            f"Error: toolplug web needs {' and '.join(missing)}, which come with the mcp extra: "
            "pip install 'toolplug[mcp]'",
            err=True,
        )
        sys.exit(2)


def _bind(host: str, port: int) -> socket.socket:
    import socket  # here, not at import: every other command would pay for it at start-up

    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host.strip("[]"), port))
    except OSError as exc:
        sock.close()
        hint = " (another program uses it; choose another with --port, or --port 0 for a free one)"
        click.echo(f"Error: cannot listen on {host} port {port}: {exc.strerror or exc}{hint}", err=True)
        sys.exit(2)
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int, token: str) -> str:
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/?token={token}"


@click.command()
@click.option("--component", default="chat", show_default=True, help="The host component the chat runs as.")
@click.option("--provider", default=None, help="A provider id from the config (default: the first configured).")
@click.option("--port", default=DEFAULT_PORT, show_default=True, type=click.IntRange(0, 65535),
              help="The port; 0 picks a free one.")
@click.option("--host", "bind_host", default="127.0.0.1", show_default=True,
              help="The address to listen on. Anything but loopback lets other machines reach the chat.")
@click.option("--open", "open_browser", is_flag=True, help="Open the page in the default browser.")
@click.pass_context
def web(ctx: click.Context, component: str, provider: str | None, port: int, bind_host: str,
        open_browser: bool) -> None:
    """Serve a chat page that shows what the tools do: running calls, approvals, sources.

    The printed URL holds a random access token; every API call must carry it.
    """
    _check_dependencies()
    import uvicorn

    from toolplug.errors import ToolplugError, UsageError
    from toolplug.webui.app import create_app
    from toolplug.webui.chat import WebChat
    from toolplug.webui.security import AccessPolicy, is_loopback_bind, new_token

    try:
        host = ctx.find_root().obj.host  # the group's HostContext builds the host from --config
        chat = WebChat(host, component=component, provider_id=provider)
    except UsageError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    except ToolplugError as exc:
        click.echo(f"Error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(1)
    token = new_token()
    app = create_app(chat, policy=AccessPolicy.for_bind(bind_host, token))
    if not is_loopback_bind(bind_host):
        click.echo(
            f"Warning: --host {bind_host} lets other machines reach this chat. Anyone who has the URL below "
            "can run the tools as you; share it with no one.",
            err=True,
        )
    sock = _bind(bind_host, port)
    url = _url(bind_host, sock.getsockname()[1], token)
    provider_text = f"provider '{chat.provider_id}'" if chat.provider_id else "no provider configured"
    click.echo(f"toolplug web: the chat of component '{component}', {provider_text}.")
    click.echo("Open this URL (its token is the password; anyone with it can use the tools):")
    click.echo(f"    {url}")
    click.echo("Press Ctrl+C to stop.")
    sys.stdout.flush()
    if open_browser:
        import webbrowser  # only here: loading it costs every other command its start-up time

        webbrowser.open(url)  # the socket already listens: the browser's request waits for the server
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, lifespan="off", timeout_graceful_shutdown=2
    )
    uvicorn.Server(config).run(sockets=[sock])


__all__ = ["DEFAULT_PORT", "web"]
