"""The MCP client: the JSON-RPC conversation with one server over any :mod:`toolplug_mcp.transports` transport.

It runs the ``initialize`` handshake (offering the newest handshake version the installed SDK knows
and accepting any it supports), lists tools page by page and calls them, each request bounded by a
timeout. It answers ``ping``; requests for client features toolplug does not offer (sampling,
elicitation, roots) are refused with a JSON-RPC error, since the client never advertises them.

Why not the SDK's ``ClientSession``: it hands transport failures to a message handler and leaves the
request that caused them waiting for its timeout, while toolplug must fail that very call at once with
the transport's :class:`MCPClientError`, fail every pending call when a server exits mid-call, and
re-initialise a session the server lost (an HTTP server that restarted answers 404, or 400 naming
the session; a connection or event stream that dropped), then repeat the request once. The message
shapes are still the SDK's: results are validated with ``mcp_types`` models, one tool at a time, so
one malformed tool never hides the server's others.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from toolplug_mcp.errors import MCPClientError, MCPConnectionClosedError, MCPServerError, MCPTimeoutError
from toolplug_mcp.transports import McpTransport, SessionLostError

logger = logging.getLogger("toolplug.mcp")

MAX_TOOL_PAGES = 100
METHOD_NOT_FOUND = -32601
CLIENT_NAME = "toolplug"


@dataclass(slots=True)
class ToolListing:
    """A server's tools: the well-formed ones as it sent them, and why each other one was left out."""

    tools: list[dict[str, Any]] = field(default_factory=list)
    malformed: list[tuple[str | None, str]] = field(default_factory=list)
    """``(name or None, what is wrong)`` for each tool that does not fit the MCP ``Tool`` shape."""


class McpClient:
    """One initialised connection to an MCP server.

    :param transport: a transport that has not been started.
    :param server: the server's name in the config, for messages.
    :param timeout: seconds for connecting and for each request unless a call says otherwise.
    """

    def __init__(self, transport: McpTransport, *, server: str, timeout: float = 30.0) -> None:
        self.transport = transport
        self.server = server
        self.timeout = timeout
        self.server_info: dict[str, Any] = {}
        self.capabilities: dict[str, Any] = {}
        self.instructions: str | None = None
        self.tools_changed = False
        """Set when the server announced that its tool list changed."""
        self.on_tools_changed: Callable[[], None] | None = None
        """Called (on the client's loop) when the tools may have changed: ``list_changed``, a new session."""
        self.refused_requests: list[str] = []
        """Methods the server asked of the client that toolplug refused (e.g. ``sampling/createMessage``)."""
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._closed = False
        self._session_generation = 0
        self._session_lost = False
        self._reinit_lock = asyncio.Lock()
        self._background: set[asyncio.Task[None]] = set()
        transport.on_message = self._on_message
        transport.on_error = self._on_error
        transport.on_close = self._on_close

    @property
    def protocol_version(self) -> str | None:
        """The protocol version negotiated with the server."""
        return self.transport.protocol_version

    @property
    def closed(self) -> bool:
        """True once the connection has ended for good (an HTTP transport's lost session is renewed)."""
        return self._closed or (self.transport.closed and not self.transport.reconnectable)

    # -- the conversation ------------------------------------------------------------------------------

    async def connect(self) -> None:
        """Start the transport and run the handshake, within the client's timeout."""
        try:
            async with asyncio.timeout(self.timeout):
                await self.transport.start()
                await self._initialize()
        except TimeoutError:
            await self.close()
            raise MCPTimeoutError(
                f"MCP server {self.server!r} did not start and initialize within {self.timeout:g} seconds"
                f"{self.transport.close_detail()}",
                server=self.server,
            ) from None
        except BaseException:
            await self.close()
            raise

    async def list_tools(self, *, timeout: float | None = None) -> ToolListing:
        """Every tool of the server, each validated on its own against the SDK's ``Tool`` model."""
        from mcp_types import ListToolsResult

        listing = ToolListing()
        cursor: str | None = None
        self.tools_changed = False
        for _ in range(MAX_TOOL_PAGES):
            params = {"cursor": cursor} if cursor else {}
            raw = await self.request("tools/list", params, timeout=timeout)
            tools = raw.get("tools") if isinstance(raw, dict) else None
            if not isinstance(tools, list):
                raise MCPClientError(f"MCP server {self.server!r} answered tools/list without a tools list",
                                     server=self.server)
            ListToolsResult.model_validate({**raw, "tools": []}, by_name=False)
            for tool in tools:
                _sort_tool(tool, listing)
            cursor = raw.get("nextCursor")
            if not cursor:
                break
        return listing

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        """Call one tool; returns the call-tool result as JSON (``content``, ``structuredContent``, ``isError``)."""
        from mcp_types import CallToolResult

        raw = await self.request("tools/call", {"name": name, "arguments": arguments or {}}, timeout=timeout)
        if raw.get("resultType") == "input_required" or "inputRequests" in raw:
            raise MCPClientError(
                f"MCP tool {name!r} of server {self.server!r} asked for input from the user or a model "
                "(elicitation or sampling), which toolplug does not offer",
                server=self.server,
            )
        CallToolResult.model_validate(raw, by_name=False)
        return dict(raw)

    async def ping(self, *, timeout: float | None = None) -> None:
        """Check that the server answers."""
        await self.request("ping", None, timeout=timeout)

    async def close(self) -> None:
        """End the connection; pending requests fail with MCPConnectionClosedError."""
        self._closed = True
        with contextlib.suppress(Exception):
            await self.transport.close()
        self._fail_pending(MCPConnectionClosedError(f"MCP connection to {self.server!r} closed", server=self.server))
        for task in list(self._background):
            task.cancel()

    # -- requests ----------------------------------------------------------------------------------------

    async def request(self, method: str, params: dict[str, Any] | None, *, timeout: float | None = None) -> Any:
        """Send a request and return its result; a session the server lost is re-initialised once."""
        generation = self._session_generation
        if self._session_lost or (self.transport.closed and self.transport.reconnectable and not self._closed):
            await self._reinitialize(generation)  # lost earlier (a re-initialisation failed, the stream ended)
            generation = self._session_generation
        try:
            return await self._request_once(method, params, timeout)
        except SessionLostError as lost:
            if self._closed or not self.transport.reconnectable:
                raise
            logger.info("%s; initialising a new session and repeating %s", lost, method)
            await self._reinitialize(generation)
            return await self._request_once(method, params, timeout)

    async def _request_once(self, method: str, params: dict[str, Any] | None, timeout: float | None) -> Any:
        if self.closed:
            raise MCPConnectionClosedError(
                f"MCP server {self.server!r} is not connected{self.transport.close_detail()}", server=self.server
            )
        limit = self.timeout if timeout is None else timeout
        request_id = next(self._ids)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            async with asyncio.timeout(limit):
                await self.transport.send(message)
                response = await future
        except TimeoutError:
            self._cancel_remote(request_id, f"timed out after {limit:g} seconds")
            raise MCPTimeoutError(
                f"MCP server {self.server!r} did not answer {method} within {limit:g} seconds", server=self.server
            ) from None
        finally:
            self._pending.pop(request_id, None)
        error = response.get("error")
        if error is not None:
            code = error.get("code", 0) if isinstance(error, dict) else 0
            text = error.get("message", "") if isinstance(error, dict) else str(error)
            raise MCPServerError(
                f"MCP server {self.server!r} answered {method} with an error: {text} (code {code})",
                code=int(code) if isinstance(code, int) else 0,
                server=self.server,
            )
        return response.get("result", {})

    async def _initialize(self) -> None:
        from mcp_types import InitializeResult
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

        from toolplug_mcp import __version__

        params = {
            "protocolVersion": LATEST_HANDSHAKE_VERSION,
            "capabilities": {},  # no sampling, elicitation or roots: toolplug does not offer them
            "clientInfo": {"name": CLIENT_NAME, "version": __version__},
        }
        raw = await self._request_once("initialize", params, None)
        result = InitializeResult.model_validate(raw, by_name=False)
        if result.protocol_version not in HANDSHAKE_PROTOCOL_VERSIONS:
            raise MCPClientError(
                f"MCP server {self.server!r} speaks protocol version {result.protocol_version!r}; toolplug's MCP SDK "
                f"supports {', '.join(HANDSHAKE_PROTOCOL_VERSIONS)}",
                server=self.server,
            )
        self.transport.protocol_version = result.protocol_version
        self.server_info = dict(raw.get("serverInfo") or {})
        self.capabilities = dict(raw.get("capabilities") or {})
        self.instructions = raw.get("instructions")
        await self.transport.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    async def _reinitialize(self, generation: int) -> None:
        async with self._reinit_lock:
            if generation != self._session_generation and not self._session_lost:
                return  # another request already opened a new session
            self._session_lost = True  # until a new session is open: a failed attempt is tried again next time
            await self.transport.renew()
            await self._initialize()
            self._session_lost = False
            self._session_generation += 1
        self._tools_may_have_changed()  # the server may have changed while the session was lost

    def _tools_may_have_changed(self) -> None:
        self.tools_changed = True
        if self.on_tools_changed is not None:
            try:
                self.on_tools_changed()
            except Exception:  # a listener's failure must not break the connection
                logger.exception("MCP server %r: the tools-changed listener failed", self.server)

    def _cancel_remote(self, request_id: int, reason: str) -> None:
        if self.closed:
            return
        notice = {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": request_id, "reason": reason},
        }
        self._spawn(self._send_quietly(notice))

    async def _send_quietly(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(Exception):
            async with asyncio.timeout(5.0):
                await self.transport.send(message)

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.get_running_loop().create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- transport callbacks -------------------------------------------------------------------------

    def _on_message(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is not None:
            if "id" in message:
                self._answer_server_request(message)
            elif method == "notifications/tools/list_changed":
                self._tools_may_have_changed()
            elif method == "notifications/message":
                logger.info("MCP server %r: %s", self.server, (message.get("params") or {}).get("data"))
            return
        request_id = message.get("id")
        future = self._pending.get(request_id) if isinstance(request_id, int) else None
        if future is not None and not future.done():
            future.set_result(message)

    def _answer_server_request(self, message: dict[str, Any]) -> None:
        method = str(message.get("method"))
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"]}
        if method == "ping":
            reply["result"] = {}
        else:
            self.refused_requests.append(method)
            reply["error"] = {
                "code": METHOD_NOT_FOUND,
                "message": f"toolplug does not offer {method} (no sampling, elicitation or roots)",
            }
        self._spawn(self._send_quietly(reply))

    def _on_error(self, error: Exception) -> None:
        logger.warning("MCP server %r: %s", self.server, error)

    def _on_close(self) -> None:
        detail = self.transport.close_detail()
        message = f"MCP server {self.server!r} closed the connection{detail}"
        if self.transport.reconnectable and not self._closed:
            self._fail_pending(SessionLostError(message, server=self.server))  # the requests renew it and repeat
        else:
            self._fail_pending(MCPConnectionClosedError(message, server=self.server))

    def _fail_pending(self, error: MCPClientError) -> None:
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(error)
        self._pending.clear()


def _sort_tool(tool: Any, listing: ToolListing) -> None:
    """Put one listed tool among the well-formed ones or the malformed ones (with what is wrong)."""
    from mcp_types import Tool
    from pydantic import ValidationError

    name = tool.get("name") if isinstance(tool, dict) else None
    name = name if isinstance(name, str) and name else None
    if not isinstance(tool, dict):
        listing.malformed.append((None, f"a tool must be a JSON object, not {type(tool).__name__}"))
        return
    try:
        Tool.model_validate(tool, by_name=False)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in error['loc']) or 'tool'}: {error['msg']}" for error in exc.errors()[:5]
        )
        listing.malformed.append((name, problems))
        return
    listing.tools.append(tool)


__all__ = ["McpClient", "ToolListing"]
