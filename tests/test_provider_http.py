"""The shared HTTP layer: retries with Retry-After, error mapping without the key, SSE, recording (WIRE-5)."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import pytest
from _provider_server import Reply, provider_server

from toolplug.errors import (
    ProviderAuthenticationError,
    ProviderConnectionError,
    ProviderHTTPError,
    ProviderRateLimitError,
    ProviderResponseError,
)
from toolplug.providers.http import (
    ExchangeRecorder,
    ProviderHTTPClient,
    RetryPolicy,
    ServerSentEvent,
    SSEDecoder,
    close_shared_http_clients,
    retry_after_seconds,
    shared_http_client,
)

KEY = "sk-test-secret-key-123456"


def client(url: str, *, retries: int = 2, recorder: ExchangeRecorder | None = None) -> ProviderHTTPClient:
    return ProviderHTTPClient(
        provider="acme",
        base_url=url,
        headers={"authorization": f"Bearer {KEY}", "x-api-key": KEY},
        secrets=(KEY,),
        timeout=5,
        retry=RetryPolicy(max_retries=retries, backoff_base=0.01),
        recorder=recorder,
    )


def test_retries_429_honouring_retry_after() -> None:
    # REQ: WIRE-5
    with provider_server() as server:
        server.reply(
            Reply(429, {"error": {"message": "slow down"}}, headers={"retry-after": "1"}),
            Reply(200, {"ok": True}),
        )
        started = time.monotonic()
        response = asyncio.run(client(server.url).post_json("/x", {"a": 1}))
        elapsed = time.monotonic() - started
    assert response.data == {"ok": True}
    assert len(server.requests) == 2
    assert elapsed >= 0.95  # waited as the server asked, not the 10 ms backoff


def test_retry_after_forms() -> None:
    # REQ: WIRE-5
    assert retry_after_seconds({"Retry-After": "3"}) == 3
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert 0 <= (retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) or 0) < 1
    assert retry_after_seconds({}) is None
    policy = RetryPolicy(max_retries=2, retry_after_max=10)
    assert policy.delay(1, {"retry-after": "60"}) is None  # asks for too long: stop retrying
    assert policy.delay(3, None) is None  # bounded


def test_500_retried_then_http_error_with_status_provider_and_request_id() -> None:
    # REQ: WIRE-5
    with provider_server() as server:
        error = Reply(500, {"error": {"message": "boom", "type": "server_error"}})
        server.reply(error, error, error)
        with pytest.raises(ProviderHTTPError) as caught:
            asyncio.run(client(server.url).post_json("/x", {}))
    assert len(server.requests) == 3  # first try and two retries, then no more
    exc = caught.value
    assert (exc.status, exc.provider, exc.request_id) == (500, "acme", "req_test_1")
    assert "boom" in str(exc)


def test_401_is_an_authentication_error_that_never_shows_the_key() -> None:
    # REQ: WIRE-5
    with provider_server() as server:
        server.reply(
            Reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}", "type": "invalid_request_error"}})
        )
        with pytest.raises(ProviderAuthenticationError) as caught:
            asyncio.run(client(server.url).post_json("/x", {}))
    assert len(server.requests) == 1  # never retried
    assert caught.value.status == 401
    assert KEY not in str(caught.value) and "[REDACTED]" in str(caught.value)
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was sent, only never shown


def test_429_after_every_retry_is_a_rate_limit_error() -> None:
    # REQ: WIRE-5
    with provider_server() as server:
        limited = Reply(429, {"error": {"message": "rate limited"}})
        server.reply(limited, limited)
        with pytest.raises(ProviderRateLimitError) as caught:
            asyncio.run(client(server.url, retries=1).post_json("/x", {}))
    assert caught.value.status == 429 and len(server.requests) == 2


def test_malformed_json_is_a_response_error() -> None:
    # REQ: WIRE-5
    with provider_server() as server:
        server.reply(Reply(200, raw=b"{not json"))
        with pytest.raises(ProviderResponseError) as caught:
            asyncio.run(client(server.url).post_json("/x", {}))
    assert caught.value.request_id == "req_test_1" and "not JSON" in str(caught.value)


def test_nothing_listening_is_a_connection_error() -> None:
    # REQ: WIRE-5
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ProviderConnectionError, match="base_url"):
        asyncio.run(client(f"http://127.0.0.1:{port}", retries=1).post_json("/x", {}))


def test_sse_decoder_is_incremental_at_every_split() -> None:
    # REQ: WIRE-5
    stream = (
        b': comment\r\nevent: first\r\ndata: {"a": 1}\r\n\r\n'
        b"data: line one\ndata: line two\nid: 7\n\n"
        b"data:no-space\r\rdata: last"
    )
    expected = [
        ServerSentEvent("first", '{"a": 1}'),
        ServerSentEvent("message", "line one\nline two", "7"),
        ServerSentEvent("message", "no-space", "7"),
        ServerSentEvent("message", "last", "7"),
    ]
    for split in range(len(stream) + 1):
        decoder = SSEDecoder()
        events = decoder.feed(stream[:split]) + decoder.feed(stream[split:]) + decoder.flush()
        assert events == expected, split
    decoder = SSEDecoder()
    one_by_one = [e for i in range(len(stream)) for e in decoder.feed(stream[i : i + 1])] + decoder.flush()
    assert one_by_one == expected


def test_recorder_writes_numbered_files_with_keys_redacted(tmp_path: Path) -> None:
    # REQ: WIRE-5
    recorder = ExchangeRecorder(tmp_path / "rec")
    with provider_server() as server:
        server.reply(Reply(200, {"echo": KEY}), Reply(400, {"error": {"message": "bad"}}))
        http = client(server.url, recorder=recorder)
        asyncio.run(http.post_json("/v1/x", {"input": f"my key is {KEY}"}))
        with pytest.raises(ProviderHTTPError):
            asyncio.run(http.post_json("/v1/x", {}))
    files = sorted((tmp_path / "rec").iterdir())
    assert [f.name for f in files] == ["0001-acme.json", "0002-acme.json"]
    for file in files:
        assert KEY not in file.read_text()
    first = json.loads(files[0].read_text())
    assert first["request"]["headers"]["authorization"] == "[REDACTED]"
    assert first["request"]["headers"]["x-api-key"] == "[REDACTED]"
    assert first["request"]["body"] == {"input": "my key is [REDACTED]"}
    assert first["response"]["status"] == 200 and first["response"]["body"] == {"echo": "[REDACTED]"}
    assert json.loads(files[1].read_text())["response"]["status"] == 400


def test_shared_client_is_one_per_owner_and_loop() -> None:
    # REQ: WIRE-5
    class Owner:
        pass

    owner = Owner()

    async def run() -> None:
        first = shared_http_client(owner)
        assert shared_http_client(owner) is first
        assert shared_http_client(Owner()) is not first
        await close_shared_http_clients(owner)
        assert first.is_closed

    asyncio.run(run())
