"""MCP tool output for the model.

:func:`to_model_output` maps any MCP tool output (the JSON text of a call-tool result, or the value):

- a JSON string, or text that is not JSON at all, becomes text;
- a number, boolean, null, an empty or missing output, or an object without a ``content`` array
  becomes JSON (a missing output is JSON null);
- an object with a ``content`` array becomes content parts: a text part keeps its text, an image
  (or audio, or a binary resource) becomes a file part with its media type and base64 data, so its
  bytes never reach the model as text; any other part becomes a text part holding its JSON.

:func:`call_result_to_output` handles a call-tool result: ``isError`` raises
:class:`MCPToolCallError` with the server's text, and ``structuredContent`` is used, as JSON, when present.

Content annotations: a block whose ``audience`` names the user but not the assistant is for the user
only. It never reaches the model: it goes to the result's ``display_content`` for the host to show.
Every block's annotations (``audience``, ``priority``, ``lastModified``) are kept in the result's
``metadata["mcp"]["annotations"]``, each with where the block went (``content`` or ``display_content``)
and its index there.
"""

from __future__ import annotations

import json
from typing import Any

from toolplug.definitions import OutputType, ToolExecutionResult
from toolplug_mcp.errors import MCPToolCallError

FILE_PART_TYPES = frozenset({"image", "audio"})
ANNOTATION_KEYS = ("audience", "priority", "lastModified")
USER_ONLY_NOTE = "The tool's output is for the user only and was not given to the model."


def call_result_to_output(result: dict[str, Any], *, server: str = "", tool: str = "") -> ToolExecutionResult:
    """The result of ``tools/call`` for the model; raises MCPToolCallError when ``isError`` is set."""
    if result.get("isError"):
        raise MCPToolCallError(error_text(result) or "the tool reported an error", server=server, tool=tool)
    structured = result.get("structuredContent")
    if structured is not None:
        shown = _content_result(result["content"]) if isinstance(result.get("content"), list) else None
        return ToolExecutionResult(
            json_content=structured,
            output_type=OutputType.JSON,
            display_content=shown.display_content if shown else None,
            metadata=shown.metadata if shown else {},
        )
    return to_model_output(result)


def to_model_output(output: Any) -> ToolExecutionResult:
    """Any MCP tool output (its JSON text or the parsed value) as text, JSON or content parts."""
    if isinstance(output, str | bytes):
        text = output.decode("utf-8", errors="replace") if isinstance(output, bytes) else output
        if not text.strip():
            return ToolExecutionResult(json_content=None, output_type=OutputType.JSON)
        try:
            output = json.loads(text)
        except ValueError:
            return ToolExecutionResult(text_content=text, output_type=OutputType.TEXT)
        if isinstance(output, str):
            return ToolExecutionResult(text_content=output, output_type=OutputType.TEXT)
    if isinstance(output, dict) and isinstance(output.get("content"), list):
        return _content_result(output["content"])
    return ToolExecutionResult(json_content=output, output_type=OutputType.JSON)


def _content_result(blocks: list[Any]) -> ToolExecutionResult:
    """Content parts for the model, the user's own parts aside, and every block's annotations."""
    for_model: list[dict[str, Any]] = []
    for_user: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    for block in blocks:
        given = block.get("annotations") if isinstance(block, dict) else None
        user_only = for_user_only(given)
        target, where = (for_user, "display_content") if user_only else (for_model, "content")
        if isinstance(given, dict):
            kept = {key: given[key] for key in ANNOTATION_KEYS if key in given}
            if kept:
                annotations.append({"part": where, "index": len(target), **kept})
        target.append(content_part(block))
    if for_user and not for_model:
        for_model.append({"type": "text", "text": USER_ONLY_NOTE})
    return ToolExecutionResult(
        content=for_model,
        output_type=OutputType.CONTENT,
        display_content=for_user or None,
        metadata={"mcp": {"annotations": annotations}} if annotations else {},
    )


def for_user_only(annotations: Any) -> bool:
    """Whether a block's annotations keep it from the model: its audience names the user, not the assistant."""
    if not isinstance(annotations, dict):
        return False
    audience = annotations.get("audience")
    return isinstance(audience, list) and "user" in audience and "assistant" not in audience


def content_part(part: Any) -> dict[str, Any]:
    """One MCP content block as a toolplug content part (text or file)."""
    if isinstance(part, dict):
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            return {"type": "text", "text": part["text"]}
        if kind in FILE_PART_TYPES and isinstance(part.get("data"), str):
            return _file_part(part["data"], part.get("mimeType"), None)
        resource = part.get("resource")
        if kind == "resource" and isinstance(resource, dict) and isinstance(resource.get("blob"), str):
            name = str(resource.get("uri", "")).rsplit("/", 1)[-1] or None
            return _file_part(resource["blob"], resource.get("mimeType"), name)
    return {"type": "text", "text": json.dumps(part, ensure_ascii=False, sort_keys=True)}


def error_text(result: dict[str, Any]) -> str:
    """The server's text of a failed call: its text parts joined, else the JSON of its content."""
    content = result.get("content")
    if isinstance(content, list):
        texts = [p["text"] for p in content if isinstance(p, dict) and p.get("type") == "text" and p.get("text")]
        if texts:
            return "\n".join(texts)
        if content:
            return json.dumps(content, ensure_ascii=False)
    structured = result.get("structuredContent")
    return "" if structured is None else json.dumps(structured, ensure_ascii=False)


def _file_part(data: str, media_type: Any, filename: str | None) -> dict[str, Any]:
    part: dict[str, Any] = {
        "type": "file",
        "media_type": media_type if isinstance(media_type, str) and media_type else "application/octet-stream",
        "data": data,
    }
    if filename:
        part["filename"] = filename
    return part


__all__ = ["call_result_to_output", "content_part", "error_text", "for_user_only", "to_model_output"]
