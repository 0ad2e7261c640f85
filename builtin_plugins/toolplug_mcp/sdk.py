"""The one place that imports the optional ``mcp`` SDK, with a clear message when it is missing.

The plugin imports it only when an MCP server is configured or ``toolplug serve`` runs, so hosts
without MCP never pay for it (start-up stays cheap) and never need it installed.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from toolplug_mcp.errors import MCPDependencyError

MINIMUM_MAJOR = 2


def require_sdk(what: str = "MCP support") -> ModuleType:
    """Import and return ``mcp``; raise MCPDependencyError saying what to install when it is missing."""
    try:
        module = importlib.import_module("mcp")
        importlib.import_module("mcp_types")
    except ImportError as exc:
        raise MCPDependencyError(what) from exc
    version = _major_version()
    if version is not None and version < MINIMUM_MAJOR:
        raise MCPDependencyError(f"{what} (the installed 'mcp' is older than 2.0)")
    return module


def sdk_available() -> bool:
    """Whether the ``mcp`` package can be imported (without importing it)."""
    return importlib.util.find_spec("mcp") is not None


def _major_version() -> int | None:
    from importlib import metadata

    try:
        return int(metadata.version("mcp").split(".")[0])
    except (metadata.PackageNotFoundError, ValueError):
        return None


__all__ = ["require_sdk", "sdk_available"]
