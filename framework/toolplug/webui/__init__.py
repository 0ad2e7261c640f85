"""The chat page: ``toolplug web``, and the same endpoint for a host's own Starlette or FastAPI app.

::

    from toolplug import Host
    from toolplug.webui import create_app

    chat_app = create_app(Host.from_config(), token="...")   # an ASGI app
    app.mount("/chat", chat_app)                             # in the host's Starlette/FastAPI app

:class:`WebChat` is the chat without any web framework (a request body in, UI message stream chunks
out); :func:`create_app` wraps it in the page, the API routes and the access checks. Starlette is
imported only by :func:`create_app`; the names here are imported on first use, so the ``toolplug``
command stays quick to start.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_LAZY = {
    "CONFIDENCE_KEY": "toolplug.webui.chat",
    "CONTENT_SECURITY_POLICY": "toolplug.webui.app",
    "AccessPolicy": "toolplug.webui.security",
    "ApprovalSigner": "toolplug.webui.protocol",
    "ChatRequest": "toolplug.webui.protocol",
    "ChatRequestError": "toolplug.webui.protocol",
    "WebChat": "toolplug.webui.chat",
    "create_app": "toolplug.webui.app",
    "new_token": "toolplug.webui.security",
    "parse_chat_request": "toolplug.webui.protocol",
    "parse_ui_messages": "toolplug.webui.protocol",
    "stream_sse": "toolplug.webui.app",
    "ui_message_to_json": "toolplug.webui.protocol",
}

if TYPE_CHECKING:
    from toolplug.webui.app import CONTENT_SECURITY_POLICY, create_app, stream_sse
    from toolplug.webui.chat import CONFIDENCE_KEY, WebChat
    from toolplug.webui.protocol import (
        ApprovalSigner,
        ChatRequest,
        ChatRequestError,
        parse_chat_request,
        parse_ui_messages,
        ui_message_to_json,
    )
    from toolplug.webui.security import AccessPolicy, new_token


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolplug.webui' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "CONFIDENCE_KEY",
    "CONTENT_SECURITY_POLICY",
    "AccessPolicy",
    "ApprovalSigner",
    "ChatRequest",
    "ChatRequestError",
    "WebChat",
    "create_app",
    "new_token",
    "parse_chat_request",
    "parse_ui_messages",
    "stream_sse",
    "ui_message_to_json",
]
