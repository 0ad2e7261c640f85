"""How ``toolplug call`` shows a result: every output type in full, files as placeholders (never base64)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolplug.definitions import ToolExecutionResult
    from toolplug.execution import ToolCallOutcome

FILE_TYPES = frozenset({"file", "image", "audio"})
DISPLAY_HEADING = "\nFor you only (the model does not see this):"


def content_for_people(parts: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """The content parts with each file's data replaced by its size in bytes."""
    if parts is None:
        return None
    return [_placeholder(part) if part.get("type") in FILE_TYPES else part for part in parts]


def _placeholder(part: dict[str, Any]) -> dict[str, Any]:
    shown = {key: value for key, value in part.items() if key != "data"}
    shown.setdefault("media_type", part.get("mimeType") or "application/octet-stream")
    data = part.get("data")
    shown["size"] = _decoded_size(data) if isinstance(data, str) else None
    return shown


def _decoded_size(data: str) -> int:
    # The size of the bytes a base64 text stands for, without decoding it (it may be large).
    text = "".join(data.split())
    return len(text) * 3 // 4 - len(text) + len(text.rstrip("="))


def result_payload(outcome: ToolCallOutcome) -> dict[str, Any]:
    """The JSON shape of ``toolplug call --json``."""
    result = outcome.result
    return {
        "status": outcome.status.value,
        "output_type": result.resolved_output_type(is_error=outcome.is_error).value,
        "text": result.text_content,
        "json": result.json_content,
        "content": content_for_people(result.content),
        "display_content": content_for_people(result.display_content),
        "sources": [s.model_dump() for s in result.sources],
        "required_provider_confidence": (
            None if result.required_provider_confidence is None else result.required_provider_confidence.label
        ),
        "trace": outcome.trace.as_dict(),
    }


def render_result(result: ToolExecutionResult) -> str:
    """The result for a person: text as it is, JSON indented, each content part in turn."""
    blocks: list[str] = []
    if result.text_content is not None:
        blocks.append(result.text_content)
    elif result.content is None:
        blocks.append(json.dumps(result.json_content, indent=2, ensure_ascii=False))
    if result.content is not None:
        blocks += [_render_part(part) for part in content_for_people(result.content) or []]
    if result.display_content:
        blocks.append(DISPLAY_HEADING)
        blocks += [_render_part(part) for part in content_for_people(result.display_content) or []]
    return "\n".join(blocks)


def _render_part(part: dict[str, Any]) -> str:
    kind = part.get("type")
    if kind == "text" and isinstance(part.get("text"), str):
        return str(part["text"])
    if kind in FILE_TYPES:
        facts = [str(part.get("media_type"))]
        if part.get("size") is not None:
            facts.append(_human_size(int(part["size"])))
        name = part.get("filename") or part.get("url")
        if name:
            facts.append(str(name))
        return f"[{kind}: {', '.join(facts)}]"
    return json.dumps(part, ensure_ascii=False)


def _human_size(size: int) -> str:
    if size < 1024:
        return f"{size} bytes"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KiB"
    return f"{size / (1024 * 1024):.1f} MiB"


__all__ = ["content_for_people", "render_result", "result_payload"]
