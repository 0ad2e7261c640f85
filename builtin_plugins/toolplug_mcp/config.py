"""``[mcp]`` in the host config: the MCP servers whose tools enter the registry.

::

    [mcp.servers.weather]
    transport = "stdio"                 # "stdio", "http" (Streamable HTTP) or "sse" (legacy HTTP+SSE)
    command = "weather-mcp"
    args = ["--units", "metric"]
    timeout = 30                        # seconds for starting, listing, and (by default) each call
    call_timeout = 60                   # seconds per tool call (default: timeout)
    tool_timeouts = { forecast = 120 }  # seconds per call of one tool
    include = ["forecast", "alerts"]    # only these tools (default: all)
    exclude = ["debug_dump"]            # never these tools

    [mcp.servers.weather.pinned]        # fingerprints the admin approved (``toolplug mcp pins``)
    forecast = "3f1c2a9b0e7d4c55"

    [mcp.servers.search]
    transport = "http"                  # "streamable-http" (as other clients write it) means the same
    url = "https://search.example/mcp"
    headers = { "X-Team" = "docs" }
    secret_headers = { Authorization = "authorization" }   # value: the keyring entry mcp.search.authorization

    [mcp.servers.everything]
    command = ["npx", "-y", "@modelcontextprotocol/server-everything"]   # a list: the program, then its args

Every problem raises :class:`toolplug.errors.ConfigError` naming the key (``mcp.servers.search.url``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal, NoReturn

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from toolplug.errors import ConfigError

SERVER_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
DEFAULT_TIMEOUT = 30.0
TRANSPORT_ALIASES = {"streamable-http": "http", "streamable_http": "http", "streamableHttp": "http"}
"""Other clients' names for a transport, accepted as they are written there."""


class PinnedFingerprint(BaseModel):
    """A pin with the per-field fingerprints ``toolplug mcp pins`` prints, so a change can be named."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fingerprint: str
    fields: dict[str, str] = Field(default_factory=dict)
    """Fingerprint of each part of the definition (``description``, ``parameters``, ...)."""


class McpServerConfig(BaseModel):
    """``[mcp.servers.<name>]``: one MCP server."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = ""
    """Filled from the table's key."""
    transport: Literal["stdio", "http", "sse"] | None = None
    """Inferred when unset: ``stdio`` with a command, ``http`` with a URL (``streamable-http`` means ``http``)."""
    command: str | None = None
    """The program that starts a stdio server (a list is split: its first item, then its items as ``args``)."""
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    """Extra environment variables for a stdio server (the rest of the environment is not inherited)."""
    cwd: str | None = None
    url: str | None = None
    """The Streamable HTTP endpoint, or the legacy transport's event-stream URL."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Plain HTTP headers sent with every request."""
    secret_headers: dict[str, str] = Field(default_factory=dict)
    """HTTP header -> keyring entry (``mcp.<server>.<entry>`` in the ``toolplug`` service) holding its value."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds for starting the server, listing its tools and, unless ``call_timeout`` says otherwise, each call."""
    call_timeout: float | None = None
    tool_timeouts: dict[str, float] = Field(default_factory=dict)
    """Seconds per call of one tool, by the server's tool name."""
    include: tuple[str, ...] | None = None
    """Only these tools (by the server's names); None: all."""
    exclude: tuple[str, ...] = ()
    pinned: dict[str, str | PinnedFingerprint] = Field(default_factory=dict)
    """Tool name -> the fingerprint the admin approved; a definition that differs is refused."""
    enabled: bool = True

    @model_validator(mode="before")
    @classmethod
    def _aliases(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        data = dict(data)
        transport = data.get("transport")
        if isinstance(transport, str) and transport in TRANSPORT_ALIASES:
            data["transport"] = TRANSPORT_ALIASES[transport]
        command = data.get("command")
        if isinstance(command, list | tuple):
            data["command"], data["args"] = _split_command(command, data.get("args"))
        return data

    @field_validator("timeout")
    @classmethod
    def _positive(cls, value: float) -> float:
        if value <= 0:
            raise ValueError("must be greater than 0")
        return value

    @field_validator("call_timeout")
    @classmethod
    def _positive_or_none(cls, value: float | None) -> float | None:
        if value is not None and value <= 0:
            raise ValueError("must be greater than 0")
        return value

    @field_validator("tool_timeouts")
    @classmethod
    def _positive_each(cls, value: dict[str, float]) -> dict[str, float]:
        for tool, seconds in value.items():
            if seconds <= 0:
                raise ValueError(f"{tool}: must be greater than 0")
        return value

    @field_validator("url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None and not re.match(r"^https?://[^/\s]+", value):
            raise ValueError("must be an http:// or https:// URL")
        return value

    @model_validator(mode="after")
    def _transport_fits(self) -> McpServerConfig:
        transport = self.transport or ("stdio" if self.command else "http" if self.url else None)
        if transport is None:
            raise ValueError("set command (a stdio server) or url (an HTTP server)")
        if transport == "stdio":
            if not self.command:
                raise ValueError("transport 'stdio' needs command")
            if self.url:
                raise ValueError("a stdio server takes command and args, not url")
        else:
            if not self.url:
                raise ValueError(f"transport {transport!r} needs url")
            if self.command:
                raise ValueError(f"transport {transport!r} takes url, not command")
        object.__setattr__(self, "transport", transport)
        return self

    @property
    def kind(self) -> Literal["stdio", "http", "sse"]:
        """The transport (never None after validation)."""
        assert self.transport is not None
        return self.transport

    def timeout_for(self, tool_name: str) -> float:
        """Seconds one call of ``tool_name`` may take."""
        return self.tool_timeouts.get(tool_name, self.call_timeout or self.timeout)

    def takes(self, tool_name: str) -> bool:
        """Whether the admin wants this tool (include/exclude)."""
        if self.include is not None and tool_name not in self.include:
            return False
        return tool_name not in self.exclude


def _split_command(command: list[Any] | tuple[Any, ...], args: Any) -> tuple[str, list[Any]]:
    """``command = ["npx", "-y", "server"]``: the program, and its arguments before any ``args``."""
    if not command:
        raise ValueError("command: an empty list names no program")
    if not all(isinstance(part, str) for part in command):
        raise ValueError("command: every item of the list must be a string")
    if not command[0].strip():
        raise ValueError("command: the first item (the program) is empty")
    extra = list(args) if isinstance(args, list | tuple) else [] if args is None else None
    if extra is None:
        raise ValueError("args: must be a list of strings")
    return command[0], [*command[1:], *extra]


class McpConfig(BaseModel):
    """``[mcp]``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)


def parse_mcp_config(data: Mapping[str, Any], *, source: str | None = None) -> McpConfig:
    """Validate the host config's ``[mcp]`` table; raises ConfigError naming the key."""
    raw_servers = data.get("servers", {}) if isinstance(data, Mapping) else data
    prepared: dict[str, Any] = dict(data) if isinstance(data, Mapping) else {}
    if isinstance(raw_servers, Mapping):
        servers: dict[str, Any] = {}
        for name, table in raw_servers.items():
            if not SERVER_NAME.match(str(name)):
                _raise(
                    source,
                    f"mcp.servers.{name}",
                    "a server name is 1-40 letters, digits, '_' or '-', starting with a letter",
                )
            servers[name] = {**table, "name": name} if isinstance(table, Mapping) else table
        prepared["servers"] = servers
    try:
        return McpConfig.model_validate(prepared)
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(["mcp", *(str(part) for part in error["loc"])])
        message = error["msg"].removeprefix("Value error, ")
        field, separator, detail = message.partition(": ")
        if separator and field in ("command", "args") and len(error["loc"]) == 2:
            key, message = f"{key}.{field}", detail  # raised while reading a command list
        if error["type"] == "extra_forbidden":
            message = "unknown key"
        _raise(source, key, message, exc)


def _raise(source: str | None, key: str, message: str, cause: BaseException | None = None) -> NoReturn:
    where = f"{source}: " if source else ""
    raise ConfigError(f"{where}{key}: {message}", path=source, key=key) from cause


__all__ = ["DEFAULT_TIMEOUT", "McpConfig", "McpServerConfig", "PinnedFingerprint", "parse_mcp_config"]
