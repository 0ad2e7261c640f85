"""A real HTTP server on 127.0.0.1 for the web tests: pages, redirects, endless and slow bodies, SearXNG."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

Handler = Callable[["Request"], "Reply"]


@dataclass
class Request:
    """What the server received."""

    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]


@dataclass
class Reply:
    """What a route answers: status, headers and body, or a streaming generator."""

    status: int = 200
    body: bytes | str = b""
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    stream: Callable[[], Iterator[bytes]] | None = None
    delay: float = 0.0


class WebTestServer:
    """Routes by path; records every request (path and headers) for assertions."""

    def __init__(self) -> None:
        self.routes: dict[str, Handler | Reply] = {}
        self.requests: list[Request] = []
        server = self

        class _Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                request = Request(parts.path, parse_qs(parts.query), {k.lower(): v for k, v in self.headers.items()})
                server.requests.append(request)
                route = server.routes.get(parts.path)
                if route is None:
                    reply = Reply(404, "not found", "text/plain")
                else:
                    reply = route(request) if callable(route) else route
                if reply.delay:
                    time.sleep(reply.delay)
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", reply.content_type)
                    for name, value in reply.headers.items():
                        self.send_header(name, value)
                    if reply.stream is not None:
                        self.send_header("Transfer-Encoding", "chunked")
                        self.end_headers()
                        for chunk in reply.stream():
                            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                            self.wfile.flush()
                        self.wfile.write(b"0\r\n\r\n")
                        return
                    body = reply.body.encode() if isinstance(reply.body, str) else reply.body
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def url(self, path: str = "/") -> str:
        """The absolute URL of ``path`` on this server."""
        return f"http://127.0.0.1:{self.port}{path}"

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@contextmanager
def running_server() -> Iterator[WebTestServer]:
    """Start a server for one test module or test."""
    server = WebTestServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def endless(chunk_size: int = 64 * 1024, seconds: float = 5.0) -> Callable[[], Iterator[bytes]]:
    """A body that never ends on its own (bounded in time so a failing test cannot hang)."""

    def generate() -> Iterator[bytes]:
        deadline = time.monotonic() + seconds
        block = b"x" * chunk_size
        while time.monotonic() < deadline:
            yield block

    return generate


def slow(chunks: int, pause: float, chunk: bytes = b"<p>slow</p>") -> Callable[[], Iterator[bytes]]:
    """A body sent a chunk at a time with pauses."""

    def generate() -> Iterator[bytes]:
        for _ in range(chunks):
            time.sleep(pause)
            yield chunk

    return generate


def gzipped(html: str) -> Reply:
    """An HTML reply with Content-Encoding gzip."""
    return Reply(body=gzip.compress(html.encode()), headers={"Content-Encoding": "gzip"})


def searxng_reply(results: list[dict[str, str]]) -> Reply:
    """A SearXNG JSON API answer."""
    return Reply(body=json.dumps({"query": "q", "results": results}), content_type="application/json")


def article_page(title: str, paragraphs: list[str], *, extra_head: str = "", extra_body: str = "") -> str:
    """A realistic article page: masthead, navigation, the article, a sidebar, comments and a footer."""
    body = "".join(f"<p>{p}</p>" for p in paragraphs)
    return f"""<!doctype html><html lang="en"><head><title>{title} | Daily Example</title>
<meta name="description" content="About {title}."><meta name="author" content="Ada Writer">
<meta property="article:published_time" content="2024-05-01T10:00:00Z">{extra_head}</head>
<body><header class="site-header"><a href="/">Daily Example</a><nav><a href="/world">World</a>
<a href="/sport">Sport</a><a href="/tech">Tech</a></nav></header>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience. Accept all cookies?</div>
<main><article><h1>{title}</h1><div class="byline">By Ada Writer</div>{body}</article>
<aside class="sidebar"><h3>Most read</h3><ul><li><a href="/a">Celebrity spotted at the beach</a></li>
<li><a href="/b">Ten tips for your garden</a></li></ul></aside></main>
<section class="comments"><h3>Comments</h3>
<p>First! This comment section is not part of the article at all.</p></section>
{extra_body}<footer><p>© 2024 Daily Example. All rights reserved. Contact us. Privacy policy.</p></footer>
<script>window.analytics = "tracking code";</script></body></html>"""
