"""toolplug against @modelcontextprotocol/server-everything, the reference servers' test server, from npm.

The package is installed once into a cache folder (``$TOOLPLUG_TEST_CACHE``, else ``~/.cache/toolplug-tests``)
with npm, and run with node on 127.0.0.1 (a preloaded script binds every server it starts to loopback).
Without npm or node, or when the install fails, these tests are skipped with the reason.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from _mcp_servers import HERE, RestartableServer, free_port

from toolplug.config import parse_config
from toolplug.execution import CallStatus
from toolplug.host import Host
from toolplug_mcp.source import close_all_connections

PACKAGE = "@modelcontextprotocol/server-everything"
VERSION = "2026.8.31"
INSTALL_SECONDS = 300
BIND_LOOPBACK = str(HERE / "bind_loopback.cjs")


def cache_root() -> Path:
    configured = os.environ.get("TOOLPLUG_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "toolplug-tests"


def install() -> Path:
    """The server's entry script, installed with npm on first use; skips the tests when that cannot be."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("server-everything needs node and npm, which are not installed")
    target = cache_root() / f"server-everything-{VERSION}"
    entry = target / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    if entry.exists():
        return entry
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="server-everything-", dir=target.parent))
    command = [npm, "install", "--prefix", str(staging), "--no-audit", "--no-fund", "--ignore-scripts",
               "--loglevel", "error", f"{PACKAGE}@{VERSION}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=INSTALL_SECONDS,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.skip(f"npm install {PACKAGE}@{VERSION} took more than {INSTALL_SECONDS} s")
    if done.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        pytest.skip(f"npm install {PACKAGE}@{VERSION} failed: {done.stderr.strip()[-500:]}")
    if not target.exists():
        staging.rename(target)  # whole or not at all: a broken install is never reused
    else:
        shutil.rmtree(staging, ignore_errors=True)
    return entry


@pytest.fixture(scope="module")
def entry() -> Path:
    return install()


def everything(entry: Path, transport: str) -> RestartableServer:
    port = free_port()
    command = [str(shutil.which("node")), "--require", BIND_LOOPBACK, str(entry), transport]
    return RestartableServer(command, port, env={**os.environ, "PORT": str(port)})


def running(entry: Path, transport: str) -> Iterator[RestartableServer]:
    """server-everything over ``transport``, started for one test and stopped after it."""
    server = everything(entry, transport)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def streamable(entry: Path) -> Iterator[RestartableServer]:
    yield from running(entry, "streamableHttp")


@pytest.fixture
def sse(entry: Path) -> Iterator[RestartableServer]:
    yield from running(entry, "sse")


@pytest.fixture
def settings(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    close_all_connections()


def host_for(settings: Path, table: dict[str, Any]) -> Host:
    return Host(parse_config({"mcp": {"servers": {"everything": {"timeout": 30, **table}}}}), settings_dir=settings)


def call(host: Host, tool_id: str, arguments: dict[str, Any] | None = None) -> Any:
    return asyncio.run(host.call_tool(tool_id, arguments or {}))


def test_server_everything_over_streamable_http_lists_and_calls(streamable: RestartableServer, settings: Path) -> None:
    # REQ: MCP-1 REQ: MCP-3 REQ: MCP-6 — configured as other clients write it
    host = host_for(settings, {"transport": "streamable-http", "url": f"http://127.0.0.1:{streamable.port}/mcp"})
    assert {"everything_echo", "everything_get_sum", "everything_get_annotated_message"} <= set(host.registry.ids())
    outcome = call(host, "everything_echo", {"message": "hi"})
    assert outcome.status is CallStatus.OK and outcome.result.content == [{"type": "text", "text": "Echo: hi"}]


def test_server_everything_answers_400_after_a_restart_and_the_host_goes_on(
    streamable: RestartableServer, settings: Path
) -> None:
    # REQ: MCP-6 — the lost session comes back as HTTP 400 "No valid session ID provided"
    url = f"http://127.0.0.1:{streamable.port}/mcp"
    host = host_for(settings, {"url": url})
    assert call(host, "everything_echo", {"message": "before"}).status is CallStatus.OK
    streamable.restart()
    stale = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                        headers={"mcp-session-id": "a-session-the-new-process-never-saw",
                                 "accept": "application/json, text/event-stream"})
    assert stale.status_code == 400 and "session" in stale.text.lower()  # what the old session meets
    outcome = call(host, "everything_echo", {"message": "after"})
    assert outcome.status is CallStatus.OK and outcome.result.content == [{"type": "text", "text": "Echo: after"}]


def test_server_everything_content_for_the_user_only_stays_with_the_host(
    streamable: RestartableServer, settings: Path
) -> None:
    # REQ: MCP-6 REQ: MCP-4 — its "success" message and image are for the user; priorities are kept
    host = host_for(settings, {"url": f"http://127.0.0.1:{streamable.port}/mcp"})
    result = call(host, "everything_get_annotated_message", {"messageType": "success", "includeImage": True}).result
    assert "Operation completed successfully" not in result.model_text()
    assert result.display_content[0] == {"type": "text", "text": "Operation completed successfully"}
    assert result.display_content[1]["type"] == "file" and result.display_content[1]["media_type"] == "image/png"
    assert {"part": "display_content", "index": 0, "audience": ["user"], "priority": 0.7} in (
        result.metadata["mcp"]["annotations"]
    )


def test_server_everything_over_legacy_sse_survives_a_restart(sse: RestartableServer, settings: Path) -> None:
    # REQ: MCP-1 REQ: MCP-6 — the event stream drops with the process; a new one is opened for the next call
    host = host_for(settings, {"transport": "sse", "url": f"http://127.0.0.1:{sse.port}/sse"})
    assert call(host, "everything_get_sum", {"a": 2, "b": 3}).status is CallStatus.OK
    sse.restart()
    outcome = call(host, "everything_echo", {"message": "again"})
    assert outcome.status is CallStatus.OK and outcome.result.content == [{"type": "text", "text": "Echo: again"}]


def test_server_everything_over_stdio_from_a_command_list(entry: Path, settings: Path) -> None:
    # REQ: MCP-6 — command = ["node", "index.js", "stdio"], as other clients write it
    host = host_for(settings, {"command": [str(shutil.which("node")), str(entry), "stdio"]})
    outcome = call(host, "everything_echo", {"message": "piped"})
    assert outcome.status is CallStatus.OK and outcome.result.content == [{"type": "text", "text": "Echo: piped"}]
