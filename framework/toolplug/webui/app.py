"""The ASGI app of the chat page (Starlette): the page, ``POST /api/chat`` and ``GET /api/tools``.

Routes, relative to where the app is mounted:

- ``GET /``: the page; ``GET /static/...``: its script and style (shipped in the wheel, no CDN);
- ``POST /api/chat``: the AI SDK chat transport's request, answered as the UI message stream (SSE
  with the ``x-vercel-ai-ui-message-stream: v1`` header); a malformed request is a 400 with the field;
- ``GET /api/chat/{id}/stream``: 204 (streams are not resumed; the SDK's transport then does nothing);
- ``GET /api/tools``: the runnable tools of the component, with the reasons for the others.

Every response carries a Content-Security-Policy that forbids inline script, remote loads and HTML
sinks (Trusted Types); every request must name this server in ``Host``; every API call must carry the
access token and, when it has an ``Origin``, come from this server's own origin.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from importlib import resources
from typing import TYPE_CHECKING, Any

from toolplug.ui_stream import UI_MESSAGE_STREAM_HEADERS
from toolplug.webui.chat import WebChat
from toolplug.webui.protocol import ChatRequestError
from toolplug.webui.security import AccessPolicy

if TYPE_CHECKING:
    from toolplug.host import Host

logger = logging.getLogger("toolplug.webui")

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'; "
    "require-trusted-types-for 'script'; trusted-types 'none'"
)
"""Only the page's own script and style; no inline script, no remote loads, no HTML string sinks."""

SECURITY_HEADERS: Mapping[str, str] = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}

MAX_BODY_BYTES = 16 * 1024 * 1024
"""The largest chat request accepted (the whole history travels with each request)."""

KEEP_ALIVE_SECONDS = 15.0
"""An SSE comment is sent after this long without a chunk (a long tool call), so nothing in between
closes the idle connection."""

_STATIC = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "markdown.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "icon.svg": "image/svg+xml",
}


def _missing_dependency() -> RuntimeError:
    return RuntimeError(
        "The chat page needs Starlette and uvicorn, which come with the mcp extra: pip install 'toolplug[mcp]'"
    )


def load_static() -> dict[str, bytes]:
    """The page's files, read from the installed package."""
    folder = resources.files("toolplug.webui") / "static"
    return {name: (folder / name).read_bytes() for name in _STATIC}


def create_app(
    chat: WebChat | Host,
    *,
    token: str | None = None,
    policy: AccessPolicy | None = None,
    component: str = "chat",
    provider_id: str | None = None,
) -> Any:
    """The chat as an ASGI app (a Starlette app), to run with uvicorn or mount in a host's own app.

    :param chat: a :class:`WebChat`, or a host (a WebChat is made for ``component`` and ``provider_id``).
    :param token: the access token; a random one when neither it nor ``policy`` is given (read it back
        from ``app.state.policy.token``).
    :param policy: the access checks; by default loopback Host names and the token.
    :raises RuntimeError: Starlette is not installed.
    :raises ConfigError: the component or provider is unknown.
    """
    try:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import JSONResponse, Response
        from starlette.routing import Route
    except ImportError as exc:
        raise _missing_dependency() from exc
    from toolplug.webui.security import new_token

    web_chat = chat if isinstance(chat, WebChat) else WebChat(chat, component=component, provider_id=provider_id)
    if policy is None:
        policy = AccessPolicy(token if token is not None else new_token())
    static = load_static()

    def file_response(name: str) -> Response:
        headers = {"cache-control": "no-cache"}
        return Response(static[name], media_type=_STATIC[name], headers=headers)

    async def page(request: Request) -> Response:
        return file_response("index.html")

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in _STATIC or name == "index.html":
            return Response("Not found", status_code=404, media_type="text/plain")
        return file_response(name)

    async def tools(request: Request) -> Response:
        return JSONResponse(web_chat.tools_payload(), headers={"cache-control": "no-store"})

    async def no_stream(request: Request) -> Response:
        return Response(status_code=204)

    async def favicon(request: Request) -> Response:
        return file_response("icon.svg")

    routes = [
        Route("/", page, methods=["GET"]),
        Route("/favicon.ico", favicon, methods=["GET"]),
        Route("/static/{name}", asset, methods=["GET"]),
        Route("/api/tools", tools, methods=["GET"]),
        Route("/api/chat/{chat_id}/stream", no_stream, methods=["GET"]),
        Route("/api/chat", _ChatEndpoint(web_chat), methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.state.policy = policy
    app.state.chat = web_chat
    return GuardMiddleware(app, policy)


class GuardMiddleware:
    """Checks Host on every request and the token and Origin on every API call; adds the security
    headers to every response."""

    def __init__(self, app: ASGIApp, policy: AccessPolicy) -> None:
        self.app = app
        self.policy = policy
        self.state: Any = getattr(app, "state", None)
        """The wrapped app's state (``policy``, ``chat``)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        problem = self.policy.host_problem(headers.get("host"))
        status = 421 if problem else 200
        if problem is None and _is_api(scope):
            scheme = scope.get("scheme", "http")
            problem = self.policy.origin_problem(headers.get("origin"), scheme, headers.get("host"))
            status = 403
            if problem is None:
                problem = self.policy.token_problem(headers.get("authorization"))
                status = 401
        if problem is not None:
            await _send_json(send, status, {"error": problem})
            return

        async def secured(message: MutableMapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [
                    *message.get("headers", []),
                    *((key.encode(), value.encode()) for key, value in SECURITY_HEADERS.items()),
                ]
            await send(message)

        await self.app(scope, receive, secured)


def _is_api(scope: Scope) -> bool:
    path: str = scope.get("path", "")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    return path == "/api" or path.startswith("/api/")


async def _send_json(send: Send, status: int, payload: Any) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(key.encode(), value.encode()) for key, value in SECURITY_HEADERS.items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Receive) -> bytes | None:
    """The request body, or None when it is larger than :data:`MAX_BODY_BYTES`."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return bytes(body)
        body += message.get("body", b"")
        if len(body) > MAX_BODY_BYTES:
            return None
        if not message.get("more_body", False):
            return bytes(body)


class _ChatEndpoint:
    """``POST /api/chat`` as a plain ASGI app: it streams, and watches for the client leaving."""

    def __init__(self, web_chat: WebChat) -> None:
        self.web_chat = web_chat

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await _chat(self.web_chat, scope, receive, send)


async def _chat(web_chat: WebChat, scope: Scope, receive: Receive, send: Send) -> None:
    headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
    if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        await _send_json(send, 415, {"error": "the chat request must be JSON (content-type: application/json)"})
        return
    raw = await _read_body(receive)
    if raw is None:
        await _send_json(send, 413, {"error": f"the chat request is larger than {MAX_BODY_BYTES} bytes"})
        return
    try:
        request = web_chat.prepare(json.loads(raw))
    except ValueError as exc:  # ChatRequestError, or JSON that does not parse
        message = str(exc) if isinstance(exc, ChatRequestError) else f"the body is not JSON: {exc}"
        await _send_json(send, 400, {"error": message})
        return
    await stream_sse(web_chat.stream(request), receive, send)


async def stream_sse(chunks: AsyncIterator[Mapping[str, Any]], receive: Receive, send: Send) -> None:
    """Send UI message stream chunks as SSE; a client that goes away closes ``chunks`` (and so cancels
    the run) at once, not at the next chunk."""
    headers = [(key.encode(), value.encode()) for key, value in UI_MESSAGE_STREAM_HEADERS.items()]
    lock = asyncio.Lock()
    await send({"type": "http.response.start", "status": 200, "headers": headers})

    async def write(text: str) -> None:
        async with lock:
            await send({"type": "http.response.body", "body": text.encode(), "more_body": True})

    async def pump() -> None:
        async for chunk in chunks:
            await write(f"data: {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}\n\n")
        await write("data: [DONE]\n\n")

    async def keep_alive() -> None:
        while True:
            await asyncio.sleep(KEEP_ALIVE_SECONDS)
            await write(": keep-alive\n\n")

    async def disconnected() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    pumping = asyncio.ensure_future(pump())
    others = [asyncio.ensure_future(keep_alive()), asyncio.ensure_future(disconnected())]
    try:
        await asyncio.wait([pumping, others[1]], return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (pumping, *others):
            task.cancel()
        for task in (pumping, *others):
            with contextlib.suppress(BaseException):
                await task
        with contextlib.suppress(BaseException):
            await chunks.aclose()  # type: ignore[attr-defined]
    if not pumping.done() or pumping.cancelled():
        return  # the client went away
    error = pumping.exception()
    if error is not None:
        logger.error("the chat stream failed", exc_info=error)
        return
    with contextlib.suppress(OSError):
        await send({"type": "http.response.body", "body": b"", "more_body": False})


__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "GuardMiddleware", "create_app", "load_static", "stream_sse"]
