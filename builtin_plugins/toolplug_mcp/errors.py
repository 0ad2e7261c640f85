"""The MCP plugin's exceptions, each a :class:`toolplug.errors.ToolplugError`.

::

    ToolplugError
    ├── UsageError
    │   └── MCPDependencyError      the optional ``mcp`` package is not installed
    ├── MCPToolCallError            the server ran the tool and reported a failure (isError)
    └── MCPClientError              talking to an MCP server failed (status, URL and body when HTTP)
        ├── MCPTimeoutError         the server did not answer in time
        ├── MCPConnectionClosedError the server went away (a stdio server exited, a stream ended)
        └── MCPServerError          the server answered a request with a JSON-RPC error
"""

from __future__ import annotations

from toolplug.errors import ToolplugError, UsageError

INSTALL_HINT = "pip install 'toolplug[mcp]'"
MAX_BODY_IN_MESSAGE = 2_000
"""Characters of a response body quoted in an error message (the whole body stays on the error)."""


class MCPDependencyError(UsageError):
    """The ``mcp`` package (the official MCP Python SDK) is needed and missing."""

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} needs the official MCP Python SDK (the 'mcp' package), which is not installed. "
            f"Install it with: {INSTALL_HINT}"
        )


class MCPClientError(ToolplugError):
    """Talking to an MCP server failed.

    For an HTTP answer outside 2xx, ``status_code``, ``url`` and ``response_body`` say what came back;
    they are None for failures that had no HTTP answer (a stdio server, a refused connection).
    """

    def __init__(
        self,
        message: str,
        *,
        status_code: int | None = None,
        url: str | None = None,
        response_body: str | None = None,
        server: str | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.url = url
        self.response_body = response_body
        self.server = server

    @classmethod
    def sse_stream(cls, status_code: int, reason: str, url: str, body: str) -> MCPClientError:
        """A non-2xx answer to the legacy SSE transport's event-stream GET (405: use the http transport)."""
        message = f"MCP SSE Transport Error: {status_code} {reason}: {_quote(body)}"
        if status_code == 405:
            message += (
                ". This server does not offer the legacy HTTP+SSE transport at this URL; it probably speaks "
                "Streamable HTTP: set transport = \"http\" for it."
            )
        return cls(message, status_code=status_code, url=url, response_body=body)

    @classmethod
    def sse_post(cls, status_code: int, url: str, body: str) -> MCPClientError:
        """A non-2xx answer to a message POSTed to the legacy SSE transport's endpoint."""
        message = f"MCP SSE Transport Error: POSTing to endpoint (HTTP {status_code}): {_quote(body)}"
        return cls(message, status_code=status_code, url=url, response_body=body)

    @classmethod
    def http_post(cls, status_code: int, reason: str, url: str, body: str) -> MCPClientError:
        """A non-2xx answer to a message POSTed to a Streamable HTTP endpoint (405: try the sse transport)."""
        message = f"MCP HTTP Transport Error: POSTing to endpoint (HTTP {status_code} {reason}): {_quote(body)}"
        if status_code == 405:
            message += (
                ". The server does not accept POST at this URL; if it only speaks the legacy HTTP+SSE transport, "
                "set transport = \"sse\" and use its event-stream URL."
            )
        return cls(message, status_code=status_code, url=url, response_body=body)


class MCPTimeoutError(MCPClientError):
    """An MCP server did not answer a request within its timeout."""


class MCPConnectionClosedError(MCPClientError):
    """The connection to an MCP server ended (the process exited, the stream closed)."""


class MCPServerError(MCPClientError):
    """The server answered with a JSON-RPC error; ``code`` is its error code."""

    def __init__(self, message: str, *, code: int, server: str | None = None) -> None:
        super().__init__(message, server=server)
        self.code = code


class MCPToolCallError(ToolplugError):
    """An MCP tool ran and its result had ``isError``; the message is the server's own text."""

    def __init__(self, message: str, *, server: str | None = None, tool: str | None = None) -> None:
        super().__init__(message)
        self.server = server
        self.tool = tool


def _quote(body: str) -> str:
    body = body.strip()
    if len(body) > MAX_BODY_IN_MESSAGE:
        return body[:MAX_BODY_IN_MESSAGE] + f"... ({len(body)} characters)"
    return body


__all__ = [
    "INSTALL_HINT",
    "MCPClientError",
    "MCPConnectionClosedError",
    "MCPDependencyError",
    "MCPServerError",
    "MCPTimeoutError",
    "MCPToolCallError",
]
