"""The MCP client transports against real SDK servers: stdio, Streamable HTTP and legacy HTTP+SSE."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _mcp_servers import PYTHON, WEATHER_SERVER, RestartableServer, restartable, weather_http
from test_mcp_recovery import lost_session_server

from toolplug_mcp.client import McpClient
from toolplug_mcp.errors import MCPClientError, MCPTimeoutError
from toolplug_mcp.transports import McpTransport, SseTransport, StdioTransport, StreamableHttpTransport

HANDSHAKE_VERSION = "2025-11-25"


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """One weather server over HTTP for the module; sessions end after 0.4 s idle."""
    with weather_http(idle=0.4) as url:
        yield url


def make(kind: str, base: str) -> McpTransport:
    if kind == "stdio":
        return StdioTransport("weather", PYTHON, [WEATHER_SERVER, "stdio"])
    if kind == "http":
        return StreamableHttpTransport("weather", f"{base}/mcp")
    return SseTransport("weather", f"{base}/sse")


@pytest.mark.parametrize("kind", ["stdio", "http", "sse"])
def test_each_transport_starts_sends_calls_back_and_closes(kind: str, http_url: str) -> None:
    # REQ: MCP-1 — start, send, close, on_message/on_close, the negotiated protocol version
    async def scenario() -> tuple[list[dict[str, Any]], int, str | None]:
        transport = make(kind, http_url)
        received: list[dict[str, Any]] = []
        closes: list[bool] = []
        answered = asyncio.Event()

        def on_message(message: dict[str, Any]) -> None:
            received.append(message)
            answered.set()

        transport.on_message = on_message
        transport.on_error = lambda error: pytest.fail(f"unexpected transport error: {error}")
        transport.on_close = lambda: closes.append(True)
        await asyncio.wait_for(transport.start(), 20)
        init = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": HANDSHAKE_VERSION, "capabilities": {},
                       "clientInfo": {"name": "test", "version": "0"}},
        }
        await transport.send(init)
        await asyncio.wait_for(answered.wait(), 20)
        transport.protocol_version = received[0]["result"]["protocolVersion"]
        await transport.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        answered.clear()
        await transport.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                              "params": {"name": "echo", "arguments": {"text": "hi"}}})
        await asyncio.wait_for(answered.wait(), 20)
        await transport.close()
        await transport.close()  # closing twice is harmless; on_close runs once
        return received, len(closes), transport.protocol_version

    received, closes, version = asyncio.run(scenario())
    assert received[0]["id"] == 1 and version == HANDSHAKE_VERSION
    assert received[1] == {"jsonrpc": "2.0", "id": 2, "result": {"content": [{"type": "text", "text": "hi"}],
                                                                   "isError": False}}
    assert closes == 1


@pytest.mark.parametrize("kind", ["http", "sse"])
def test_the_client_negotiates_the_protocol_version_lists_and_calls(kind: str, http_url: str) -> None:
    # REQ: MCP-1
    async def scenario() -> tuple[str | None, list[str], dict[str, Any]]:
        client = McpClient(make(kind, http_url), server="weather", timeout=20)
        await client.connect()
        try:
            tools = await client.list_tools()
            result = await client.call_tool("weather", {"city": "Oslo"})
            return client.protocol_version, [t["name"] for t in tools.tools], result
        finally:
            await client.close()

    version, names, result = asyncio.run(scenario())
    assert version == HANDSHAKE_VERSION
    assert {"echo", "weather", "parts", "Get-Forecast"} <= set(names)
    assert result["structuredContent"] == {"city": "Oslo", "temp_c": 21.5}


def test_a_405_on_the_sse_stream_raises_with_status_url_body_and_the_http_hint(http_url: str) -> None:
    # REQ: MCP-2
    transport = SseTransport("legacy", f"{http_url}/sse-405")
    with pytest.raises(MCPClientError) as caught:
        asyncio.run(transport.start())
    error = caught.value
    assert (error.status_code, error.url) == (405, f"{http_url}/sse-405")
    assert error.response_body == "Method Not Allowed: this is a Streamable HTTP endpoint"
    assert str(error).startswith(
        "MCP SSE Transport Error: 405 Method Not Allowed: Method Not Allowed: this is a Streamable HTTP endpoint"
    )
    assert 'transport = "http"' in str(error)


def test_a_500_from_a_streamable_http_endpoint_raises_with_status_url_and_body(http_url: str) -> None:
    # REQ: MCP-2
    client = McpClient(StreamableHttpTransport("broken", f"{http_url}/mcp-500"), server="broken", timeout=10)
    with pytest.raises(MCPClientError) as caught:
        asyncio.run(client.connect())
    error = caught.value
    assert (error.status_code, error.url) == (500, f"{http_url}/mcp-500")
    assert error.response_body == "internal failure: database offline"
    assert "(HTTP 500 Internal Server Error): internal failure: database offline" in str(error)


def test_a_failing_post_to_the_sse_endpoint_raises_the_seeds_message(http_url: str) -> None:
    # REQ: MCP-2 — the failure reaches the send that caused it, not a log line and a timeout
    client = McpClient(SseTransport("legacy", f"{http_url}/sse-failing-endpoint"), server="legacy", timeout=10)
    started = time.monotonic()
    with pytest.raises(MCPClientError) as caught:
        asyncio.run(client.connect())
    error = caught.value
    assert time.monotonic() - started < 5
    assert str(error) == "MCP SSE Transport Error: POSTing to endpoint (HTTP 500): internal failure: database offline"
    assert (error.status_code, error.url) == (500, f"{http_url}/fail-post")


def test_an_sse_endpoint_on_another_origin_is_refused(http_url: str) -> None:
    # REQ: MCP-2 — the endpoint event must stay on the event stream's origin
    transport = SseTransport("legacy", f"{http_url}/sse-other-origin")
    with pytest.raises(MCPClientError, match="not on the origin of the event stream") as caught:
        asyncio.run(transport.start())
    port = int(http_url.rsplit(":", 1)[1])
    assert caught.value.url == f"http://127.0.0.1:{port + 1}/messages/?session_id=abc"
    assert transport.endpoint is None and transport.closed


def test_a_session_the_server_ended_is_reinitialised_once_transparently() -> None:
    # REQ: MCP-1 REQ: MCP-6 — a restarted server knows no session and answers 404
    async def scenario(server: RestartableServer) -> tuple[str | None, str | None, str, str]:
        transport = StreamableHttpTransport("changing", f"http://127.0.0.1:{server.port}/mcp")
        client = McpClient(transport, server="changing", timeout=20)
        await client.connect()
        try:
            before = (await client.call_tool("whoami", {}))["content"][0]["text"]
            first = transport.session_id
            await asyncio.to_thread(server.restart)
            after = (await client.call_tool("whoami", {}))["content"][0]["text"]
            return first, transport.session_id, before, after
        finally:
            await client.close()

    with restartable() as server:
        first, second, before, after = asyncio.run(scenario(server))
    assert first and second and first != second
    assert before != after  # the second answer came from the new process


def test_a_session_that_keeps_ending_is_reinitialised_only_once() -> None:
    # REQ: MCP-1 — an injected transport: initialize works, every later request gets 404
    mock, initializations = lost_session_server(404, "Session not found")

    async def scenario() -> None:
        transport = StreamableHttpTransport("flaky", "http://flaky.test/mcp", transport=mock)
        client = McpClient(transport, server="flaky", timeout=5)
        await client.connect()
        try:
            await client.list_tools()
        finally:
            await client.close()

    with pytest.raises(MCPClientError) as caught:
        asyncio.run(scenario())
    assert caught.value.status_code == 404 and caught.value.response_body == "Session not found"
    assert len(initializations) == 2


def test_an_http_server_that_dies_mid_call_fails_the_call() -> None:
    # REQ: MCP-1
    async def scenario(url: str) -> None:
        client = McpClient(StreamableHttpTransport("weather", f"{url}/mcp"), server="weather", timeout=20)
        await client.connect()
        try:
            with pytest.raises(MCPClientError, match="Cannot reach MCP server 'weather'"):
                await client.call_tool("crash", {}, timeout=30)
        finally:
            await client.close()

    with weather_http() as url:
        asyncio.run(scenario(url))


def test_a_call_the_server_never_answers_times_out(http_url: str) -> None:
    # REQ: MCP-1 — a timeout per call
    async def scenario() -> float:
        client = McpClient(StreamableHttpTransport("weather", f"{http_url}/mcp"), server="weather", timeout=20)
        await client.connect()
        started = time.monotonic()
        try:
            with pytest.raises(MCPTimeoutError, match=r"did not answer tools/call within 0.5 seconds"):
                await client.call_tool("sleep", {"seconds": 30}, timeout=0.5)
            # the connection is still usable afterwards
            assert (await client.call_tool("echo", {"text": "still here"}))["content"][0]["text"] == "still here"
        finally:
            await client.close()
        return time.monotonic() - started

    assert asyncio.run(scenario()) < 5


def test_a_server_that_never_answers_the_handshake_times_out() -> None:
    # REQ: MCP-1 — a timeout per server
    silent = StdioTransport("silent", PYTHON, ["-c", "import sys; sys.stdin.read()"])  # reads, never answers
    client = McpClient(silent, server="silent", timeout=1.0)
    started = time.monotonic()
    with pytest.raises(MCPTimeoutError, match="did not start and initialize within 1 seconds"):
        asyncio.run(client.connect())
    assert time.monotonic() - started < 8
    assert silent.closed
