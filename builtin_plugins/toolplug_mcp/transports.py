"""MCP client transports: stdio, Streamable HTTP and the legacy HTTP+SSE transport.

Each transport has ``start()``, ``send(message)`` and ``close()``, the callbacks ``on_message``,
``on_error`` and ``on_close``, and ``protocol_version`` (set by the client once the handshake has
negotiated it; the HTTP transports send it as the ``MCP-Protocol-Version`` header). Messages are
JSON-RPC objects as plain dicts.

Where each one comes from:

- :class:`StdioTransport` wraps the SDK's ``stdio_client``: spawning the server, its environment,
  framing, and the close-stdin / terminate / kill shutdown of the whole process tree are the SDK's.
- :class:`StreamableHttpTransport` and :class:`SseTransport` are written on ``httpx2``. The SDK's
  Streamable HTTP client turns a non-2xx answer into a generic JSON-RPC error ("Server returned an
  error response") without status code, URL or body, and reports an ended session (404) without
  re-initialising it. Its ``sse_client`` raises a bare ``HTTPStatusError`` for the event stream, and
  logs and swallows a failed message POST, so the request that was posted waits until it times out.
  toolplug needs each of those failures as an :class:`MCPClientError` carrying the status code, URL
  and body, with the messages its specification prescribes, raised from the ``send`` that caused it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import tempfile
from collections.abc import Callable, Mapping
from typing import IO, Any

import httpx2

from toolplug_mcp.errors import MCPClientError, MCPConnectionClosedError

logger = logging.getLogger("toolplug.mcp")

MessageCallback = Callable[[dict[str, Any]], None]
ErrorCallback = Callable[[Exception], None]
CloseCallback = Callable[[], None]

MAX_ERROR_BODY = 64_000
"""Bytes of a non-2xx response body kept on the error."""
MAX_REDIRECTS = 3
PROTOCOL_VERSION_HEADER = "mcp-protocol-version"
SESSION_ID_HEADER = "mcp-session-id"
LISTEN_ATTEMPTS = 3
"""Times in a row the session's standalone event stream is opened again after it failed at once."""
LISTEN_RETRY_SECONDS = 1.0


class McpTransport:
    """What every transport offers; the callbacks are set by whoever uses the transport."""

    kind = "transport"

    def __init__(self, server: str) -> None:
        self.server = server
        self.on_message: MessageCallback | None = None
        self.on_error: ErrorCallback | None = None
        self.on_close: CloseCallback | None = None
        self.protocol_version: str | None = None
        """The negotiated protocol version, set by the client after ``initialize``."""
        self._closed = False

    @property
    def closed(self) -> bool:
        """True once the connection ended, by ``close()`` or from the other side."""
        return self._closed

    async def start(self) -> None:
        """Open the connection (spawn the process, open the event stream)."""
        raise NotImplementedError

    async def send(self, message: dict[str, Any]) -> None:
        """Send one JSON-RPC message; answers arrive through ``on_message``. Raises MCPClientError."""
        raise NotImplementedError

    async def close(self) -> None:
        """End the connection; ``on_close`` runs once."""
        raise NotImplementedError

    def close_detail(self) -> str:
        """Why the connection ended, for error messages (e.g. the tail of a stdio server's stderr)."""
        return ""

    reconnectable = False
    """Whether :meth:`renew` can replace a session the server lost (the HTTP transports)."""

    async def renew(self) -> None:
        """Forget a session the server lost and get ready for a new ``initialize``."""
        raise NotImplementedError

    # -- for subclasses ----------------------------------------------------------------------------

    def _deliver(self, message: Any) -> None:
        if isinstance(message, list):  # a JSON-RPC batch
            for item in message:
                self._deliver(item)
            return
        if not isinstance(message, dict):
            self._report(MCPClientError(f"MCP server {self.server!r} sent a message that is not a JSON object"))
            return
        if self.on_message is not None:
            self.on_message(message)

    def _report(self, error: Exception) -> None:
        if self.on_error is not None:
            self.on_error(error)
        else:
            logger.warning("MCP server %r: %s", self.server, error)

    def _mark_closed(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self.on_close is not None:
            self.on_close()


# --- stdio (the SDK's stdio_client) -------------------------------------------------------------------


class StdioTransport(McpTransport):
    """A server run as a subprocess, spoken to over its stdin and stdout (wraps the SDK's ``stdio_client``)."""

    kind = "stdio"

    def __init__(
        self,
        server: str,
        command: str,
        args: tuple[str, ...] | list[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        super().__init__(server)
        self.command = command
        self.args = list(args)
        self.env = dict(env or {})
        self.cwd = cwd
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._write: Any = None
        self._start_error: BaseException | None = None
        self._stderr: IO[str] | None = None

    async def start(self) -> None:
        from toolplug_mcp.sdk import require_sdk

        require_sdk("An MCP server with transport 'stdio'")
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"mcp-stdio-{self.server}")
        await _until_ready_or_done(self._ready, self._task)
        if self._start_error is not None or not self._ready.is_set():
            cause = self._start_error
            detail = f"{type(cause).__name__}: {cause}" if cause else "the process ended at once"
            tail = self.close_detail()
            raise MCPClientError(
                f"Cannot start MCP server {self.server!r} ({self.command}): {detail}{tail}", server=self.server
            ) from cause

    async def _run(self) -> None:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        parameters = StdioServerParameters(command=self.command, args=self.args, env=self.env or None, cwd=self.cwd)
        try:
            async with stdio_client(parameters, errlog=self._stderr) as (read_stream, write_stream):  # type: ignore[arg-type]
                self._write = write_stream
                self._ready.set()
                async for item in read_stream:
                    if isinstance(item, Exception):
                        self._report(MCPClientError(f"MCP server {self.server!r} wrote an unreadable message: {item}"))
                        continue
                    self._deliver(item.message.model_dump(by_alias=True, mode="json", exclude_unset=True))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not self._ready.is_set():
                self._start_error = exc
            else:
                self._report(exc)
        finally:
            self._write = None
            self._mark_closed()

    async def send(self, message: dict[str, Any]) -> None:
        write = self._write
        if write is None or self.closed:
            raise MCPConnectionClosedError(
                f"MCP server {self.server!r} is not running{self.close_detail()}", server=self.server
            )
        import anyio
        from mcp.shared.message import SessionMessage
        from mcp_types import jsonrpc_message_adapter

        parsed = jsonrpc_message_adapter.validate_python(message, by_name=False)
        try:
            await write.send(SessionMessage(parsed))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError) as exc:
            raise MCPConnectionClosedError(
                f"MCP server {self.server!r} closed the connection{self.close_detail()}", server=self.server
            ) from exc

    async def close(self) -> None:
        # The SDK closes stdin, waits 2 s, then terminates and kills the process tree.
        await _cancel_and_wait(self._task, 10.0)
        self._mark_closed()
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    def close_detail(self) -> str:
        tail = self.stderr_tail()
        return f"; its stderr ends with: {tail}" if tail else ""

    def stderr_tail(self, limit: int = 1_000) -> str:
        """The last characters the server wrote to stderr."""
        stream = self._stderr
        if stream is None or stream.closed:
            return ""
        try:
            stream.flush()
            stream.seek(0, 2)
            size = stream.tell()
            stream.seek(max(0, size - limit * 4))
            return stream.read()[-limit:].strip()
        except (OSError, ValueError):
            return ""


# --- helpers -------------------------------------------------------------------------------------


async def _until_ready_or_done(ready: asyncio.Event, task: asyncio.Task[None]) -> None:
    """Wait until ``ready`` is set or ``task`` ends, whichever comes first."""
    waiter = asyncio.ensure_future(ready.wait())
    try:
        await asyncio.wait({waiter, task}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()


async def _cancel_and_wait(task: asyncio.Task[None] | None, seconds: float) -> None:
    """Cancel a reading task and give it ``seconds`` to clean up; how it ends is not reported."""
    if task is not None and not task.done():
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await asyncio.wait_for(asyncio.shield(task), seconds)


def _origin(url: httpx2.URL) -> tuple[str, str, int | None]:
    default = {"http": 80, "https": 443}.get(url.scheme)
    return (url.scheme, url.host, url.port or default)


async def _read_body(response: httpx2.Response) -> str:
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in response.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size >= MAX_ERROR_BODY:
                break
    except httpx2.HTTPError:
        pass
    return b"".join(chunks)[:MAX_ERROR_BODY].decode("utf-8", errors="replace")


def _unreachable(server: str, url: str, exc: Exception) -> MCPClientError:
    return MCPClientError(
        f"Cannot reach MCP server {server!r} at {url}: {type(exc).__name__}: {exc}", url=url, server=server
    )


class SessionLostError(MCPConnectionClosedError):
    """The server lost the session: it no longer knows it (404, or 400 naming the session), or the
    connection or event stream dropped. The client initialises a new session and repeats the request once."""


def _names_a_session(body: str) -> bool:
    """Whether an error body speaks of the session (``Bad Request: No valid session ID provided``)."""
    return "session" in body.lower()


def _lost(server: str, url: str, what: str, exc: Exception | None = None, **details: Any) -> SessionLostError:
    cause = f": {type(exc).__name__}: {exc}" if exc is not None else ""
    message = f"MCP server {server!r} lost the session ({what}){cause}"
    return SessionLostError(message, url=url, server=server, **details)


def _dropped(exc: httpx2.HTTPError) -> bool:
    """A connection that broke or was refused (not a timeout, not a bad request)."""
    return isinstance(exc, httpx2.TransportError) and not isinstance(exc, httpx2.TimeoutException)


class _HttpTransport(McpTransport):
    """What the two HTTP transports share: where the server is, and the httpx2 client that reaches it."""

    def __init__(
        self,
        server: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 30.0,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> None:
        super().__init__(server)
        self.url = url
        self.headers = dict(headers or {})
        self.timeout = timeout
        self._transport = transport
        self._client: httpx2.AsyncClient | None = None

    def _open_client(self, timeout: httpx2.Timeout) -> httpx2.AsyncClient:
        # No automatic redirects (Streamable HTTP follows same-origin ones itself), no proxies from the environment.
        return httpx2.AsyncClient(
            headers=self.headers, timeout=timeout, follow_redirects=False, transport=self._transport, trust_env=False
        )

    def _deliver_event(self, data: str) -> Any:
        """Deliver the message an event carries and return it; None (reported) when it is not JSON."""
        try:
            incoming = json.loads(data)
        except ValueError:
            self._report(MCPClientError(f"MCP server {self.server!r} sent an event that is not JSON"))
            return None
        self._deliver(incoming)
        return incoming

    def _from_server(self, error: MCPClientError) -> MCPClientError:
        error.server = self.server
        return error


# --- Streamable HTTP (httpx2) ----------------------------------------------------------------------


class StreamableHttpTransport(_HttpTransport):
    """The Streamable HTTP transport: each message is a POST; answers come as JSON or an event stream."""

    kind = "http"
    reconnectable = True
    session_id: str | None = None
    """The session the server opened at ``initialize`` (None before, and after it ended)."""
    _listener: asyncio.Task[None] | None = None

    async def start(self) -> None:
        # No request yet: the first POST (initialize) opens the session.
        if self._client is None:
            self._client = self._open_client(httpx2.Timeout(self.timeout))
        self._closed = False

    def reset_session(self) -> None:
        """Forget the session the server ended; the next initialize opens a new one."""
        self.session_id = None
        self.protocol_version = None
        if self._listener is not None:
            self._listener.cancel()
            self._listener = None

    async def renew(self) -> None:
        self.reset_session()
        await self.start()

    def _listen_to_session(self) -> None:
        """Open the session's standalone event stream, where the server speaks outside any request
        (``notifications/tools/list_changed`` after a change of its own)."""
        if self._listener is not None:
            self._listener.cancel()
        self._listener = asyncio.get_running_loop().create_task(
            self._listen(self.session_id), name=f"mcp-http-listen-{self.server}"
        )

    async def _listen(self, session_id: str | None) -> None:
        failures = 0
        while failures < LISTEN_ATTEMPTS and self.session_id == session_id and not self.closed:
            heard = await self._listen_once()
            if heard is None:
                return  # the server offers no standalone stream (405) or refused it
            failures = 0 if heard else failures + 1
            await asyncio.sleep(LISTEN_RETRY_SECONDS)

    async def _listen_once(self) -> bool | None:
        """One standalone stream until it ends: True when it carried events, None when refused."""
        client = self._client
        if client is None:
            return None
        headers = {"accept": "text/event-stream"}
        if self.session_id:
            headers[SESSION_ID_HEADER] = self.session_id
        if self.protocol_version:
            headers[PROTOCOL_VERSION_HEADER] = self.protocol_version
        heard = False
        try:
            async with client.stream(
                "GET", self.url, headers=headers, timeout=httpx2.Timeout(self.timeout, read=None)
            ) as response:
                content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
                if response.status_code != 200 or content_type != "text/event-stream":
                    return None
                async for event in httpx2.EventSource(response).__aiter__():
                    if event.event == "message" and event.data:
                        heard = True
                        self._deliver_event(event.data)
        except httpx2.HTTPError:
            pass  # the stream dropped; a lost session shows on the next request
        return heard

    async def send(self, message: dict[str, Any]) -> None:
        client = self._client
        if client is None or self.closed:
            raise MCPConnectionClosedError(f"MCP server {self.server!r}: the transport is closed", server=self.server)
        is_initialize = message.get("method") == "initialize"
        is_request = "method" in message and "id" in message
        headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        if self.session_id and not is_initialize:
            headers[SESSION_ID_HEADER] = self.session_id
        if self.protocol_version and not is_initialize:
            headers[PROTOCOL_VERSION_HEADER] = self.protocol_version
        url = self.url
        try:
            for _ in range(MAX_REDIRECTS + 1):
                async with client.stream("POST", url, json=message, headers=headers) as response:
                    location = _same_origin_redirect(response)
                    if location is not None:
                        url = location
                        continue
                    await self._handle_response(response, message, is_initialize=is_initialize, is_request=is_request)
                    if url != self.url:
                        self.url = url  # a permanent same-origin move (e.g. a trailing slash)
                    if message.get("method") == "notifications/initialized" and self.session_id:
                        self._listen_to_session()
                    return
        except MCPClientError:
            raise
        except httpx2.HTTPError as exc:
            if self.session_id and not is_initialize and _dropped(exc):
                raise _lost(self.server, url, "the connection dropped", exc) from exc
            raise _unreachable(self.server, url, exc) from exc
        raise MCPClientError(f"MCP server {self.server!r}: too many redirects from {self.url}", url=url)

    async def _handle_response(
        self, response: httpx2.Response, message: dict[str, Any], *, is_initialize: bool, is_request: bool
    ) -> None:
        url = str(response.request.url)
        status = response.status_code
        if not 200 <= status < 300:
            body = await _read_body(response)
            if self.session_id and not is_initialize and (status == 404 or (status == 400 and _names_a_session(body))):
                raise _lost(self.server, url, f"HTTP {status}: {body.strip()[:200]}", status_code=status,
                            response_body=body)
            raise self._from_server(MCPClientError.http_post(status, response.reason_phrase, url, body))
        if is_initialize:
            session_id = response.headers.get(SESSION_ID_HEADER)
            if session_id:
                self.session_id = session_id
        if status == 202 or not is_request:
            await response.aread()
            return
        content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()
        if content_type == "application/json":
            raw = await response.aread()
            try:
                self._deliver(json.loads(raw))
            except ValueError as exc:
                raise MCPClientError(
                    f"MCP server {self.server!r} answered with JSON that does not parse: {exc}",
                    status_code=status,
                    url=url,
                    response_body=raw[:MAX_ERROR_BODY].decode("utf-8", errors="replace"),
                    server=self.server,
                ) from exc
        elif content_type == "text/event-stream":
            if not await self._read_answer_stream(response, message.get("id")):
                raise _lost(self.server, url, "the event stream ended before the answer")
        else:
            body = await _read_body(response)
            raise MCPClientError(
                f"MCP server {self.server!r} answered with content type {content_type or 'none'!r}, "
                "expected application/json or text/event-stream",
                status_code=status,
                url=url,
                response_body=body,
                server=self.server,
            )

    async def _read_answer_stream(self, response: httpx2.Response, request_id: Any) -> bool:
        """Deliver the events of a POST's stream; True once the answer to ``request_id`` came."""
        async for event in httpx2.EventSource(response).__aiter__():
            if event.event != "message" or not event.data:
                continue
            incoming = self._deliver_event(event.data)
            if isinstance(incoming, dict) and incoming.get("id") == request_id and "method" not in incoming:
                return True  # the answer to this request: the stream has done its job
        return False

    async def close(self) -> None:
        listener, self._listener = self._listener, None
        await _cancel_and_wait(listener, 2.0)
        client = self._client
        self._client = None
        if client is not None:
            if self.session_id:
                headers = {SESSION_ID_HEADER: self.session_id}
                if self.protocol_version:
                    headers[PROTOCOL_VERSION_HEADER] = self.protocol_version
                with contextlib.suppress(httpx2.HTTPError):
                    await client.delete(self.url, headers=headers, timeout=2.0)
            await client.aclose()
        self.session_id = None
        self._mark_closed()


def _same_origin_redirect(response: httpx2.Response) -> str | None:
    """Where a 307/308 that keeps scheme, host and port points; None for anything else."""
    if response.status_code not in (307, 308):
        return None
    location = response.headers.get("location")
    if not location:
        return None
    target = response.request.url.join(location)
    if _origin(target) != _origin(response.request.url):
        return None
    return str(target)


# --- legacy HTTP+SSE (httpx2) ------------------------------------------------------------------------


class SseTransport(_HttpTransport):
    """The legacy HTTP+SSE transport: a GET event stream names an endpoint, messages are POSTed to it."""

    kind = "sse"
    reconnectable = True
    endpoint: str | None = None
    """Where messages are POSTed, as the event stream named it (None until it has)."""
    _task: asyncio.Task[None] | None = None
    _start_error: MCPClientError | None = None

    async def renew(self) -> None:
        """Open a new event stream: the session of the legacy transport is its stream."""
        await self.close()
        await self.start()

    async def start(self) -> None:
        self._closed = False
        self.endpoint = None
        self._start_error = None
        self._ready = asyncio.Event()
        # The event stream may stay quiet for long; a read timeout would end a healthy connection.
        self._client = self._open_client(httpx2.Timeout(self.timeout, read=None))
        self._task = asyncio.get_running_loop().create_task(self._read_stream(), name=f"mcp-sse-{self.server}")
        await _until_ready_or_done(self._ready, self._task)
        if self._start_error is not None:
            error = self._start_error
            await self.close()
            raise error
        if self.endpoint is None:
            await self.close()
            raise MCPClientError(
                f"MCP SSE Transport Error: the event stream of {self.url} ended before it named an endpoint",
                url=self.url,
                server=self.server,
            )

    async def _read_stream(self) -> None:
        client = self._client
        assert client is not None
        try:
            async with client.stream("GET", self.url, headers={"accept": "text/event-stream"}) as response:
                if not 200 <= response.status_code < 300:
                    body = await _read_body(response)
                    self._start_error = self._from_server(
                        MCPClientError.sse_stream(response.status_code, response.reason_phrase, self.url, body)
                    )
                    return
                async for event in httpx2.EventSource(response).__aiter__():
                    if event.event == "endpoint":
                        self._accept_endpoint(event.data)
                        if self._start_error is not None:
                            return
                    elif event.event == "message" and event.data:
                        self._deliver_event(event.data)
        except asyncio.CancelledError:
            raise
        except httpx2.HTTPError as exc:
            error = _unreachable(self.server, self.url, exc)
            if self.endpoint is None:
                self._start_error = error
            else:
                self._report(error)
        finally:
            self._mark_closed()

    def _accept_endpoint(self, data: str) -> None:
        stream_url = httpx2.URL(self.url)
        try:
            endpoint = stream_url.join(data.strip())
        except Exception as exc:
            self._start_error = MCPClientError(
                f"MCP SSE Transport Error: the endpoint event names an invalid URL: {data!r}", url=self.url
            )
            self._start_error.__cause__ = exc
            return
        if _origin(endpoint) != _origin(stream_url):
            scheme, host, port = _origin(stream_url)
            self._start_error = MCPClientError(
                f"MCP SSE Transport Error: the endpoint {endpoint} is not on the origin of the event stream "
                f"({scheme}://{host}:{port}); refusing to send messages there",
                url=str(endpoint),
                server=self.server,
            )
            return
        self.endpoint = str(endpoint)
        self._ready.set()

    async def send(self, message: dict[str, Any]) -> None:
        client = self._client
        endpoint = self.endpoint
        if client is None or endpoint is None or self.closed:
            raise _lost(self.server, self.url, "the event stream is closed")
        headers = {"content-type": "application/json"}
        if self.protocol_version:
            headers[PROTOCOL_VERSION_HEADER] = self.protocol_version
        try:
            async with client.stream("POST", endpoint, json=message, headers=headers) as response:
                status = response.status_code
                if not 200 <= status < 300:
                    body = await _read_body(response)
                    if status in (400, 404) and _names_a_session(body):
                        raise _lost(self.server, endpoint, f"HTTP {status}: {body.strip()[:200]}",
                                    status_code=status, response_body=body)
                    raise self._from_server(MCPClientError.sse_post(status, endpoint, body))
                await response.aread()
        except MCPClientError:
            raise
        except httpx2.HTTPError as exc:
            if _dropped(exc):
                raise _lost(self.server, endpoint, "the connection dropped", exc) from exc
            raise _unreachable(self.server, endpoint, exc) from exc

    async def close(self) -> None:
        await _cancel_and_wait(self._task, 5.0)
        client = self._client
        self._client = None
        if client is not None:
            await client.aclose()
        self._mark_closed()


__all__ = [
    "McpTransport",
    "SessionLostError",
    "SseTransport",
    "StdioTransport",
    "StreamableHttpTransport",
]
