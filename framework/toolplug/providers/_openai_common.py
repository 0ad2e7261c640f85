"""What the two OpenAI adapters share: Chat Completions and Responses read and write many fields alike.

The factory (bearer key, the vendor's base URL), the token counts (named ``prompt``/``completion`` in
one API and ``input``/``output`` in the other), the leading system messages, the tool fields of a
body, and custom (free-form text) tool calls: parsed into a :class:`ToolCallPart` whose input is the
model's text and whose ``openai`` metadata says ``custom``, and replayed with that text as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toolplug.messages import SystemMessage, ToolCallPart
from toolplug.providers._adapter_base import HTTPAdapterFactory, HTTPProviderAdapter, arguments_text, vendor_meta
from toolplug.providers.base import Usage

VENDOR = "openai"
"""The key of OpenAI's entries in provider metadata and provider options."""
DEFAULT_BASE_URL = "https://api.openai.com/v1"


def bearer_auth(api_key: str) -> dict[str, str]:
    """The authorization header of the OpenAI APIs (and of compatible servers)."""
    return {"authorization": f"Bearer {api_key}"}


def openai_factory(api: str, adapter_type: type[HTTPProviderAdapter]) -> HTTPAdapterFactory:
    """The factory of one OpenAI API (``ADAPTER_FACTORY`` of its module)."""
    return HTTPAdapterFactory(
        api=api, adapter_type=adapter_type, default_base_url=DEFAULT_BASE_URL, auth_headers=bearer_auth
    )


def openai_usage(usage: Any, input_name: str, output_name: str) -> Usage:
    """Token counts: ``<input_name>_tokens`` with its ``_details.cached_tokens``, and the same for output
    with ``reasoning_tokens`` (Chat Completions says prompt/completion, Responses input/output)."""
    if not isinstance(usage, Mapping):
        return Usage()
    input_details = usage.get(f"{input_name}_tokens_details") or {}
    output_details = usage.get(f"{output_name}_tokens_details") or {}
    return Usage(
        usage.get(f"{input_name}_tokens"),
        usage.get(f"{output_name}_tokens"),
        output_details.get("reasoning_tokens"),
        input_details.get("cached_tokens"),
    )


def system_items(instructions: Sequence[SystemMessage]) -> list[dict[str, Any]]:
    """The leading instructions as ``system`` messages (input items). An empty one is not sent; a
    message's ``openai`` provider metadata adds its fields (``name``, for one) to the message."""
    items: list[dict[str, Any]] = []
    for message in instructions:
        if not message.content:
            continue
        item: dict[str, Any] = {"role": "system", "content": message.content}
        for key, value in vendor_meta(message, VENDOR).items():
            if key not in item:
                item[key] = value
        items.append(item)
    return items


def offer_tools(
    body: dict[str, Any],
    tools: Sequence[dict[str, Any]],
    tool_choice: Any,
    *,
    parallel: bool | None,
    extra: Mapping[str, Any] | None,
) -> None:
    """Put the tools into ``body`` with their choice (None: no ``tool_choice`` field); ``parallel_tool_calls``
    as toolplug decides, else as the extra parameters say. Without tools none of these fields are sent."""
    if not tools:
        return
    body["tools"] = list(tools)
    if tool_choice is not None:
        body["tool_choice"] = tool_choice
    if parallel is not None:
        body["parallel_tool_calls"] = parallel
    elif extra and "parallel_tool_calls" in extra:
        body["parallel_tool_calls"] = extra["parallel_tool_calls"]


# --- custom tool calls ---------------------------------------------------------------------------------


def custom_call_part(call_id: str, name: str, text: Any, item_id: Any = None) -> ToolCallPart:
    """A custom tool call as the loop takes it: the model's free-form text as input."""
    meta: dict[str, Any] = {"custom": True}
    if item_id:
        meta["item_id"] = item_id
    return ToolCallPart(call_id, name, "" if text is None else str(text), provider_metadata={VENDOR: meta})


def is_custom_call(part: ToolCallPart) -> bool:
    """Whether the call is a custom tool call (replayed as one, answered with a custom output)."""
    return bool(vendor_meta(part, VENDOR).get("custom"))


def custom_input_text(value: Any) -> str:
    """A custom call's input as sent back: text as it is, ``{"input": text}`` unwrapped, anything else as JSON."""
    if isinstance(value, dict) and set(value) == {"input"}:
        value = value["input"]
    return value if isinstance(value, str) else arguments_text(value)


__all__ = [
    "DEFAULT_BASE_URL",
    "VENDOR",
    "bearer_auth",
    "custom_call_part",
    "custom_input_text",
    "is_custom_call",
    "offer_tools",
    "openai_factory",
    "openai_usage",
    "system_items",
]
