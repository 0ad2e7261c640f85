"""What a person needs to know about one tool: what the model reads, its arguments and its settings.

:func:`tool_details` is the JSON shape ``toolplug tools --json`` adds to each entry;
:func:`render_tool` prints it for ``toolplug tools TOOL``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolplug.definitions import SettingKind, SettingsField
from toolplug.errors import SettingsError

if TYPE_CHECKING:
    from toolplug.host import Host, ToolStatus
    from toolplug.registry import RegisteredTool

_CONSTRAINTS = (
    ("minimum", "minimum {}"),
    ("maximum", "maximum {}"),
    ("exclusiveMinimum", "more than {}"),
    ("exclusiveMaximum", "less than {}"),
    ("minLength", "at least {} characters"),
    ("maxLength", "at most {} characters"),
    ("minItems", "at least {} items"),
    ("maxItems", "at most {} items"),
    ("pattern", "matching {}"),
    ("format", "format {}"),
)


def tool_details(host: Host, status: ToolStatus) -> dict[str, Any]:
    """The details of one ``toolplug tools`` entry; a tool the registry rejected has only its plugin's."""
    record = host.plugins.records.get(status.plugin)
    empty: dict[str, Any] = {
        "title": None, "description": None, "parameters": None, "settings": [],
        "distribution": record.distribution if record is not None else None,
    }
    if status.status == "invalid" or status.id not in host.registry:
        return empty
    registered = host.registry.get(status.id)
    if registered.plugin != status.plugin:
        return empty
    definition = registered.definition
    implementation = registered.implementation
    return {
        "title": definition.title or implementation.display_name or definition.id,
        "description": definition.function.description_for_llm,
        "parameters": definition.function.parameters,
        "settings": [_setting(host, registered, field) for field in definition.settings_schema.fields],
        "distribution": registered.distribution,
        "kind": definition.kind.value,
        "function_name": definition.function.name,
        "minimum_provider_confidence": definition.minimum_provider_confidence.label,
        "needs_approval": _needs_approval(registered),
    }


def _needs_approval(registered: RegisteredTool) -> bool | str:
    value = registered.implementation.needs_approval
    return value if isinstance(value, bool) else "per call"


def _setting(host: Host, registered: RegisteredTool, field: SettingsField) -> dict[str, Any]:
    implementation = registered.implementation
    try:
        origin: str | None = host.settings.origin(registered.definition, field.name)
    except SettingsError:
        origin = "unavailable"  # no keyring to ask: whether a secret is set is unknown
    return {
        "name": field.name,
        "label": implementation.settings_field_label(field),
        "description": implementation.settings_field_description(field),
        "kind": field.kind.value,
        "type": field.value_type,
        "required": field.required,
        "set": None if origin in (None, "unavailable") else origin != "unset",
        "origin": origin,
        "default": field.default,
        "option_source": field.option_source,
        "choices": _choices(host, field),
    }


def _choices(host: Host, field: SettingsField) -> list[dict[str, Any]] | None:
    """Each option's stored value and the name a person reads; None when the field has no fixed list."""
    if field.kind is SettingKind.ENUM and field.enum is not None:
        return [{"value": value, "display_name": str(value)} for value in field.enum]
    if field.kind is SettingKind.CHOICE and field.option_source in host.option_sources:
        source = host.option_sources[field.option_source]
        return [{"value": option.value, "display_name": option.label} for option in source.options]
    return None


# --- the readable form -----------------------------------------------------------------------------


def render_tool(entry: dict[str, Any]) -> str:
    """One tool, in full, as ``toolplug tools TOOL`` prints it."""
    origin = entry["plugin"] + (f", distribution {entry['distribution']}" if entry.get("distribution") else "")
    title = entry.get("title")
    lines = [f"{entry['id']}" + (f" — {title}" if title and title != entry["id"] else "") + f"  (plugin {origin})"]
    lines.append(f"Status: {entry['status']}")
    lines += [f"  - {reason}" for reason in entry["reasons"]]
    if entry.get("description") is not None:
        lines += ["", "What the model reads:", *_indented(entry["description"])]
        if entry.get("needs_approval"):
            lines.append("Each call needs approval" + (" (decided per call)." if entry["needs_approval"] == "per call"
                                                      else "."))
    if entry.get("parameters") is not None:
        lines += ["", "Arguments:", *_arguments(entry["parameters"])]
    if entry.get("settings"):
        lines += ["", "Settings:", *(_setting_lines(setting) for setting in entry["settings"])]
    if entry["status"] == "runnable" and entry.get("parameters") is not None:
        lines += ["", f"Run it: toolplug call {entry['id']} --args '{_example(entry['parameters'])}'"]
    return "\n".join(lines)


def _indented(text: str) -> list[str]:
    return [f"  {line}" if line else "" for line in text.strip().splitlines()] or ["  (none)"]


def _arguments(schema: dict[str, Any]) -> list[str]:
    properties = schema.get("properties") or {}
    if not properties:
        return ["  (none)"]
    required = set(schema.get("required") or ())
    lines = []
    for name, sub in properties.items():
        facts = [_type_of(sub), "required" if name in required else "optional"]
        facts += [text.format(json.dumps(sub[key])) for key, text in _CONSTRAINTS if key in sub]
        if "enum" in sub:
            facts.append("one of " + ", ".join(json.dumps(value) for value in sub["enum"]))
        if "default" in sub:
            facts.append(f"default {json.dumps(sub['default'])}")
        description = sub.get("description", "") if isinstance(sub, dict) else ""
        lines.append(f"  {name}: {', '.join(facts)}" + (f" — {description}" if description else ""))
    return lines


def _type_of(schema: Any) -> str:
    if not isinstance(schema, dict):
        return "any"
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(str(k) for k in kind)
    if kind == "array":
        return f"array of {_type_of(schema.get('items') or {})}"
    if kind:
        return str(kind)
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return " or ".join(_type_of(branch) for branch in schema[combinator])
    if "enum" in schema:
        return "enum"
    return "any"


def _setting_lines(setting: dict[str, Any]) -> str:
    kind = setting["kind"] if setting["kind"] != "plain" else setting["type"]
    state = {True: "set", False: "not set", None: "unknown (no keyring)"}[setting["set"]]
    if setting["set"]:
        state = f"set ({setting['origin']})"
    facts = [kind, "required" if setting["required"] else "optional"]
    if setting["default"] is not None and setting["origin"] == "default":
        facts.append(f"default {json.dumps(setting['default'])}")
    else:
        facts.append(state)
    line = f"  {setting['name']}: {', '.join(facts)}"
    if setting["description"] or setting["label"] != setting["name"]:
        line += f" — {setting['description'] or setting['label']}"
    if setting["choices"]:
        shown = [
            json.dumps(c["value"]) + (f" ({c['display_name']})" if c["display_name"] != str(c["value"]) else "")
            for c in setting["choices"]
        ]
        line += f"\n      options: {', '.join(shown)}"
    elif setting["option_source"]:
        line += f"\n      options from {setting['option_source']!r}, which no installed plugin provides"
    return line


def _example(schema: dict[str, Any]) -> str:
    from toolplug.testing import arguments_from_schema

    required = set(schema.get("required") or ())
    full = arguments_from_schema(schema)
    shown = {key: value for key, value in full.items() if key in required} if isinstance(full, dict) else {}
    return json.dumps(shown, ensure_ascii=False).replace("'", "'\\''")


__all__ = ["render_tool", "tool_details"]
