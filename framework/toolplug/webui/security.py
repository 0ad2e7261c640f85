"""Who may use the chat: the access token, the Host header and the Origin header.

The page is served on loopback and runs tools as the user, so every API call must prove three things:

- it carries the access token (``Authorization: Bearer <token>``), which ``toolplug web`` prints in
  the page's URL as Jupyter does; a custom header also means a cross-site page cannot send it without
  a CORS preflight, which the server never answers;
- its ``Host`` names this server (a name of a DNS-rebinding attack does not);
- its ``Origin``, when a browser sends one, is this server's own origin (against CSRF).

These checks are plain functions of the request headers, so a host mounting the chat in its own app
gets the same ones.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
"""The Host names a loopback server answers to."""

WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})


def new_token() -> str:
    """A random access token (256 bits, URL-safe)."""
    return secrets.token_urlsafe(32)


def host_name(host_header: str) -> str:
    """The name of a Host header without its port, lower-case (``[::1]:8765`` is ``::1``)."""
    value = host_header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


@dataclass(slots=True)
class AccessPolicy:
    """The checks of one chat server.

    :param token: the access token every API call carries.
    :param allowed_hosts: the Host names accepted (without port); None accepts any (a host app that
        checks Host itself, e.g. with Starlette's TrustedHostMiddleware).
    :param any_ip_host: also accept any IP address as Host (a server bound to every interface is
        reached by the addresses of the machine; DNS rebinding needs a name, never an address).
    :param allowed_origins: origins accepted besides the request's own (``scheme://host[:port]``).
    """

    token: str
    allowed_hosts: frozenset[str] | None = LOOPBACK_NAMES
    any_ip_host: bool = False
    allowed_origins: frozenset[str] = field(default_factory=frozenset)

    @classmethod
    def for_bind(cls, bind_host: str, token: str, *, extra_hosts: Iterable[str] = ()) -> AccessPolicy:
        """The policy of a server bound to ``bind_host``: loopback names, the bound name, and any IP
        address when it is bound to every interface."""
        names = set(LOOPBACK_NAMES) | {host_name(name) for name in extra_hosts}
        if bind_host not in WILDCARD_BINDS:
            names.add(host_name(bind_host) if not bind_host.startswith("[") else bind_host.strip("[]").lower())
        return cls(token, frozenset(names), any_ip_host=bind_host in WILDCARD_BINDS)

    def host_problem(self, host_header: str | None) -> str | None:
        """Why a request's Host header is refused, or None."""
        if self.allowed_hosts is None:
            return None
        if not host_header:
            return "the request has no Host header"
        name = host_name(host_header)
        if name in self.allowed_hosts or (self.any_ip_host and _is_ip(name)):
            return None
        return f"this server does not answer to the host name {name!r}"

    def origin_problem(self, origin: str | None, scheme: str, host_header: str | None) -> str | None:
        """Why a request's Origin header is refused, or None (no Origin: not a cross-site browser call)."""
        if origin is None:
            return None
        own = f"{scheme}://{(host_header or '').strip().lower()}"
        if origin.strip().lower() == own or origin in self.allowed_origins:
            return None
        return f"requests from the origin {origin!r} are not accepted"

    def token_problem(self, authorization: str | None) -> str | None:
        """Why a request's Authorization header is refused, or None."""
        if not authorization:
            return "the access token is missing: open the URL that toolplug web printed"
        scheme, _, given = authorization.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            return "the access token is wrong: open the URL that toolplug web printed"
        return None


def is_loopback_bind(bind_host: str) -> bool:
    """True for 127.0.0.1, ::1, localhost and the rest of 127.0.0.0/8."""
    name = bind_host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


__all__ = ["LOOPBACK_NAMES", "AccessPolicy", "host_name", "is_loopback_bind", "new_token"]
