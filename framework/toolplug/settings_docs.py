"""The settings reference admins read, generated from the registered definitions."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from toolplug.definitions import SettingKind

if TYPE_CHECKING:
    from toolplug.host import Host


def settings_reference(host: Host) -> list[dict[str, Any]]:
    """Every setting of every valid tool: key, type, kind, required, meaning, choices, admin values."""
    rows = []
    for registered in sorted(host.registry, key=lambda t: t.id):
        definition = registered.definition
        for field in definition.settings_schema.fields:
            choices: list[Any] | None = None
            options: list[dict[str, Any]] | None = None
            if field.kind is SettingKind.ENUM and field.enum is not None:
                choices = list(field.enum)
                options = [{"value": value, "display_name": str(value)} for value in field.enum]
            elif field.kind is SettingKind.CHOICE and field.option_source in host.option_sources:
                source = host.option_sources[field.option_source]
                choices = source.values()
                options = [{"value": option.value, "display_name": option.label} for option in source.options]
            rows.append({
                "key": f"{definition.id}.{field.name}",
                "tool": definition.id,
                "plugin": registered.plugin,
                "field": field.name,
                "label": registered.implementation.settings_field_label(field),
                "type": field.value_type,
                "kind": field.kind.value,
                "required": field.required,
                "meaning": registered.implementation.settings_field_description(field),
                "option_source": field.option_source,
                "choices": choices,
                "options": options,
                "default": field.default,
                "admin_manageable": field.kind is not SettingKind.SECRET,
            })
    return rows


def settings_reference_markdown(rows: list[dict[str, Any]]) -> str:
    """The reference as Markdown, one section per tool."""
    lines = [
        "# Tool settings reference",
        "",
        "Generated from the installed tools. Admins address a setting as `<toolId>.<fieldName>` under",
        "`[tools.<toolId>]` in the host config: `locked` values win over everything, `defaults` pre-fill",
        "until the user saves a value. Secrets come only from the OS keyring or the environment variable",
        "`TOOLPLUG_SECRET_<TOOL>_<FIELD>`, and cannot be set this way.",
    ]
    current = None
    for row in rows:
        if row["tool"] != current:
            current = row["tool"]
            lines += ["", f"## `{current}` (plugin `{row['plugin']}`)", "",
                      "| key | type | required | meaning | choices | default |", "|---|---|---|---|---|---|"]
        kind = "secret (keyring or environment)" if row["kind"] == "secret" else row["type"]
        choices = _options(row["options"]) if row["options"] else (
            f"from `{row['option_source']}`" if row["option_source"] else "")
        default = "" if row["default"] is None else json.dumps(row["default"])
        meaning = _cell(row["meaning"] or row["label"])
        lines.append(
            f"| `{row['key']}` | {kind} | {'yes' if row['required'] else 'no'} | {meaning} | {_cell(choices)} "
            f"| {_cell(default)} |"
        )
    if current is None:
        lines += ["", "No installed tool has settings."]
    return "\n".join(lines) + "\n"


def _options(options: list[dict[str, Any]]) -> str:
    """``"en" (English), "de" (German)``: the stored value, and the name a person picks it by."""
    shown = []
    for option in options:
        value = json.dumps(option["value"])
        name = option["display_name"]
        shown.append(value if name == str(option["value"]) else f"{value} ({name})")
    return ", ".join(shown)


def _cell(text: str) -> str:
    # Free text (a help text, a value) must stay inside its table cell: one line, pipes escaped.
    return " ".join(text.split()).replace("|", "\\|")
