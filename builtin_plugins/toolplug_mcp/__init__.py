"""toolplug's MCP plugin: tools of MCP servers in the registry, and ``toolplug serve``.

The ``mcp`` SDK is imported only when an MCP server is configured or ``toolplug serve`` runs.
"""

from __future__ import annotations

from toolplug_mcp.errors import (
    MCPClientError,
    MCPConnectionClosedError,
    MCPDependencyError,
    MCPServerError,
    MCPTimeoutError,
    MCPToolCallError,
)

__version__ = "0.1.0"

__all__ = [
    "MCPClientError",
    "MCPConnectionClosedError",
    "MCPDependencyError",
    "MCPServerError",
    "MCPTimeoutError",
    "MCPToolCallError",
    "__version__",
]
