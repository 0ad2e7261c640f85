"""Defaults of ``toolplug serve``, importable without the server's dependencies (for ``--help``)."""

DEFAULT_HTTP_HOST = "127.0.0.1"
DEFAULT_HTTP_PORT = 8765

__all__ = ["DEFAULT_HTTP_HOST", "DEFAULT_HTTP_PORT"]
