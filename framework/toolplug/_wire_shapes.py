"""Interim canonical-to-wire tool shapes for function tools, used until ``providers/wire_tools.py`` lands.

One canonical :class:`~toolplug.definitions.ToolDefinition`, three request shapes (WIRE-1): Chat
Completions nests the function under ``function``, Responses takes the same fields flat, Anthropic
calls the schema ``input_schema``. The OpenAI strict conversion (DEF-7) is applied only in the two
OpenAI shapes and only where the definition sets ``strict``; the canonical schema is never modified.
"""

from __future__ import annotations

from typing import Any

from toolplug.definitions import ToolDefinition
from toolplug.schema import to_openai_strict


def _openai_parameters(definition: ToolDefinition) -> dict[str, Any]:
    parameters = definition.function.parameters
    return to_openai_strict(parameters) if definition.function.strict else dict(parameters)


def to_chat_completions_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The Chat Completions shape: ``{"type": "function", "function": {...}}``."""
    function: dict[str, Any] = {
        "name": definition.function.name,
        "description": definition.function.description_for_llm,
        "parameters": _openai_parameters(definition),
    }
    if definition.function.strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def to_responses_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The Responses shape: the same fields flat; ``strict`` always explicit (the API defaults it to true)."""
    return {
        "type": "function",
        "name": definition.function.name,
        "description": definition.function.description_for_llm,
        "parameters": _openai_parameters(definition),
        "strict": definition.function.strict,
    }


def to_anthropic_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The Anthropic Messages shape: the canonical schema, unchanged, as ``input_schema``."""
    return {
        "name": definition.function.name,
        "description": definition.function.description_for_llm,
        "input_schema": dict(definition.function.parameters),
    }
