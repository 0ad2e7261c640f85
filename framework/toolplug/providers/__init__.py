"""Provider adapters: the protocol the loop drives, and the built-in adapters for each API.

Each built-in API module (``openai_chat``, ``openai_responses``, ``anthropic``) exposes its factory as
``ADAPTER_FACTORY``; :func:`builtin_adapter_factories` collects those that are present. A plugin adds an
API by returning a :class:`ProviderAdapterFactory` from ``register_provider_adapters``.
"""

from __future__ import annotations

import importlib

from toolplug.providers.base import (
    FinishReason,
    ProviderAdapter,
    ProviderAdapterFactory,
    ProviderProfile,
    ReasoningDelta,
    Round,
    RoundDelta,
    RoundRequest,
    TextDelta,
    ToolInputDelta,
    ToolInputEndDelta,
    ToolInputStartDelta,
    Usage,
)

_BUILTIN_MODULES = ("openai_chat", "openai_responses", "anthropic")


def builtin_adapter_factories() -> dict[str, ProviderAdapterFactory]:
    """The factories of the built-in APIs, by API name (modules not yet present are skipped)."""
    factories: dict[str, ProviderAdapterFactory] = {}
    for module_name in _BUILTIN_MODULES:
        try:
            module = importlib.import_module(f"toolplug.providers.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"toolplug.providers.{module_name}":
                raise
            continue
        factory = getattr(module, "ADAPTER_FACTORY", None)
        if factory is not None:
            factories[factory.api] = factory
    return factories


__all__ = [
    "FinishReason",
    "ProviderAdapter",
    "ProviderAdapterFactory",
    "ProviderProfile",
    "ReasoningDelta",
    "Round",
    "RoundDelta",
    "RoundRequest",
    "TextDelta",
    "ToolInputDelta",
    "ToolInputEndDelta",
    "ToolInputStartDelta",
    "Usage",
    "builtin_adapter_factories",
]
