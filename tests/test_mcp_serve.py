"""``toolplug serve`` in a subprocess, driven by the mcp SDK's own client over stdio and Streamable HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from _mcp_servers import free_port, stop, wait_for_port
from _plugin_fixtures import write_distribution

SERVE_PLUGIN = """
import toolplug
from toolplug.errors import ToolExecutionBlockedError

@toolplug.tool
def shout(text: str) -> str:
    '''Return the text in capitals.'''
    return text.upper()

@toolplug.tool
def guarded_lookup(key: str) -> str:
    '''Look something up the policy forbids.'''
    raise ToolExecutionBlockedError("Looking up internal keys is not allowed here.")

@toolplug.tool
def explode() -> str:
    '''Always fails.'''
    raise RuntimeError("disk on fire")

@toolplug.tool(visible_in=toolplug.Visibility(allowed_components=("assistants",)))
def assistants_only() -> str:
    '''Only for assistants.'''
    return "hidden in chat"

@toolplug.hookimpl
def register_tools():
    return [shout, guarded_lookup, explode, assistants_only]
"""

CONFIG = """
[plugins]
deny = ["web"]
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A third-party plugin installed as a distribution on PYTHONPATH, a host config and the environment."""
    root = tmp_path_factory.mktemp("serve")
    site = root / "site"
    site.mkdir()
    write_distribution(site, "serve-fixture", "1.0", {"servefix": "servefix_plugin"}, {"servefix_plugin": SERVE_PLUGIN})
    config = root / "host.toml"
    config.write_text(CONFIG, encoding="utf-8")
    paths = [str(site), *(p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p)]
    return {
        "PYTHONPATH": os.pathsep.join(paths),
        "TOOLPLUG_CONFIG": str(config),
        "TOOLPLUG_SETTINGS_DIR": str(root / "settings"),
        "TRACE_FILE": str(root / "traces.jsonl"),
    }


def serve_command(*options: str) -> list[str]:
    return [sys.executable, "-m", "toolplug.cli", "serve", *options]


async def exercise(session: Any) -> dict[str, Any]:
    """List and call through the SDK's ClientSession; return what came back."""
    await session.initialize()
    listed = await session.list_tools()
    shout = await session.call_tool("shout", {"text": "hello"})
    blocked = await session.call_tool("guarded_lookup", {"key": "root"})
    failed = await session.call_tool("explode", {})
    invalid = await session.call_tool("shout", {"text": 7})
    unknown = await session.call_tool("assistants_only", {})
    return {
        "tools": sorted(tool.name for tool in listed.tools),
        "schema": next(t.input_schema for t in listed.tools if t.name == "shout"),
        "calls": {
            name: (result.is_error, [block.text for block in result.content])
            for name, result in {
                "shout": shout, "blocked": blocked, "failed": failed, "invalid": invalid, "unknown": unknown,
            }.items()
        },
    }


def check(answer: dict[str, Any], trace_file: str) -> None:
    assert answer["tools"] == ["explode", "guarded_lookup", "shout"]  # the selector's runnable tools of 'chat'
    assert answer["schema"]["required"] == ["text"]
    calls = answer["calls"]
    assert calls["shout"] == (False, ["HELLO"])
    assert calls["blocked"] == (True, ["Looking up internal keys is not allowed here."])
    assert calls["failed"] == (True, ["Tool execution failed: disk on fire"])
    assert calls["invalid"][0] is True and calls["invalid"][1][0].startswith("InvalidToolInputError: ")
    assert calls["unknown"][0] is True and "not available here" in calls["unknown"][1][0]
    traces = [json.loads(line) for line in Path(trace_file).read_text(encoding="utf-8").splitlines()]
    assert [(t["tool_id"], t["status"]) for t in traces][-3:] == [
        ("shout", "ok"), ("guarded_lookup", "blocked"), ("explode", "error"),
    ]


def test_serve_over_stdio_lists_and_calls_through_the_host(workspace: dict[str, str]) -> None:
    # REQ: MCP-5 — the SDK's client starts `toolplug serve` and drives it over stdio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    trace_file = workspace["TRACE_FILE"] + ".stdio"
    env = {key: value for key, value in workspace.items() if key != "TRACE_FILE"}
    parameters = StdioServerParameters(
        command=sys.executable,
        args=serve_command("--trace-file", trace_file)[1:],
        env=env,
    )

    async def scenario() -> dict[str, Any]:
        with tempfile.TemporaryFile("w+") as errlog:
            async with AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(stdio_client(parameters, errlog=errlog))
                session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=30))
                return await asyncio.wait_for(exercise(session), 60)

    check(asyncio.run(scenario()), trace_file)


@pytest.fixture
def http_serve(workspace: dict[str, str]) -> Iterator[tuple[str, str]]:
    port = free_port()
    trace_file = workspace["TRACE_FILE"] + ".http"
    env = {**os.environ, **{k: v for k, v in workspace.items() if k != "TRACE_FILE"}}
    command = serve_command("--transport", "http", "--port", str(port), "--trace-file", trace_file)
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, process, 30)
        yield f"http://127.0.0.1:{port}/mcp", trace_file
    finally:
        stop(process)


def listening_addresses(port: int) -> set[str]:
    """The local addresses a socket listens on at ``port``, read from the kernel's table (Linux)."""
    found: set[str] = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        try:
            rows = Path(table).read_text(encoding="ascii").splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            local, state = row.split()[1], row.split()[3]
            address, _, hex_port = local.partition(":")
            if state == "0A" and int(hex_port, 16) == port and len(address) == width:  # 0A: LISTEN
                raw = bytes.fromhex(address)
                words = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))  # each word is little-endian
                found.add(socket.inet_ntop(socket.AF_INET if width == 8 else socket.AF_INET6, words))
    return found


def test_serve_over_streamable_http_binds_only_127_0_0_1_by_default(http_serve: tuple[str, str]) -> None:
    # REQ: MCP-5 — the kernel's own table says where `toolplug serve` listens
    if not Path("/proc/net/tcp").exists():
        pytest.skip("reading the listening sockets needs Linux's /proc/net/tcp")
    port = int(http_serve[0].rsplit(":", 1)[1].split("/", 1)[0])
    assert listening_addresses(port) == {"127.0.0.1"}


def test_serve_over_streamable_http_lists_and_calls_through_the_host(http_serve: tuple[str, str]) -> None:
    # REQ: MCP-5 — the SDK's Streamable HTTP client drives it
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url, trace_file = http_serve

    async def scenario() -> dict[str, Any]:
        async with AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(streamable_http_client(url))
            session = await stack.enter_async_context(ClientSession(read, write, read_timeout_seconds=30))
            return await asyncio.wait_for(exercise(session), 60)

    check(asyncio.run(scenario()), trace_file)


def test_serve_with_an_unknown_component_is_bad_usage(workspace: dict[str, str]) -> None:
    # REQ: MCP-5
    env = {**os.environ, **{k: v for k, v in workspace.items() if k != "TRACE_FILE"}}
    completed = subprocess.run(
        serve_command("--component", "nowhere"), env=env, capture_output=True, text=True, timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 2
    assert "Unknown component 'nowhere'" in completed.stderr
