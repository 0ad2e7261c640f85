"""One canonical tool definition, each provider API's tool shape.

Chat Completions nests a function under ``function``, the Responses API takes the same fields flat,
and Anthropic Messages calls the schema ``input_schema`` and nests nothing. The OpenAI strict
conversion is applied only in the two OpenAI shapes and only where the definition sets ``strict`` (a schema
without a strict form is sent as written, without strict mode);
the canonical schema is never modified, and Anthropic receives it exactly as written.

A function tool whose ``metadata["output_schema"]`` holds a JSON Schema is sent to Responses with it
as ``output_schema``.

Provider-defined tools (``<provider>.<tool>`` with args) become the provider's own tool entry, and
only for the provider that defines them; custom tools (free-form text, optionally constrained by a
regex or lark grammar) exist only in the two OpenAI APIs. A tool an API cannot take raises
:class:`~toolplug.errors.InvalidArgumentError` naming the tool and the API; the adapters log that as a
warning and leave the tool out of the request.
"""

from __future__ import annotations

from typing import Any

from toolplug.definitions import ToolDefinition, ToolKind
from toolplug.errors import InvalidArgumentError
from toolplug.strict import strict_conversion


def to_chat_completions_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The Chat Completions shape: ``{"type": "function", "function": {...}}`` (custom: ``{"type": "custom", ...}``)."""
    if definition.kind is ToolKind.CUSTOM:
        custom: dict[str, Any] = {"name": definition.function.name}
        if definition.function.description_for_llm:
            custom["description"] = definition.function.description_for_llm
        custom["format"] = _chat_custom_format(definition)
        return {"type": "custom", "custom": custom}
    if definition.kind is ToolKind.PROVIDER_DEFINED:
        raise _unsupported(
            definition,
            "Chat Completions",
            "the API has no provider-defined tools (use the Responses or Anthropic API for them)",
        )
    function: dict[str, Any] = {
        "name": definition.function.name,
        "description": definition.function.description_for_llm,
        "parameters": _openai_parameters(definition),
    }
    if sends_strict(definition):
        function["strict"] = True
    return {"type": "function", "function": function}


def to_responses_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The Responses shape: the same fields flat; ``strict`` always explicit (the API defaults it to true)."""
    if definition.kind is ToolKind.CUSTOM:
        tool: dict[str, Any] = {"type": "custom", "name": definition.function.name}
        if definition.function.description_for_llm:
            tool["description"] = definition.function.description_for_llm
        grammar = definition.grammar
        if grammar is not None:
            tool["format"] = {"type": "grammar", "syntax": grammar.syntax, "definition": grammar.definition}
        else:
            tool["format"] = {"type": "text"}
        return tool
    if definition.kind is ToolKind.PROVIDER_DEFINED:
        return _provider_tool(definition, "openai", "Responses", with_name=False)
    function: dict[str, Any] = {
        "type": "function",
        "name": definition.function.name,
        "description": definition.function.description_for_llm,
        "parameters": _openai_parameters(definition),
        "strict": sends_strict(definition),
    }
    output_schema = output_schema_of(definition)
    if output_schema is not None:
        function["output_schema"] = output_schema
    if definition.deferred:
        function["defer_loading"] = True
    return function


def to_anthropic_tool(definition: ToolDefinition) -> dict[str, Any]:
    """The Anthropic Messages shape: the canonical schema, unchanged, as ``input_schema``."""
    if definition.kind is ToolKind.CUSTOM:
        raise _unsupported(
            definition, "Anthropic Messages", "custom (free-form grammar) tools exist only in the OpenAI APIs"
        )
    if definition.kind is ToolKind.PROVIDER_DEFINED:
        return _provider_tool(definition, "anthropic", "Anthropic Messages", with_name=True)
    tool: dict[str, Any] = {
        "name": definition.function.name,
        "description": definition.function.description_for_llm,
        "input_schema": dict(definition.function.parameters),
    }
    if definition.deferred:
        tool["defer_loading"] = True
    return tool


def output_schema_of(definition: ToolDefinition) -> dict[str, Any] | None:
    """The JSON Schema of a function tool's output (``metadata["output_schema"]``), or None.

    The Responses API takes it as ``output_schema`` and then parses the tool's string results as JSON,
    so the adapter sends that tool's text and denied results as JSON string literals.
    """
    schema = definition.metadata.get("output_schema")
    if definition.kind is not ToolKind.FUNCTION and definition.kind is not ToolKind.DYNAMIC:
        return None
    return dict(schema) if isinstance(schema, dict) else None


def provider_tool_type(definition: ToolDefinition) -> tuple[str, str] | None:
    """``(provider, tool type)`` of a provider-defined tool (``openai.web_search`` → ``("openai", "web_search")``)."""
    spec = definition.provider_tool
    if definition.kind is not ToolKind.PROVIDER_DEFINED or spec is None:
        return None
    provider, _, tool_type = spec.id.partition(".")
    return provider, tool_type


# --- helpers ---------------------------------------------------------------------------------------


def _unsupported(definition: ToolDefinition, api: str, why: str) -> InvalidArgumentError:
    return InvalidArgumentError("definition", f"tool {definition.id!r} cannot be sent to the {api} API: {why}")


def sends_strict(definition: ToolDefinition) -> bool:
    """Whether the OpenAI shapes of ``definition`` ask for strict mode.

    Only when the definition sets ``strict`` and its schema has a strict form; a schema without one
    (see :func:`toolplug.strict.strict_conversion`) is sent as written, without strict mode.
    """
    return definition.function.strict and strict_conversion(definition.function.parameters).convertible


def _openai_parameters(definition: ToolDefinition) -> dict[str, Any]:
    parameters = definition.function.parameters
    if definition.function.strict:
        conversion = strict_conversion(parameters)
        if conversion.convertible:
            return conversion.schema()
    return dict(parameters)


def _chat_custom_format(definition: ToolDefinition) -> dict[str, Any]:
    grammar = definition.grammar
    if grammar is None:
        return {"type": "text"}
    return {"type": "grammar", "grammar": {"definition": grammar.definition, "syntax": grammar.syntax}}


def _provider_tool(definition: ToolDefinition, provider: str, api: str, *, with_name: bool) -> dict[str, Any]:
    identity = provider_tool_type(definition)
    if identity is None or not identity[1]:
        raise _unsupported(definition, api, "a provider-defined tool needs an id '<provider>.<tool>'")
    owner, tool_type = identity
    if owner != provider:
        raise _unsupported(definition, api, f"it is a tool of the provider {owner!r}, not {provider!r}")
    assert definition.provider_tool is not None
    shape: dict[str, Any] = {"type": tool_type}
    if with_name:
        shape["name"] = definition.function.name
    for key, value in definition.provider_tool.args.items():
        if key not in shape:
            shape[key] = value
    return shape


__all__ = [
    "output_schema_of",
    "provider_tool_type",
    "sends_strict",
    "to_anthropic_tool",
    "to_chat_completions_tool",
    "to_responses_tool",
]
