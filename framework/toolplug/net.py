"""The SSRF-safe HTTP client every page read goes through.

:class:`SafeHTTPClient` fetches one URL with GET and:

- accepts only ``http`` and ``https`` URLs without credentials, with a host that is not spelled to
  hide what it is (control characters, percent signs, zone ids, loose IPv4 numbers are decoded and
  judged as the address they are);
- resolves the host name once, checks *every* address of the answer against its
  :class:`TargetPolicy`, and dials the checked address itself while the ``Host`` header and the TLS
  server name stay the host name (a :class:`PinnedNetworkBackend` under the httpx2 transport), so a
  second DNS answer cannot move the connection somewhere else;
- follows redirects by hand, each hop checked the same way, at most ``max_redirects`` of them;
- caps the body while streaming, sends no cookies or credentials, ignores proxies from the
  environment, and limits both connecting and the whole exchange in time.

Addresses are judged with an explicit table of special-purpose ranges (:data:`SPECIAL_PURPOSE_RANGES`,
after the IANA registries), not ``ipaddress``'s ``is_private``/``is_global`` flags, which changed
between Python releases. Addresses that embed an IPv4 address (IPv4-mapped, -compatible and
-translated IPv6, NAT64, 6to4, Teredo) are judged by the address they carry as well.

Every refusal is a :class:`URLNotAllowedError` naming the rule, the host and the address.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import ipaddress
import re
import socket
import ssl
import time
import unicodedata
import urllib.parse
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpcore2
import httpx2

from toolplug.errors import ToolExecutionBlockedError, ToolplugError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Resolves ``(host, port)`` to IP address strings; the default asks the OS (``getaddrinfo``)."""
URLCheck = Callable[[httpx2.URL], None]
"""An extra check run on the first URL and on every redirect target; raises to refuse."""

DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_MAX_REDIRECTS = 5
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_TIMEOUT = 30.0
DEFAULT_USER_AGENT = "toolplug/0.1 (+https://pypi.org/project/toolplug/)"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


# --- errors ---------------------------------------------------------------------------------------


class WebRequestError(ToolplugError):
    """A page could not be fetched. ``url`` is the URL being fetched when it failed."""

    def __init__(self, message: str, *, url: str = "") -> None:
        super().__init__(message)
        self.url = url


class URLNotAllowedError(WebRequestError, ToolExecutionBlockedError):
    """The target policy refused a URL or an address; ``rule`` names the rule that refused it.

    Also a :class:`~toolplug.errors.ToolExecutionBlockedError`: a tool that lets it escape reports a
    blocked call, and the message (which holds no secret) goes to the model.
    """

    def __init__(self, message: str, *, url: str = "", rule: str, host: str = "", address: str = "") -> None:
        super().__init__(message, url=url)
        self.rule = rule
        self.host = host
        self.address = address


class TooManyRedirectsError(WebRequestError):
    """More redirects than the client allows."""


class ResponseTooLargeError(WebRequestError):
    """The body grew past the byte limit while streaming (or its declared length was over it)."""

    def __init__(self, message: str, *, url: str = "", limit: int) -> None:
        super().__init__(message, url=url)
        self.limit = limit


class UnsupportedContentTypeError(WebRequestError):
    """The response's content type is not one the caller accepts; the body was not read."""

    def __init__(self, message: str, *, url: str = "", content_type: str) -> None:
        super().__init__(message, url=url)
        self.content_type = content_type


class FetchTimeoutError(WebRequestError):
    """Connecting or the whole exchange took longer than allowed."""


class FetchConnectionError(WebRequestError):
    """The server could not be reached or broke the exchange."""


class HTTPStatusError(WebRequestError):
    """The server answered with a status that is not 2xx."""

    def __init__(self, message: str, *, url: str = "", status_code: int) -> None:
        super().__init__(message, url=url)
        self.status_code = status_code


# --- the table of special-purpose addresses ---------------------------------------------------------


class AddressRule(enum.StrEnum):
    """Why an address is not a public internet address; the rule names refusals carry."""

    LOOPBACK = "loopback"
    PRIVATE = "private"
    LINK_LOCAL = "link-local"
    MULTICAST = "multicast"
    UNSPECIFIED = "unspecified"
    RESERVED = "reserved"
    SHARED = "shared address space"
    DOCUMENTATION = "documentation"
    BENCHMARKING = "benchmarking"
    CLOUD_METADATA = "cloud metadata"


@dataclass(frozen=True, slots=True)
class SpecialRange:
    """One row of :data:`SPECIAL_PURPOSE_RANGES`."""

    network: ipaddress.IPv4Network | ipaddress.IPv6Network
    rule: AddressRule
    name: str


def _rows(rows: Iterable[tuple[str, AddressRule, str]]) -> tuple[SpecialRange, ...]:
    return tuple(SpecialRange(ipaddress.ip_network(net), rule, name) for net, rule, name in rows)


_R = AddressRule
SPECIAL_PURPOSE_RANGES: tuple[SpecialRange, ...] = _rows(
    [
        # Cloud metadata first: it is the most specific row and the most dangerous target.
        ("169.254.169.254/32", _R.CLOUD_METADATA, "instance metadata (AWS, GCP, Azure, OpenStack)"),
        ("169.254.170.2/32", _R.CLOUD_METADATA, "AWS ECS task metadata"),
        ("168.63.129.16/32", _R.CLOUD_METADATA, "Azure WireServer"),
        ("100.100.100.200/32", _R.CLOUD_METADATA, "Alibaba Cloud metadata"),
        ("fd00:ec2::254/128", _R.CLOUD_METADATA, "AWS instance metadata over IPv6"),
        # IPv4, RFC 6890 and the IANA IPv4 special-purpose registry.
        ("0.0.0.0/8", _R.UNSPECIFIED, "this network"),
        ("10.0.0.0/8", _R.PRIVATE, "private-use"),
        ("100.64.0.0/10", _R.SHARED, "shared address space (carrier-grade NAT)"),
        ("127.0.0.0/8", _R.LOOPBACK, "loopback"),
        ("169.254.0.0/16", _R.LINK_LOCAL, "link-local"),
        ("172.16.0.0/12", _R.PRIVATE, "private-use"),
        ("192.0.0.0/24", _R.RESERVED, "IETF protocol assignments"),
        ("192.0.2.0/24", _R.DOCUMENTATION, "TEST-NET-1"),
        ("192.88.99.0/24", _R.RESERVED, "6to4 relay anycast (deprecated)"),
        ("192.168.0.0/16", _R.PRIVATE, "private-use"),
        ("198.18.0.0/15", _R.BENCHMARKING, "network benchmarking"),
        ("198.51.100.0/24", _R.DOCUMENTATION, "TEST-NET-2"),
        ("203.0.113.0/24", _R.DOCUMENTATION, "TEST-NET-3"),
        ("224.0.0.0/4", _R.MULTICAST, "multicast"),
        ("255.255.255.255/32", _R.RESERVED, "limited broadcast"),
        ("240.0.0.0/4", _R.RESERVED, "reserved for future use"),
        # IPv6, the IANA IPv6 special-purpose registry.
        ("::/128", _R.UNSPECIFIED, "unspecified"),
        ("::1/128", _R.LOOPBACK, "loopback"),
        ("64:ff9b:1::/48", _R.PRIVATE, "local-use NAT64"),
        ("100::/64", _R.RESERVED, "discard-only"),
        ("2001:2::/48", _R.BENCHMARKING, "benchmarking"),
        ("2001:db8::/32", _R.DOCUMENTATION, "documentation"),
        ("2001:10::/28", _R.RESERVED, "ORCHID (deprecated)"),
        ("2001:20::/28", _R.RESERVED, "ORCHIDv2"),
        ("3fff::/20", _R.DOCUMENTATION, "documentation"),
        ("5f00::/16", _R.RESERVED, "segment routing SIDs"),
        ("fc00::/7", _R.PRIVATE, "unique local"),
        ("fe80::/10", _R.LINK_LOCAL, "link-local"),
        ("fec0::/10", _R.PRIVATE, "site-local (deprecated)"),
        ("ff00::/8", _R.MULTICAST, "multicast"),
    ]
)
"""Every special-purpose range, most specific first; an address in none of them is public."""

_GLOBAL_UNICAST_V6 = ipaddress.IPv6Network("2000::/3")
_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")
_TRANSLATED = ipaddress.IPv6Network("::ffff:0:0:0/96")
_COMPATIBLE = ipaddress.IPv6Network("::/96")
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.IPv6Network("2002::/16")
_TEREDO = ipaddress.IPv6Network("2001::/32")
_V4_RANGES = tuple(row for row in SPECIAL_PURPOSE_RANGES if row.network.version == 4)
_V6_RANGES = tuple(row for row in SPECIAL_PURPOSE_RANGES if row.network.version == 6)

SPECIAL_USE_NAMES: tuple[str, ...] = ("localhost", "local", "internal", "home.arpa", "localdomain")
"""Names (and their subdomains) that never denote a public host (RFC 6761, 6762, 8375)."""


@dataclass(frozen=True, slots=True)
class AddressVerdict:
    """Why an address is special: the rule, the range's name, and the embedded IPv4 address if any."""

    rule: AddressRule
    range_name: str
    network: str
    embedded: str | None = None
    """The IPv4 address an IPv6 form carried, when that is what made it special."""

    def describe(self, address: str) -> str:
        """``127.0.0.1 is loopback (127.0.0.0/8 loopback)``, naming the carried address if any."""
        if self.embedded:
            return (
                f"{address} carries {self.embedded}, which is {self.rule.value} ({self.network} {self.range_name})"
            )
        return f"{address} is {self.rule.value} ({self.network} {self.range_name})"


def classify_address(address: IPAddress | str) -> AddressVerdict | None:
    """The special-purpose range ``address`` falls in, or None for a public address."""
    ip = ipaddress.ip_address(address) if isinstance(address, str) else address
    if isinstance(ip, ipaddress.IPv4Address):
        return _classify_v4(ip)
    if ip.scope_id:
        return AddressVerdict(AddressRule.LINK_LOCAL, "address with a zone id", f"%{ip.scope_id}")
    for row in _V6_RANGES:
        if ip in row.network:
            return AddressVerdict(row.rule, row.name, str(row.network))
    for embedded in _embedded_ipv4(ip):
        verdict = _classify_v4(embedded)
        if verdict is not None:
            return AddressVerdict(verdict.rule, verdict.range_name, verdict.network, embedded=str(embedded))
    if ip in _MAPPED or ip in _COMPATIBLE or ip in _TRANSLATED or ip in _NAT64:
        return None  # carries a public IPv4 address
    if ip not in _GLOBAL_UNICAST_V6:
        return AddressVerdict(AddressRule.RESERVED, "outside global unicast", "not 2000::/3")
    return None


def _classify_v4(ip: ipaddress.IPv4Address) -> AddressVerdict | None:
    for row in _V4_RANGES:
        if ip in row.network:
            return AddressVerdict(row.rule, row.name, str(row.network))
    return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    value = int(ip)
    low32 = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if ip in _MAPPED or ip in _TRANSLATED or ip in _NAT64 or ip in _COMPATIBLE:
        return [low32]
    if ip in _SIX_TO_FOUR:
        return [ipaddress.IPv4Address((value >> 80) & 0xFFFFFFFF)]
    if ip in _TEREDO:
        server = ipaddress.IPv4Address((value >> 64) & 0xFFFFFFFF)
        client = ipaddress.IPv4Address(~value & 0xFFFFFFFF)  # Teredo stores the client address inverted
        return [server, client]
    return []


def parse_ip_literal(host: str) -> IPAddress | None:
    """The address ``host`` denotes when it is an IP literal in any spelling, else None.

    Accepts what resolvers accept: dotted decimal, the ``inet_aton`` forms (``2130706433``,
    ``0x7f.1``, ``0177.0.0.1``, ``127.1``), bracketed or bare IPv6, and a trailing dot.
    """
    text = host.strip().rstrip(".")
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    if ":" in text:
        try:
            return ipaddress.IPv6Address(text.replace("%25", "%"))
        except ValueError:
            return None
    return _parse_loose_ipv4(text)


_V4_PART = re.compile(r"^(0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*)$")


def _parse_loose_ipv4(text: str) -> ipaddress.IPv4Address | None:
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_V4_PART.match(part) for part in parts):
        return None
    numbers = []
    for part in parts:
        if part[:2] in ("0x", "0X"):
            numbers.append(int(part[2:] or "0", 16))
        elif len(part) > 1 and part[0] == "0":
            numbers.append(int(part, 8))
        else:
            numbers.append(int(part))
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for index, number in enumerate(head):
        value += number << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


# --- target policies --------------------------------------------------------------------------------


class PolicyKind(enum.StrEnum):
    """Who chose the URL decides which targets are acceptable."""

    PUBLIC_ONLY = "public-only"
    """Public internet addresses only; for every URL a model supplied."""
    ALLOWLIST = "public-and-allowlisted-private"
    """Public addresses, plus private ones of the hosts an admin listed."""
    USER_CHOSEN = "user-chosen"
    """No address restriction: a person typed the URL. Never for a URL that came from a model."""


_ALLOWLISTABLE = frozenset({AddressRule.LOOPBACK, AddressRule.PRIVATE, AddressRule.LINK_LOCAL, AddressRule.SHARED})


@dataclass(frozen=True, slots=True)
class TargetPolicy:
    """Which hosts and addresses a request may reach. Build with the class methods."""

    kind: PolicyKind
    private_hosts: frozenset[str] = frozenset()
    """For ALLOWLIST: lower-case host names without trailing dot."""
    private_networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    """For ALLOWLIST: addresses or networks written in the allowlist."""

    @classmethod
    def public_only(cls) -> TargetPolicy:
        """Public addresses only."""
        return cls(PolicyKind.PUBLIC_ONLY)

    @classmethod
    def user_chosen(cls) -> TargetPolicy:
        """No address restriction, for a URL a person typed; never use it for a model's URL."""
        return cls(PolicyKind.USER_CHOSEN)

    @classmethod
    def allow_private_hosts(cls, entries: Iterable[str]) -> TargetPolicy:
        """Public addresses plus the listed private hosts: names, IP addresses or CIDR networks.

        A listed host may be loopback, private, link-local or shared; cloud metadata, multicast,
        unspecified, documentation and reserved addresses stay refused.
        Raises ``ValueError`` naming the first entry that is none of these.
        """
        names: set[str] = set()
        networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for raw in entries:
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            literal = parse_ip_literal(entry) if "/" not in entry else None
            if literal is not None:
                networks.append(ipaddress.ip_network(literal))
            elif "/" in entry:
                try:
                    networks.append(ipaddress.ip_network(entry, strict=False))
                except ValueError:
                    raise ValueError(f"{raw!r} is not a host name, IP address or CIDR network") from None
            elif _HOST_NAME.match(entry):
                names.add(entry)
            else:
                raise ValueError(f"{raw!r} is not a host name, IP address or CIDR network")
        return cls(PolicyKind.ALLOWLIST, frozenset(names), tuple(networks))

    def check_address(self, host: str, address: IPAddress, *, url: str = "") -> None:
        """Raise :class:`URLNotAllowedError` unless ``host`` may be reached at ``address``."""
        if self.kind is PolicyKind.USER_CHOSEN:
            return
        verdict = classify_address(address)
        if verdict is None:
            return
        if self.kind is PolicyKind.ALLOWLIST and verdict.rule in _ALLOWLISTABLE and self._allowlisted(host, address):
            return
        where = f"host {host!r}" if host and host != str(address) else "the URL"
        raise URLNotAllowedError(
            f"Refused {where}: {verdict.describe(str(address))}; the {self.kind.value} policy does not allow "
            f"{verdict.rule.value} addresses.",
            url=url, rule=verdict.rule.value, host=host, address=str(address),
        )

    def is_allowlisted_host(self, host: str) -> bool:
        """True when ``host`` (a name or an address) is on this policy's private-host allowlist."""
        name = host.lower().rstrip(".")
        if name in self.private_hosts:
            return True
        literal = parse_ip_literal(name)
        return literal is not None and any(literal in net for net in self.private_networks)

    def _allowlisted(self, host: str, address: IPAddress) -> bool:
        return host.lower().rstrip(".") in self.private_hosts or any(address in net for net in self.private_networks)


PUBLIC_ONLY = TargetPolicy.public_only()
"""The policy for every URL a model supplied (web_search, web_fetch)."""

_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
_HOST_NAME = re.compile(rf"^(?=.{{1,253}}$){_LABEL}(?:\.{_LABEL})*$")
_FORBIDDEN_IN_URL = re.compile(r"[\x00-\x20\x7f-\x9f\\]")


def check_url(url: str | httpx2.URL, policy: TargetPolicy = PUBLIC_ONLY) -> httpx2.URL:
    """Parse ``url`` and refuse what the policy forbids before anything touches the network.

    Checks the scheme, credentials, the host's spelling and, for IP literals and special-use names,
    the target itself; names are checked again with their DNS answers when the request connects.
    Returns the parsed URL. Raises :class:`URLNotAllowedError`.
    """
    text = str(url)
    if isinstance(url, str):
        text = url.strip(" ")
        if _FORBIDDEN_IN_URL.search(text):
            raise URLNotAllowedError(
                f"Refused {text[:200]!r}: the URL contains a control character, space or backslash.",
                url=text, rule="url syntax",
            )
        try:
            parsed = httpx2.URL(text)
        except (httpx2.InvalidURL, ValueError) as exc:
            # A host httpx2 cannot parse may still be an address in a spelling resolvers accept: name it.
            with contextlib.suppress(ValueError):
                split = urllib.parse.urlsplit(text)
                if split.scheme in ("http", "https") and split.hostname:
                    check_host(split.hostname, policy, url=text)
            raise URLNotAllowedError(f"Refused {text[:200]!r}: not a valid URL ({exc}).", url=text,
                                     rule="url syntax") from exc
    else:
        parsed = url
    if parsed.scheme not in ("http", "https"):
        raise URLNotAllowedError(
            f"Refused {text[:200]!r}: only http and https URLs can be fetched, not {parsed.scheme or 'none'!r}.",
            url=text, rule="scheme",
        )
    if parsed.userinfo:
        raise URLNotAllowedError(
            "Refused the URL: it contains credentials (user name or password before '@'); "
            "URLs with credentials are never fetched.",
            url=text.split("//", 1)[0] + "//[credentials removed]@" + parsed.host, rule="credentials",
            host=parsed.host,
        )
    if parsed.port is not None and not 0 < parsed.port < 65536:
        raise URLNotAllowedError(f"Refused {text[:200]!r}: port {parsed.port} is not a TCP port (1-65535).",
                                 url=text, rule="url syntax", host=parsed.host)
    check_host(parsed.host, policy, url=text)
    return parsed


def check_host(host: str, policy: TargetPolicy, *, url: str = "") -> IPAddress | None:
    """Refuse a host whose spelling or name the policy forbids; returns its address when it is a literal."""
    if not host:
        raise URLNotAllowedError(f"Refused {url[:200]!r}: the URL has no host.", url=url, rule="url syntax")
    if "%" in host or _FORBIDDEN_IN_URL.search(host):
        raise URLNotAllowedError(
            f"Refused host {host[:100]!r}: percent-encoding, zone ids and control characters are not allowed "
            "in a host.", url=url, rule="host syntax", host=host,
        )
    literal = parse_ip_literal(host)
    if literal is None and not host.isascii():
        # Full-width digits and dots normalise to an IP literal under IDNA; judge what they become.
        literal = parse_ip_literal(unicodedata.normalize("NFKC", host).replace("\u3002", "."))
    if literal is not None:
        policy.check_address(host, literal, url=url)
        return literal
    if policy.kind is PolicyKind.USER_CHOSEN:
        return None
    name = host.lower().rstrip(".")
    for special in SPECIAL_USE_NAMES:
        if name == special or name.endswith("." + special):
            if policy.kind is PolicyKind.ALLOWLIST and name in policy.private_hosts:
                return None
            raise URLNotAllowedError(
                f"Refused host {host!r}: {special!r} names are special-use and never public; "
                f"the {policy.kind.value} policy does not allow them.",
                url=url, rule="special-use name", host=host,
            )
    return None


# --- resolving and dialing ------------------------------------------------------------------------


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve with the OS (``getaddrinfo``), keeping the answer's order, without duplicates."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: dict[str, None] = {}
    for info in infos:
        seen.setdefault(str(info[4][0]), None)
    return list(seen)


class PinnedNetworkBackend(httpcore2.AsyncNetworkBackend):
    """An httpcore2 network backend that resolves once, checks every answer and dials the checked address.

    httpcore2 still starts TLS with the URL's host name as server name and the request keeps its
    ``Host`` header, so certificates and virtual hosts work while the socket goes where the check said.

    :param policy: the target policy every address must pass.
    :param resolver: resolves a host name to addresses (injectable for tests and custom DNS).
    :param dialer: the backend that opens sockets (httpcore2's AnyIO backend by default); it only
        ever receives IP addresses.
    """

    def __init__(
        self,
        policy: TargetPolicy,
        resolver: Resolver | None = None,
        dialer: httpcore2.AsyncNetworkBackend | None = None,
        resolve_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    ) -> None:
        self.policy = policy
        self._resolver = resolver or system_resolver
        self._dialer = dialer or httpcore2.AnyIOBackend()
        self._resolve_timeout = resolve_timeout

    async def resolve_checked(self, host: str, port: int) -> list[IPAddress]:
        """The addresses of ``host``, each checked; raises URLNotAllowedError if any is refused."""
        literal = check_host(host, self.policy)
        if literal is not None:
            return [literal]
        try:
            answers = await asyncio.wait_for(self._resolver(host, port), self._resolve_timeout)
        except TimeoutError as exc:
            raise httpcore2.ConnectTimeout(f"resolving {host!r} timed out") from exc
        except OSError as exc:
            raise httpcore2.ConnectError(f"cannot resolve {host!r}: {exc}") from exc
        addresses: list[IPAddress] = []
        for answer in answers:
            address = parse_ip_literal(str(answer))
            if address is None:
                raise URLNotAllowedError(
                    f"Refused host {host!r}: the resolver answered {str(answer)[:60]!r}, which is not an address.",
                    rule="dns answer", host=host,
                )
            # Every answer is checked: the OS may pick any of them, and one refused answer means the
            # name points somewhere it must not.
            self.policy.check_address(host, address)
            addresses.append(address)
        if not addresses:
            raise httpcore2.ConnectError(f"{host!r} has no addresses")
        return addresses

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        addresses = await self.resolve_checked(host, port)
        failure: Exception | None = None
        for address in addresses:
            try:
                return await self._dialer.connect_tcp(
                    str(address), port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                failure = exc
        assert failure is not None
        raise failure

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.AsyncNetworkStream:
        raise URLNotAllowedError("Refused a Unix socket: only TCP connections are made.", rule="unix socket")

    async def sleep(self, seconds: float) -> None:
        await self._dialer.sleep(seconds)


class PinnedTransport(httpx2.AsyncBaseTransport):
    """An httpx2 transport over a connection pool that dials through a :class:`PinnedNetworkBackend`.

    No proxy of any kind, whatever the environment says.
    """

    def __init__(self, backend: PinnedNetworkBackend, *, verify: bool = True, max_connections: int = 20) -> None:
        import ssl

        # The operating system's trust store, as browsers use; no CA bundle to keep up to date.
        context = ssl.create_default_context()
        if not verify:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        self._pool = httpcore2.AsyncConnectionPool(
            ssl_context=context,
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=15.0,
            network_backend=backend,
        )

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        core_request = httpcore2.Request(
            method=request.method,
            url=httpcore2.URL(
                scheme=request.url.raw_scheme, host=request.url.raw_host, port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        try:
            response = await self._pool.handle_async_request(core_request)
        except httpcore2.TimeoutException as exc:
            raise httpx2.TimeoutException(str(exc) or type(exc).__name__, request=request) from exc
        except (httpcore2.NetworkError, httpcore2.ProtocolError) as exc:
            raise httpx2.TransportError(str(exc) or type(exc).__name__, request=request) from exc
        return httpx2.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_CoreStream(response, request),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()


class _CoreStream(httpx2.AsyncByteStream):
    def __init__(self, response: httpcore2.Response, request: httpx2.Request) -> None:
        self._response = response
        self._request = request

    async def __aiter__(self) -> Any:
        try:
            async for chunk in self._response.aiter_stream():
                yield chunk
        except httpcore2.TimeoutException as exc:
            raise httpx2.TimeoutException(str(exc) or type(exc).__name__, request=self._request) from exc
        except (httpcore2.NetworkError, httpcore2.ProtocolError) as exc:
            raise httpx2.TransportError(str(exc) or type(exc).__name__, request=self._request) from exc

    async def aclose(self) -> None:
        await self._response.aclose()


# --- the client -----------------------------------------------------------------------------------


@dataclass(slots=True)
class FetchedResponse:
    """A fetched body and what is known about it."""

    url: str
    """The URL asked for."""
    final_url: str
    """The URL that answered, after redirects."""
    status_code: int
    headers: Mapping[str, str]
    """Response headers, names in lower case (repeated headers joined with ``, ``)."""
    content: bytes
    """The decoded body (content-encoding undone), at most the byte limit."""
    redirects: list[str] = field(default_factory=list)
    """Every URL redirected to, in order."""
    truncated: bool = False
    """True when the body was cut at the byte limit (only with ``truncate=True``)."""
    elapsed: float = 0.0

    @property
    def content_type(self) -> str:
        """The media type in lower case without parameters (``text/html``), or ``""``."""
        return self.headers.get("content-type", "").split(";", 1)[0].strip().lower()

    @property
    def charset(self) -> str | None:
        """The charset named in Content-Type, if any."""
        match = re.search(r"charset\s*=\s*[\"']?([\w.:-]+)", self.headers.get("content-type", ""), re.I)
        return match.group(1) if match else None

    def looks_binary(self) -> bool:
        """True when the body is not text whatever its Content-Type says: a NUL byte or many other
        control bytes near the start, or the signature of a common binary format (PDF, images,
        archives, executables)."""
        return looks_binary(self.content)

    @property
    def text(self) -> str:
        """The body as text: the declared charset, else UTF-8, bad bytes replaced."""
        for encoding in (self.charset, "utf-8"):
            if not encoding:
                continue
            try:
                return self.content.decode(encoding, errors="replace")
            except LookupError:
                continue
        return self.content.decode("utf-8", errors="replace")


ContentTypeCheck = Callable[[str], bool]

_BINARY_SIGNATURES = (
    b"%PDF-", b"\x89PNG", b"\xff\xd8\xff", b"GIF87a", b"GIF89a", b"PK\x03\x04", b"\x1f\x8b", b"BZh91AY",
    b"7z\xbc\xaf", b"Rar!\x1a", b"\x7fELF", b"MZ\x90\x00", b"\xca\xfe\xba\xbe", b"OggS\x00", b"ID3\x03", b"ID3\x04",
    b"fLaC\x00", b"wOFF\x00", b"wOF2\x00", b"\xd0\xcf\x11\xe0", b"SQLite format 3\x00",
)
_CONTROL_BYTES = bytes(i for i in range(32) if i not in (9, 10, 12, 13, 27))


def _connection_failure(url: str, exc: BaseException) -> str:
    """What went wrong connecting to ``url``, in words: a TLS failure, a refused connection, or else."""
    text = str(exc) or type(exc).__name__
    chain: list[BaseException] = []
    cause: BaseException | None = exc
    while cause is not None and len(chain) < 10:
        chain.append(cause)
        cause = cause.__cause__ or cause.__context__
    if any(isinstance(item, ssl.SSLError) for item in chain) or "SSL" in text or "CERTIFICATE" in text.upper():
        return f"Could not fetch {url[:200]}: the TLS (https) connection failed ({text})."
    if any(isinstance(item, ConnectionRefusedError) for item in chain) or "connection attempts failed" in text:
        return f"Could not fetch {url[:200]}: the server refused the connection or did not answer ({text})."
    return f"Could not fetch {url[:200]}: {text}"


def looks_binary(content: bytes) -> bool:
    """True for a body that is not text: a known binary signature at the start, a NUL byte, or more
    than one control byte in ten among its first 4 KiB (text formats have none but tab and newlines)."""
    head = content[:4096]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False  # UTF-16 (or UTF-32) text with its byte-order mark: NUL bytes are expected
    if head.startswith(_BINARY_SIGNATURES) or b"\x00" in head:
        return True
    return bool(head) and len(head) - len(head.translate(None, _CONTROL_BYTES)) > len(head) // 10


class SafeHTTPClient:
    """Fetches URLs under a :class:`TargetPolicy`. Use as an async context manager or call aclose().

    :param policy: which targets may be reached (default public only).
    :param resolver: how host names are resolved (default the OS); every answer is checked.
    :param dialer: the httpcore2 backend opening sockets to checked addresses (for tests and custom
        networking; it must not second-guess the address it is given).
    :param max_bytes: the body limit while streaming.
    :param connect_timeout: seconds to resolve and connect.
    :param timeout: seconds for the whole exchange, every redirect included.
    :param max_redirects: redirects followed before giving up.
    :param verify: verify TLS certificates (only turn off for tests).
    """

    def __init__(
        self,
        policy: TargetPolicy = PUBLIC_ONLY,
        *,
        resolver: Resolver | None = None,
        dialer: httpcore2.AsyncNetworkBackend | None = None,
        max_bytes: int = DEFAULT_MAX_BYTES,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        timeout: float = DEFAULT_TIMEOUT,
        max_redirects: int = DEFAULT_MAX_REDIRECTS,
        user_agent: str = DEFAULT_USER_AGENT,
        verify: bool = True,
    ) -> None:
        if max_bytes <= 0 or timeout <= 0 or connect_timeout <= 0 or max_redirects < 0:
            raise ValueError("max_bytes, timeout and connect_timeout must be positive and max_redirects >= 0")
        self.policy = policy
        self.max_bytes = max_bytes
        self.connect_timeout = connect_timeout
        self.timeout = timeout
        self.max_redirects = max_redirects
        self.user_agent = user_agent
        self.backend = PinnedNetworkBackend(policy, resolver, dialer, resolve_timeout=connect_timeout)
        self._transport = PinnedTransport(self.backend, verify=verify)

    async def __aenter__(self) -> SafeHTTPClient:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close pooled connections."""
        await self._transport.aclose()

    async def fetch(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        max_bytes: int | None = None,
        timeout: float | None = None,
        accept_content_type: ContentTypeCheck | None = None,
        check: URLCheck | None = None,
        truncate: bool = False,
    ) -> FetchedResponse:
        """GET ``url``, following checked redirects; returns the final 2xx response with its body.

        :param headers: extra request headers (``Cookie`` and ``Authorization`` are dropped).
        :param max_bytes: override the client's body limit for this request.
        :param timeout: override the client's whole-exchange limit for this request.
        :param accept_content_type: called with the media type before the body is read; False raises
            :class:`UnsupportedContentTypeError`.
        :param check: an extra check of the first URL and every redirect target (e.g. a domain list).
        :param truncate: cut the body at the limit instead of raising :class:`ResponseTooLargeError`.
        :raises URLNotAllowedError, TooManyRedirectsError, ResponseTooLargeError,
            UnsupportedContentTypeError, HTTPStatusError, FetchTimeoutError, FetchConnectionError:
        """
        limit = self.timeout if timeout is None else timeout
        started = time.perf_counter()
        try:
            async with asyncio.timeout(limit):
                result = await self._fetch(url, headers, max_bytes or self.max_bytes, accept_content_type, check,
                                           truncate, limit)
        except TimeoutError as exc:
            raise FetchTimeoutError(f"Fetching {url[:200]} took longer than {limit:g} seconds.", url=url) from exc
        result.elapsed = time.perf_counter() - started
        return result

    async def _fetch(
        self,
        url: str,
        extra_headers: Mapping[str, str] | None,
        max_bytes: int,
        accept_content_type: ContentTypeCheck | None,
        check: URLCheck | None,
        truncate: bool,
        total_timeout: float,
    ) -> FetchedResponse:
        current = check_url(url, self.policy)
        if check is not None:
            check(current)
        redirects: list[str] = []
        request_headers = {
            "User-Agent": self.user_agent,
            "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5",
            "Accept-Encoding": "gzip, deflate",
        }
        for name, value in (extra_headers or {}).items():
            if name.lower() not in ("cookie", "authorization", "proxy-authorization", "host"):
                request_headers[name] = value
        timeouts = {"connect": self.connect_timeout, "read": total_timeout, "write": total_timeout,
                    "pool": total_timeout}
        while True:
            request = httpx2.Request("GET", current, headers=request_headers, extensions={"timeout": timeouts})
            try:
                response = await self._transport.handle_async_request(request)
            except httpx2.TimeoutException as exc:
                raise FetchTimeoutError(f"Connecting to {current.host} timed out.", url=str(current)) from exc
            except httpx2.TransportError as exc:
                raise FetchConnectionError(_connection_failure(str(current), exc), url=str(current)) from exc
            response.request = request
            try:
                if response.status_code in REDIRECT_STATUSES and "location" in response.headers:
                    location = response.headers["location"]
                    if len(redirects) >= self.max_redirects:
                        raise TooManyRedirectsError(
                            f"Fetching {url[:200]} was redirected more than {self.max_redirects} times.",
                            url=str(current),
                        )
                    try:
                        target = current.join(location)
                    except (httpx2.InvalidURL, ValueError) as exc:
                        raise URLNotAllowedError(
                            f"Refused the redirect from {str(current)[:200]} to {location[:200]!r}: not a valid URL.",
                            url=str(current), rule="redirect",
                        ) from exc
                    target = check_url(target, self.policy)
                    if check is not None:
                        check(target)
                    redirects.append(str(target))
                    current = target
                    continue
                if not 200 <= response.status_code < 300:
                    raise HTTPStatusError(
                        f"{str(current)[:200]} answered HTTP {response.status_code}.",
                        url=str(current), status_code=response.status_code,
                    )
                content_type = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
                if accept_content_type is not None and not accept_content_type(content_type):
                    raise UnsupportedContentTypeError(
                        f"{str(current)[:200]} is {content_type or 'of unknown type'}, which is not supported.",
                        url=str(current), content_type=content_type,
                    )
                body, truncated = await self._read_capped(response, max_bytes, truncate, str(current))
            finally:
                await response.aclose()
            headers = {k.lower(): v for k, v in response.headers.multi_items()}
            return FetchedResponse(
                url=url, final_url=str(current), status_code=response.status_code, headers=headers,
                content=body, redirects=redirects, truncated=truncated,
            )

    @staticmethod
    async def _read_capped(response: httpx2.Response, max_bytes: int, truncate: bool, url: str) -> tuple[bytes, bool]:
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes and not truncate:
            raise ResponseTooLargeError(
                f"{url[:200]} declares {int(declared)} bytes, over the limit of {max_bytes} bytes.",
                url=url, limit=max_bytes,
            )
        chunks: list[bytes] = []
        size = 0
        try:
            async for chunk in response.aiter_bytes():
                size += len(chunk)
                if size > max_bytes:
                    if not truncate:
                        raise ResponseTooLargeError(
                            f"{url[:200]} sent more than the limit of {max_bytes} bytes.", url=url, limit=max_bytes
                        )
                    chunks.append(chunk[: max_bytes - (size - len(chunk))])
                    return b"".join(chunks), True
                chunks.append(chunk)
        except httpx2.TimeoutException as exc:
            raise FetchTimeoutError(f"Reading {url[:200]} timed out.", url=url) from exc
        except (httpx2.TransportError, httpx2.DecodingError) as exc:
            raise FetchConnectionError(f"Reading {url[:200]} failed: {exc}", url=url) from exc
        return b"".join(chunks), False


__all__ = [
    "DEFAULT_MAX_BYTES",
    "PUBLIC_ONLY",
    "SPECIAL_PURPOSE_RANGES",
    "SPECIAL_USE_NAMES",
    "AddressRule",
    "AddressVerdict",
    "FetchConnectionError",
    "FetchTimeoutError",
    "FetchedResponse",
    "HTTPStatusError",
    "PinnedNetworkBackend",
    "PinnedTransport",
    "PolicyKind",
    "Resolver",
    "ResponseTooLargeError",
    "SafeHTTPClient",
    "SpecialRange",
    "TargetPolicy",
    "TooManyRedirectsError",
    "URLNotAllowedError",
    "UnsupportedContentTypeError",
    "WebRequestError",
    "check_host",
    "check_url",
    "classify_address",
    "looks_binary",
    "parse_ip_literal",
    "system_resolver",
]
