"""Failures are results, not crashes: every ordinary way a fetch goes wrong ends as a clean failed or
blocked call with a message that says what happened, and no traceback, against real servers on 127.0.0.1."""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from _web_server import Reply, WebTestServer, article_page, running_server

import toolplug_web.plugin as web_plugin
from toolplug.definitions import ConfidenceLevel
from toolplug.execution import CallScope, CallStatus, ToolCallOutcome, ToolExecutor
from toolplug.net import SafeHTTPClient, TargetPolicy, looks_binary
from toolplug.registry import Origin, RegisteredTool, ToolRegistry
from toolplug.tools import ToolImplementation
from toolplug_web.tools import REFUSAL_CODES, ReadWebPageTool, WebFetchTool

LOCAL = TargetPolicy.allow_private_hosts(["127.0.0.1"])
HIGH = CallScope(provider_confidence=ConfidenceLevel.HIGH)
PRIVATE = {"private_hosts": "127.0.0.1"}


@pytest.fixture(scope="module")
def server() -> Iterator[WebTestServer]:
    with running_server() as running:
        running.routes["/loop"] = Reply(302, headers={"Location": "/loop"})
        running.routes["/sleepy"] = Reply(body="<p>late</p>", delay=1.5)
        running.routes["/boom"] = Reply(500, "boom", "text/plain")
        running.routes["/binary"] = Reply(body=b"\x00\x01\x02\x03binary\x00", content_type="")
        running.routes["/zip"] = Reply(body=b"PK\x03\x04" + b"x" * 200, content_type="")
        running.routes["/article"] = Reply(body=article_page("Solar", ["The town hall has solar panels now."] * 3))
        running.routes["/text"] = Reply(body="plain words " * 200, content_type="text/plain")
        yield running


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def register(tool: ToolImplementation) -> RegisteredTool:
    registry = ToolRegistry(option_sources=[source.name for source in web_plugin.register_option_sources()])
    definition = tool.definition()
    assert definition is not None
    registered = registry.add(definition, {tool.implementation_key: (tool, Origin("web"))}, Origin("web"))
    assert registered is not None, registry.diagnostics
    return registered


def call(tool: ToolImplementation, arguments: dict[str, Any], settings: Mapping[str, Any] | None = None,
         scope: CallScope = HIGH) -> ToolCallOutcome:
    executor = ToolExecutor(settings_lookup=lambda _tool: (dict(settings or {}), ()))
    return asyncio.run(asyncio.wait_for(executor.execute(register(tool), arguments, scope=scope), 30))


def assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert "Traceback" not in caplog.text, caplog.text
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR], caplog.text


# --- read_web_page ------------------------------------------------------------------------------------


# REQ: WEB-5
@pytest.mark.parametrize(
    ("url", "status", "words"),
    [
        ("/missing", CallStatus.ERROR, "answered HTTP 404"),
        ("/boom", CallStatus.ERROR, "answered HTTP 500"),
        ("/loop", CallStatus.ERROR, "redirected more than"),
        ("/sleepy", CallStatus.ERROR, "longer than 0.5 seconds"),
        ("refused", CallStatus.ERROR, "refused the connection"),
        ("tls", CallStatus.ERROR, "TLS (https) connection failed"),
        ("http://127.0.0.1:99999/", CallStatus.BLOCKED, "port 99999 is not a TCP port"),
        ("http://[::1/", CallStatus.BLOCKED, "not a valid URL"),
        ("/binary", CallStatus.BLOCKED, "binary body"),
    ],
)
def test_read_web_page_turns_each_fetch_failure_into_a_clean_call(
    server: WebTestServer, caplog: pytest.LogCaptureFixture, url: str, status: CallStatus, words: str
) -> None:
    if url == "refused":
        url = f"http://127.0.0.1:{closed_port()}/"
    elif url == "tls":
        url = server.url("/article").replace("http://", "https://")  # the server speaks plain HTTP
    elif url.startswith("/"):
        url = server.url(url)
    with caplog.at_level(logging.INFO):
        outcome = call(ReadWebPageTool(page_timeout=0.5), {"url": url}, PRIVATE)
    assert outcome.status is status and outcome.trace.status is status
    assert words in outcome.text, outcome.text
    assert outcome.result.sources == [], "a failed read adds no source"
    assert_no_traceback(caplog)


# REQ: WEB-5
def test_read_web_page_still_reads_a_page_after_the_failures(server: WebTestServer) -> None:
    outcome = call(ReadWebPageTool(page_timeout=5), {"url": server.url("/article")}, PRIVATE)
    assert outcome.status is CallStatus.OK and "solar panels" in outcome.text


# --- web_fetch ----------------------------------------------------------------------------------------


class LocalFetch:
    """A custom fetch through a client that may reach the test server; counts network fetches."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, url: str, **options: Any) -> Any:
        self.calls += 1
        async with SafeHTTPClient(LOCAL) as client:
            return await client.fetch(url, **options)


# REQ: WEB-8
@pytest.mark.parametrize(
    ("route", "code", "status"),
    [
        ("/binary", "unsupported_content_type", CallStatus.BLOCKED),
        ("/zip", "unsupported_content_type", CallStatus.BLOCKED),
        ("/loop", "too_many_redirects", CallStatus.BLOCKED),
        ("/boom", "http_error", CallStatus.ERROR),
        ("/sleepy", "timeout", CallStatus.ERROR),
    ],
)
def test_web_fetch_refusals_are_blocked_and_failures_are_errors_with_their_codes(
    server: WebTestServer, caplog: pytest.LogCaptureFixture, route: str, code: str, status: CallStatus
) -> None:
    with caplog.at_level(logging.INFO):
        outcome = call(WebFetchTool(fetch=LocalFetch(), timeout=0.5), {"url": server.url(route)})
    assert outcome.status is status and outcome.trace.status is status
    assert isinstance(outcome.result.json_content, dict)
    assert outcome.result.json_content["error_code"] == code
    assert (code in REFUSAL_CODES) == (status is CallStatus.BLOCKED)
    assert code in outcome.text, "the model reads the error document"
    assert_no_traceback(caplog)


# REQ: WEB-8
@pytest.mark.parametrize("url", ["http://[::1/", "http://[not-an-address]/", "ftp://example.test/", "no url"])
def test_web_fetch_refuses_a_malformed_url_as_blocked_without_a_traceback(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        outcome = call(WebFetchTool(fetch=LocalFetch()), {"url": url})
    assert outcome.status is CallStatus.BLOCKED and outcome.trace.status is CallStatus.BLOCKED
    assert isinstance(outcome.result.json_content, dict)
    assert outcome.result.json_content["error_code"] == "invalid_url"
    assert_no_traceback(caplog)


# REQ: WEB-8
def test_web_fetch_refuses_a_private_target_as_blocked(server: WebTestServer) -> None:
    outcome = call(WebFetchTool(), {"url": server.url("/text")})
    assert outcome.status is CallStatus.BLOCKED and outcome.trace.status is CallStatus.BLOCKED
    assert isinstance(outcome.result.json_content, dict)
    assert outcome.result.json_content["error_code"] == "url_not_allowed"


# REQ: WEB-8
def test_web_fetch_cache_honours_a_lowered_max_bytes(server: WebTestServer) -> None:
    fetch = LocalFetch()
    tool = WebFetchTool(fetch=fetch)
    url = server.url("/text")
    first = call(tool, {"url": url})
    assert first.status is CallStatus.OK and fetch.calls == 1
    assert call(tool, {"url": url, "offset": 10}).status is CallStatus.OK and fetch.calls == 1, "offsets are cached"
    lowered = call(tool, {"url": url}, {"max_bytes": 100})
    assert isinstance(lowered.result.json_content, dict)
    assert lowered.result.json_content["error_code"] == "response_too_large", "a cached body over the new limit"
    assert lowered.status is CallStatus.BLOCKED


# REQ: WEB-8
@pytest.mark.parametrize(
    ("body", "binary"),
    [
        (b"%PDF-1.7\n", True), (b"\x89PNG\r\n\x1a\n", True), (b"GIF89a", True), (b"\x1f\x8b\x08\x00", True),
        (b"\x7fELF\x02", True), (b"text\x00with a NUL", True), (bytes(range(1, 32)) * 4, True),
        (b"<html><body>fine</body></html>", False), (b"plain\ttext\r\nlines\x0c", False), (b"", False),
        ("caf\u00e9 na\u00efve".encode(), False), ("\ufeffhello".encode("utf-16"), False), (b"PDF is a format", False),
    ],
)
def test_looks_binary(body: bytes, binary: bool) -> None:
    assert looks_binary(body) is binary
