"""Provider adapters: the protocol the loop drives, and the built-in adapters for each API.

Each built-in API module (``openai_chat``, ``openai_responses``, ``anthropic``) exposes its factory as
``ADAPTER_FACTORY``. :func:`builtin_adapter_factories` names them without importing them: a module (and
httpx2 under it) is imported when a host first creates an adapter for its API, so start-up stays cheap.
A plugin adds an API by returning a :class:`ProviderAdapterFactory` from ``register_provider_adapters``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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

_FROM_BASE = frozenset({
    "FinishReason", "ProviderAdapter", "ProviderAdapterFactory", "ProviderProfile", "ReasoningDelta", "Round",
    "RoundDelta", "RoundRequest", "TextDelta", "ToolInputDelta", "ToolInputEndDelta", "ToolInputStartDelta", "Usage",
})


def __getattr__(name: str) -> Any:
    # The protocol types live in base.py; importing them (and the conversation types under them) only
    # when asked keeps ``toolplug.providers`` cheap for a host that builds its factory table at start-up.
    if name in _FROM_BASE:
        from toolplug.providers import base

        return getattr(base, name)
    raise AttributeError(f"module 'toolplug.providers' has no attribute {name!r}")

ALLOW_MODEL_REQUESTS = True
"""Set to False (in a test suite's conftest) to make every real provider request fail at once with
:class:`~toolplug.errors.ModelRequestsDisabledError`; test models (toolplug.testing) still answer.
The environment variable ``TOOLPLUG_ALLOW_MODEL_REQUESTS=0`` does the same."""


def model_requests_allowed() -> bool:
    """Whether real provider requests may be sent (see :data:`ALLOW_MODEL_REQUESTS`)."""
    import os

    flag = os.environ.get("TOOLPLUG_ALLOW_MODEL_REQUESTS", "").strip().lower()
    return ALLOW_MODEL_REQUESTS and flag not in ("0", "false", "no", "off")


BUILTIN_APIS: dict[str, str] = {
    "openai-chat": "toolplug.providers.openai_chat",
    "openai-responses": "toolplug.providers.openai_responses",
    "anthropic": "toolplug.providers.anthropic",
}
"""The built-in API names and the modules that implement them."""


class LazyAdapterFactory:
    """A built-in API's factory, imported on the first :meth:`create`."""

    def __init__(self, api: str, module: str) -> None:
        self.api = api
        self.module = module

    def load(self) -> ProviderAdapterFactory:
        """The real factory (``ADAPTER_FACTORY`` of the API's module)."""
        factory: ProviderAdapterFactory = importlib.import_module(self.module).ADAPTER_FACTORY
        return factory

    def create(self, profile: ProviderProfile, **options: Any) -> ProviderAdapter:
        """A fresh adapter for one call (see :meth:`ProviderAdapterFactory.create`)."""
        return self.load().create(profile, **options)

    def __repr__(self) -> str:
        return f"<LazyAdapterFactory {self.api!r} from {self.module}>"


def builtin_adapter_factories() -> dict[str, ProviderAdapterFactory]:
    """The factories of the built-in APIs, by API name, each imported on first use."""
    return {api: LazyAdapterFactory(api, module) for api, module in BUILTIN_APIS.items()}

__all__ = [
    "BUILTIN_APIS",
    "FinishReason",
    "LazyAdapterFactory",
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
