"""toolplug.net: the SSRF-safe client against real servers on 127.0.0.1 (WEB-1, WEB-2)."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from collections.abc import Iterator, Sequence
from typing import Any

import httpcore2
import pytest
from _web_server import Reply, WebTestServer, endless, gzipped, running_server, slow

from toolplug.definitions import FunctionSpec, ToolDefinition
from toolplug.net import (
    PUBLIC_ONLY,
    AddressRule,
    FetchTimeoutError,
    HTTPStatusError,
    PinnedNetworkBackend,
    ResponseTooLargeError,
    SafeHTTPClient,
    TargetPolicy,
    TooManyRedirectsError,
    UnsupportedContentTypeError,
    URLNotAllowedError,
    check_url,
    classify_address,
    parse_ip_literal,
)
from toolplug.tools import ToolImplementation

LOCAL = TargetPolicy.allow_private_hosts(["127.0.0.1"])


@pytest.fixture(scope="module")
def server() -> Iterator[WebTestServer]:
    with running_server() as running:
        yield running


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def fetch(url: str, policy: TargetPolicy = PUBLIC_ONLY, **options: Any) -> Any:
    fetch_options = {k: options.pop(k) for k in ("headers", "accept_content_type", "check", "truncate") if k in options}
    async with SafeHTTPClient(policy, **options) as client:
        return await client.fetch(url, **fetch_options)


# --- the table of refused targets -------------------------------------------------------------------

REFUSED: list[tuple[str, AddressRule]] = [
    # loopback in every spelling
    ("http://127.0.0.1/", AddressRule.LOOPBACK),
    ("http://127.1/", AddressRule.LOOPBACK),
    ("http://2130706433/", AddressRule.LOOPBACK),
    ("http://0x7f000001/", AddressRule.LOOPBACK),
    ("http://0x7f.0.0.1/", AddressRule.LOOPBACK),
    ("http://0177.0.0.1/", AddressRule.LOOPBACK),
    ("http://017700000001/", AddressRule.LOOPBACK),
    ("http://127.0.0.1./", AddressRule.LOOPBACK),
    ("http://127.255.255.254:8080/x", AddressRule.LOOPBACK),
    ("http://[::1]/", AddressRule.LOOPBACK),
    ("http://[0:0:0:0:0:0:0:1]/", AddressRule.LOOPBACK),
    ("http://[::ffff:127.0.0.1]/", AddressRule.LOOPBACK),
    ("http://[::ffff:7f00:1]/", AddressRule.LOOPBACK),
    ("http://[::127.0.0.1]/", AddressRule.LOOPBACK),
    ("http://[64:ff9b::127.0.0.1]/", AddressRule.LOOPBACK),
    ("http://[2002:7f00:1::]/", AddressRule.LOOPBACK),
    # private
    ("http://10.0.0.1/", AddressRule.PRIVATE),
    ("http://10.1/", AddressRule.PRIVATE),
    ("http://167772161/", AddressRule.PRIVATE),
    ("http://172.16.5.4/", AddressRule.PRIVATE),
    ("http://172.31.255.255/", AddressRule.PRIVATE),
    ("http://192.168.1.1/", AddressRule.PRIVATE),
    ("http://0xc0.0xa8.1.1/", AddressRule.PRIVATE),
    ("http://[::ffff:192.168.1.1]/", AddressRule.PRIVATE),
    ("http://[::ffff:0:c0a8:101]/", AddressRule.PRIVATE),
    ("http://[fd00::1]/", AddressRule.PRIVATE),
    ("http://[fc00::abcd]/", AddressRule.PRIVATE),
    ("http://[64:ff9b:1::1]/", AddressRule.PRIVATE),
    ("http://[fec0::1]/", AddressRule.PRIVATE),
    # link-local and cloud metadata
    ("http://169.254.1.1/", AddressRule.LINK_LOCAL),
    ("http://[fe80::1]/", AddressRule.LINK_LOCAL),
    ("http://169.254.169.254/latest/meta-data/", AddressRule.CLOUD_METADATA),
    ("http://2852039166/", AddressRule.CLOUD_METADATA),
    ("http://0xa9fea9fe/", AddressRule.CLOUD_METADATA),
    ("http://0251.0376.0251.0376/", AddressRule.CLOUD_METADATA),
    ("http://[::ffff:169.254.169.254]/", AddressRule.CLOUD_METADATA),
    ("http://[fd00:ec2::254]/", AddressRule.CLOUD_METADATA),
    ("http://168.63.129.16/", AddressRule.CLOUD_METADATA),
    ("http://169.254.170.2/v2/credentials", AddressRule.CLOUD_METADATA),
    # multicast, unspecified, reserved, shared, documentation, benchmarking
    ("http://224.0.0.1/", AddressRule.MULTICAST),
    ("http://239.255.255.250/", AddressRule.MULTICAST),
    ("http://[ff02::1]/", AddressRule.MULTICAST),
    ("http://0.0.0.0/", AddressRule.UNSPECIFIED),
    ("http://0/", AddressRule.UNSPECIFIED),
    ("http://[::]/", AddressRule.UNSPECIFIED),
    ("http://240.0.0.1/", AddressRule.RESERVED),
    ("http://255.255.255.255/", AddressRule.RESERVED),
    ("http://192.0.0.8/", AddressRule.RESERVED),
    ("http://[100::1]/", AddressRule.RESERVED),
    ("http://[4000::1]/", AddressRule.RESERVED),
    ("http://100.64.0.1/", AddressRule.SHARED),
    ("http://100.127.255.254/", AddressRule.SHARED),
    ("http://192.0.2.10/", AddressRule.DOCUMENTATION),
    ("http://198.51.100.7/", AddressRule.DOCUMENTATION),
    ("http://203.0.113.99/", AddressRule.DOCUMENTATION),
    ("http://[2001:db8::1]/", AddressRule.DOCUMENTATION),
    ("http://[3fff::1]/", AddressRule.DOCUMENTATION),
    ("http://198.18.0.1/", AddressRule.BENCHMARKING),
    # Teredo whose server or (inverted) client address is private
    ("http://[2001:0:0a00:0001::]/", AddressRule.PRIVATE),
    ("http://[2001:0:5db8:1::3f57:fefe]/", AddressRule.PRIVATE),
]


# REQ: WEB-1
# REQ: WEB-2
@pytest.mark.parametrize(("url", "rule"), REFUSED, ids=[url for url, _ in REFUSED])
def test_every_special_range_is_refused_in_every_spelling(url: str, rule: AddressRule) -> None:
    with pytest.raises(URLNotAllowedError) as caught:
        check_url(url, PUBLIC_ONLY)
    assert caught.value.rule == rule.value
    assert rule.value in str(caught.value)
    assert caught.value.address, "the refusal names the address it judged"


# REQ: WEB-1
@pytest.mark.parametrize(
    ("url", "rule"),
    [
        ("ftp://example.com/file", "scheme"),
        ("file:///etc/passwd", "scheme"),
        ("gopher://example.com/", "scheme"),
        ("javascript:alert(1)", "scheme"),
        ("http://user:secret@example.com/", "credentials"),
        ("https://token@example.com/", "credentials"),
        ("http://127.0.0.1:80@example.com/", "credentials"),
        ("http://[fe80::1%25eth0]/", "host syntax"),
        ("http://%6c%6fcalhost/", "host syntax"),
        ("http://exa\tmple.com/", "url syntax"),
        ("http://example.com\x00.evil/", "url syntax"),
        ("http://exa mple.com/", "url syntax"),
        ("http://example.com\\@127.0.0.1/", "url syntax"),
        ("http://localhost/", "special-use name"),
        ("http://LOCALHOST./", "special-use name"),
        ("http://api.localhost/", "special-use name"),
        ("http://printer.local/", "special-use name"),
        ("http://metadata.google.internal/", "special-use name"),
        ("http://router.home.arpa/", "special-use name"),
        ("http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "loopback"),  # full-width digits
    ],
)
def test_urls_are_refused_before_any_network_use(url: str, rule: str) -> None:
    with pytest.raises(URLNotAllowedError) as caught:
        check_url(url, PUBLIC_ONLY)
    assert caught.value.rule == rule
    assert "secret" not in str(caught.value), "credentials never appear in the message"


# REQ: WEB-1
@pytest.mark.parametrize(
    "address",
    [
        "93.184.216.34",
        "8.8.8.8",
        "1.1.1.1",
        "2606:4700:4700::1111",
        "::ffff:8.8.8.8",
        "64:ff9b::808:808",
        "2002:808:808::1",
        "172.32.0.1",
        "100.128.0.1",
        "11.0.0.1",
    ],
)
def test_public_addresses_pass(address: str) -> None:
    assert classify_address(address) is None
    PUBLIC_ONLY.check_address("example.com", ipaddress.ip_address(address))


# REQ: WEB-1
def test_loose_ipv4_spellings_decode_like_a_resolver() -> None:
    assert str(parse_ip_literal("2130706433")) == "127.0.0.1"
    assert str(parse_ip_literal("0x7f.1")) == "127.0.0.1"
    assert str(parse_ip_literal("0177.0.0.01")) == "127.0.0.1"
    assert str(parse_ip_literal("10.1")) == "10.0.0.1"
    assert parse_ip_literal("example.com") is None
    assert parse_ip_literal("1.2.3.4.5") is None
    assert parse_ip_literal("256.1.1.1") is None


# REQ: WEB-2
def test_allowlist_admits_only_listed_private_hosts_and_never_metadata() -> None:
    policy = TargetPolicy.allow_private_hosts(["intranet.corp", "10.2.0.0/16", "192.168.1.5"])
    policy.check_address("intranet.corp", ipaddress.ip_address("10.9.9.9"))
    policy.check_address("other", ipaddress.ip_address("10.2.3.4"))
    check_url("http://192.168.1.5/", policy)
    with pytest.raises(URLNotAllowedError):
        policy.check_address("elsewhere.corp", ipaddress.ip_address("10.9.9.9"))
    with pytest.raises(URLNotAllowedError) as caught:
        policy.check_address("intranet.corp", ipaddress.ip_address("169.254.169.254"))
    assert caught.value.rule == AddressRule.CLOUD_METADATA.value
    with pytest.raises(ValueError, match="not a host name"):
        TargetPolicy.allow_private_hosts(["not a host!"])


# REQ: WEB-2
def test_user_chosen_policy_is_unrestricted_but_keeps_scheme_and_credential_rules() -> None:
    policy = TargetPolicy.user_chosen()
    check_url("http://127.0.0.1:8080/", policy)
    check_url("http://localhost/", policy)
    with pytest.raises(URLNotAllowedError):
        check_url("file:///etc/passwd", policy)
    with pytest.raises(URLNotAllowedError):
        check_url("http://a:b@localhost/", policy)


class _FetchesPrivateURL(ToolImplementation):
    """A tool that fetches whatever URL it is given through the public-only client."""

    implementation_key = "fetch_private"

    def definition(self) -> ToolDefinition:
        from toolplug.schema import ToolParameterSchemaBuilder

        return ToolDefinition(
            id="fetch_private", implementation_key="fetch_private",
            function=FunctionSpec(name="fetch_private", description_for_llm="Fetch a URL.",
                                  parameters=ToolParameterSchemaBuilder().required_string("url", "URL").build()),
        )

    async def execute(self, arguments: dict[str, Any], context: Any) -> str:
        async with SafeHTTPClient(PUBLIC_ONLY) as client:
            await client.fetch(arguments["url"])
        return "fetched"


# REQ: WEB-2
def test_a_refusal_is_a_blocked_tool_call_with_the_rule_in_its_message(caplog: pytest.LogCaptureFixture) -> None:
    from toolplug.execution import CallStatus, ToolExecutor
    from toolplug.registry import Origin, ToolRegistry

    tool = _FetchesPrivateURL()
    definition = tool.definition()
    registered = ToolRegistry().add(definition, {"fetch_private": (tool, Origin("t"))}, Origin("t"))
    assert registered is not None
    with caplog.at_level(logging.INFO):
        outcome = asyncio.run(ToolExecutor().execute(registered, {"url": "http://10.0.0.1/"}))
    assert outcome.status is CallStatus.BLOCKED and outcome.trace.status is CallStatus.BLOCKED
    assert "10.0.0.1" in outcome.text and "private" in outcome.text.lower()
    assert "Traceback" not in caplog.text, "a refusal is not a crash"


# --- the pinned connection ----------------------------------------------------------------------


class RecordingDialer(httpcore2.AsyncNetworkBackend):
    """Records which address the client dialed and the TLS server name, then reaches the test server."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.dialed: list[tuple[str, int]] = []
        self.server_names: list[str | None] = []
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> Any:
        self.dialed.append((host, port))
        stream = await self._inner.connect_tcp("127.0.0.1", self.port, timeout=timeout)
        return _TLSRecorder(stream, self)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class _TLSRecorder(httpcore2.AsyncNetworkStream):
    def __init__(self, stream: Any, owner: RecordingDialer) -> None:
        self._stream = stream
        self._owner = owner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return bytes(await self._stream.read(max_bytes, timeout))

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._stream.write(buffer, timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> Any:
        self._owner.server_names.append(server_hostname)
        await self._stream.aclose()
        raise httpcore2.ConnectError(f"test stops before the handshake (server name {server_hostname})")

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class SequenceResolver:
    """Answers each lookup with the next answer in the list (a DNS server that rebinds)."""

    def __init__(self, answers: Sequence[Sequence[str]]) -> None:
        self.answers = list(answers)
        self.calls: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.calls.append(host)
        return list(self.answers[min(len(self.calls) - 1, len(self.answers) - 1)])


# REQ: WEB-1
def test_a_public_name_is_dialed_at_the_checked_address_with_its_host_header(server: WebTestServer) -> None:
    server.routes["/pinned"] = Reply(body="<p>pinned</p>")
    dialer = RecordingDialer(server.port)
    resolver = SequenceResolver([["93.184.216.34"]])
    response = run(fetch(f"http://public.example:{server.port}/pinned", resolver=resolver, dialer=dialer))
    assert response.text == "<p>pinned</p>"
    assert dialer.dialed == [("93.184.216.34", server.port)], "the socket goes to the checked address, not the name"
    assert resolver.calls == ["public.example"], "resolved exactly once"
    assert server.requests[-1].headers["host"] == f"public.example:{server.port}"


# REQ: WEB-1
def test_tls_server_name_stays_the_host_name_while_the_address_is_pinned(server: WebTestServer) -> None:
    dialer = RecordingDialer(server.port)  # the recorder stops at the handshake
    resolver = SequenceResolver([["93.184.216.34"]])
    with pytest.raises(Exception, match=r"server name secure\.example"):
        run(fetch("https://secure.example/", resolver=resolver, dialer=dialer))
    assert dialer.dialed == [("93.184.216.34", 443)]
    assert dialer.server_names == ["secure.example"]


# REQ: WEB-1
def test_dns_rebinding_cannot_move_a_checked_connection(server: WebTestServer) -> None:
    server.routes["/rebind"] = Reply(body="first answer", headers={"Connection": "close"})
    dialer = RecordingDialer(server.port)
    resolver = SequenceResolver([["93.184.216.34"], ["127.0.0.1"]])

    async def scenario() -> None:
        async with SafeHTTPClient(resolver=resolver, dialer=dialer) as client:
            first = await client.fetch(f"http://rebind.example:{server.port}/rebind")
            assert first.text == "first answer"
            with pytest.raises(URLNotAllowedError) as caught:
                await client.fetch(f"http://rebind.example:{server.port}/rebind")
            assert caught.value.rule == "loopback"
            assert caught.value.host == "rebind.example"

    run(scenario())
    assert dialer.dialed == [("93.184.216.34", server.port)], "the second, private answer was never dialed"


# REQ: WEB-1
def test_a_name_with_any_private_answer_is_refused() -> None:
    resolver = SequenceResolver([["93.184.216.34", "10.0.0.5"]])
    with pytest.raises(URLNotAllowedError) as caught:
        run(fetch("http://mixed.example/", resolver=resolver, dialer=RecordingDialer(1)))
    assert caught.value.rule == "private"
    assert "10.0.0.5" in str(caught.value) and "mixed.example" in str(caught.value)


# REQ: WEB-1
def test_the_backend_never_opens_unix_sockets() -> None:
    backend = PinnedNetworkBackend(PUBLIC_ONLY)
    with pytest.raises(URLNotAllowedError):
        run(backend.connect_unix_socket("/var/run/docker.sock"))


# --- redirects ------------------------------------------------------------------------------------


# REQ: WEB-1
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize(
    "location",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://[::1]/",
        "http://localhost/",
        "http://0x7f.2/",
        "file:///etc/passwd",
    ],
)
def test_redirects_to_refused_targets_are_refused(server: WebTestServer, status: int, location: str) -> None:
    server.routes["/hop"] = Reply(status, headers={"Location": location})
    with pytest.raises(URLNotAllowedError):
        run(fetch(server.url("/hop"), LOCAL))


# REQ: WEB-1
def test_relative_and_absolute_redirects_are_followed_and_recorded(server: WebTestServer) -> None:
    server.routes["/r1"] = Reply(302, headers={"Location": "/r2"})
    server.routes["/r2"] = Reply(301, headers={"Location": server.url("/r3")})
    server.routes["/r3"] = Reply(307, headers={"Location": "final?x=1"})
    server.routes["/final"] = Reply(body="done")
    response = run(fetch(server.url("/r1"), LOCAL))
    assert response.text == "done"
    assert response.final_url == server.url("/final?x=1")
    assert response.redirects == [server.url("/r2"), server.url("/r3"), server.url("/final?x=1")]


# REQ: WEB-1
def test_a_relative_redirect_is_checked_like_any_hop(server: WebTestServer) -> None:
    server.routes["/to-meta"] = Reply(302, headers={"Location": "//169.254.169.254/latest"})
    with pytest.raises(URLNotAllowedError) as caught:
        run(fetch(server.url("/to-meta"), LOCAL))
    assert caught.value.rule == "cloud metadata"


# REQ: WEB-1
def test_redirects_are_bounded(server: WebTestServer) -> None:
    server.routes["/loop"] = Reply(302, headers={"Location": "/loop"})
    with pytest.raises(TooManyRedirectsError):
        run(fetch(server.url("/loop"), LOCAL, max_redirects=3))
    hops = [r for r in server.requests if r.path == "/loop"]
    assert len(hops) == 4


# REQ: WEB-1
def test_an_extra_check_runs_on_every_hop(server: WebTestServer) -> None:
    server.routes["/away"] = Reply(302, headers={"Location": "http://127.0.0.1:1/elsewhere"})
    seen: list[str] = []

    def check(url: Any) -> None:
        seen.append(str(url))
        if url.port == 1:
            raise URLNotAllowedError("port 1 is not on the list", rule="allowed domains")

    with pytest.raises(URLNotAllowedError, match="port 1"):
        run(fetch(server.url("/away"), LOCAL, check=check))
    assert seen == [server.url("/away"), "http://127.0.0.1:1/elsewhere"]


# --- bodies, time, headers ----------------------------------------------------------------------


# REQ: WEB-1
def test_an_endless_body_is_cut_while_streaming(server: WebTestServer) -> None:
    server.routes["/endless"] = Reply(stream=endless())
    with pytest.raises(ResponseTooLargeError) as caught:
        run(fetch(server.url("/endless"), LOCAL, max_bytes=200_000, timeout=10))
    assert caught.value.limit == 200_000
    response = run(fetch(server.url("/endless"), LOCAL, max_bytes=100_000, truncate=True))
    assert len(response.content) == 100_000 and response.truncated


# REQ: WEB-1
def test_a_declared_length_over_the_limit_is_refused_before_reading(server: WebTestServer) -> None:
    server.routes["/big"] = Reply(body=b"y" * 50_000)
    with pytest.raises(ResponseTooLargeError, match="declares 50000 bytes"):
        run(fetch(server.url("/big"), LOCAL, max_bytes=10_000))


# REQ: WEB-1
def test_a_gzip_bomb_is_capped_on_decoded_size(server: WebTestServer) -> None:
    server.routes["/bomb"] = gzipped("<p>" + "a" * 2_000_000 + "</p>")
    with pytest.raises(ResponseTooLargeError):
        run(fetch(server.url("/bomb"), LOCAL, max_bytes=100_000))


# REQ: WEB-1
def test_a_slow_server_hits_the_whole_exchange_timeout(server: WebTestServer) -> None:
    server.routes["/slow"] = Reply(stream=slow(chunks=20, pause=0.1))
    with pytest.raises(FetchTimeoutError, match=r"longer than 0\.5 seconds"):
        run(fetch(server.url("/slow"), LOCAL, timeout=0.5))
    server.routes["/late"] = Reply(body="late", delay=1.0)
    with pytest.raises(FetchTimeoutError):
        run(fetch(server.url("/late"), LOCAL, timeout=0.3))


# REQ: WEB-1
def test_no_cookies_credentials_or_environment_proxies(server: WebTestServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    server.routes["/set-cookie"] = Reply(302, headers={"Set-Cookie": "session=abc; Path=/", "Location": "/echo"})
    server.routes["/echo"] = Reply(body="ok")
    response = run(
        fetch(
            server.url("/set-cookie"), LOCAL, headers={"Cookie": "a=b", "Authorization": "Bearer secret", "X-Test": "1"}
        )
    )
    assert response.text == "ok", "the proxy in the environment was ignored (port 9 would refuse)"
    last = server.requests[-1].headers
    assert "cookie" not in last and "authorization" not in last
    assert last["x-test"] == "1"


# REQ: WEB-1
def test_status_and_content_type_are_reported_with_types(server: WebTestServer) -> None:
    server.routes["/missing-page"] = Reply(404, "gone", "text/plain")
    with pytest.raises(HTTPStatusError) as caught:
        run(fetch(server.url("/missing-page"), LOCAL))
    assert caught.value.status_code == 404
    server.routes["/image"] = Reply(body=b"\x89PNG....", content_type="image/png")
    with pytest.raises(UnsupportedContentTypeError) as unsupported:
        run(fetch(server.url("/image"), LOCAL, accept_content_type=lambda t: t.startswith("text/")))
    assert unsupported.value.content_type == "image/png"


# REQ: WEB-1
def test_charset_and_decoding(server: WebTestServer) -> None:
    server.routes["/latin1"] = Reply(body="café".encode("latin-1"), content_type="text/plain; charset=ISO-8859-1")
    response = run(fetch(server.url("/latin1"), LOCAL))
    assert response.charset == "ISO-8859-1" and response.text == "café"
    assert response.content_type == "text/plain"
