"""The settings reference admins read (SET-4): generated from the installed tools, never hand-kept."""

from __future__ import annotations

import re
from typing import Any

from toolplug import hookimpl
from toolplug.config import HostConfig
from toolplug.definitions import SettingsField, SettingsSchema, ToolDefinition
from toolplug.host import Host
from toolplug.schema import ToolSettingsSchemaBuilder
from toolplug.settings import OptionSource
from toolplug.settings_docs import settings_reference, settings_reference_markdown
from toolplug.tools import FunctionTool, ToolImplementation, function_tool


def settings_tool(name: str, schema: SettingsSchema) -> FunctionTool:
    return function_tool(
        name,
        f"The {name} tool.",
        {"type": "object", "properties": {}},
        lambda arguments: "ok",
        settings_schema=schema,
    )


class TranslatedTool(ToolImplementation):
    """A tool whose labels and help texts come from its implementation (translatable), not its definition."""

    implementation_key = "translated"

    def definition(self) -> ToolDefinition:
        return settings_tool(
            "translated",
            ToolSettingsSchemaBuilder.create().required("unit", "unit", "raw description").build(),
        ).definition()

    def settings_field_label(self, field: SettingsField) -> str:
        return "Einheit"

    def settings_field_description(self, field: SettingsField) -> str:
        return "Die Einheit der Temperatur."


class Plugin:
    def __init__(self, *tools: ToolImplementation, sources: tuple[OptionSource, ...] = ()) -> None:
        self._tools = list(tools)
        self._sources = list(sources)

    @hookimpl
    def register_tools(self) -> list[ToolImplementation]:
        return self._tools

    @hookimpl
    def register_option_sources(self) -> list[OptionSource]:
        return self._sources


def weather() -> FunctionTool:
    return settings_tool(
        "weather",
        ToolSettingsSchemaBuilder.create()
        .required_choice("language", "languages", "Language", "The language of the forecast.")
        .optional("days", "Days", "How many days to forecast.", value_type="integer", default=3)
        .optional("metric", "Metric", "Use metric units.", value_type="boolean")
        .optional_enum("detail", ["short", "long"], "Detail", "How detailed the forecast is.")
        .required_secret("api_key", "API key", "The key of the weather service.")
        .build(),
    )


def build_host(*tools: ToolImplementation) -> Host:
    sources = (OptionSource.of("languages", [("en", "English"), ("de", "German")]),)
    return Host(HostConfig(), plugins=[("weatherplug", Plugin(*tools, sources=sources))], load_entry_points=False)


def rows_by_key(host: Host) -> dict[str, dict[str, Any]]:
    return {row["key"]: row for row in settings_reference(host)}


def test_every_setting_of_every_tool_is_documented_with_key_type_required_and_meaning() -> None:
    # REQ: SET-4
    host = build_host(weather(), TranslatedTool(), settings_tool("plain", SettingsSchema()))
    rows = rows_by_key(host)
    expected = {
        f"{tool.id}.{field.name}": field for tool in host.registry for field in tool.definition.settings_schema.fields
    }
    assert (
        set(rows)
        == set(expected)
        == {
            "weather.language",
            "weather.days",
            "weather.metric",
            "weather.detail",
            "weather.api_key",
            "translated.unit",
        }
    )
    for key, field in expected.items():
        row = rows[key]
        assert row["field"] == field.name
        assert row["type"] == field.value_type
        assert row["required"] is field.required
        assert row["meaning"]
        assert row["plugin"] == "weatherplug"
    assert rows["weather.days"]["type"] == "integer"
    assert rows["weather.metric"]["type"] == "boolean"
    assert rows["weather.language"]["required"] is True and rows["weather.days"]["required"] is False
    assert rows["weather.days"]["meaning"] == "How many days to forecast."
    assert rows["weather.days"]["default"] == 3


def test_choices_come_from_the_option_source_or_the_enum() -> None:
    # REQ: SET-4, SET-2
    rows = rows_by_key(build_host(weather()))
    assert rows["weather.language"]["choices"] == ["en", "de"]
    assert rows["weather.language"]["option_source"] == "languages"
    assert rows["weather.detail"]["choices"] == ["short", "long"]


def test_secrets_are_documented_but_marked_as_not_admin_manageable() -> None:
    # REQ: SET-4, SET-3 (secrets never travel through the config)
    rows = rows_by_key(build_host(weather()))
    assert rows["weather.api_key"]["admin_manageable"] is False
    assert rows["weather.language"]["admin_manageable"] is True
    markdown = settings_reference_markdown(list(rows.values()))
    secret_line = next(line for line in markdown.splitlines() if "`weather.api_key`" in line)
    assert "keyring" in secret_line


def test_the_meaning_is_the_implementations_translatable_text() -> None:
    # REQ: SET-4, DEF-2
    row = rows_by_key(build_host(TranslatedTool()))["translated.unit"]
    assert row["meaning"] == "Die Einheit der Temperatur."
    assert row["label"] == "Einheit"


def test_the_reference_is_regenerated_from_what_is_installed() -> None:
    # REQ: SET-4 — a new tool or setting shows up without anyone editing a document.
    before = settings_reference_markdown(settings_reference(build_host(weather())))
    assert "translated.unit" not in before
    after = settings_reference_markdown(settings_reference(build_host(weather(), TranslatedTool())))
    assert "`translated.unit`" in after
    assert "Die Einheit der Temperatur." in after


def test_the_markdown_has_one_row_per_setting_with_key_type_required_and_meaning() -> None:
    # REQ: SET-4
    host = build_host(weather())
    markdown = settings_reference_markdown(settings_reference(host))
    lines = markdown.splitlines()
    assert "`[tools.<toolId>]`" in markdown  # tells admins where the keys go
    for row in settings_reference(host):
        matching = [line for line in lines if f"`{row['key']}`" in line]
        assert len(matching) == 1, row["key"]
        line = matching[0]
        assert (" yes " if row["required"] else " no ") in line
        assert row["meaning"] in line
        if row["kind"] != "secret":
            assert f" {row['type']} " in line


def test_a_meaning_with_line_breaks_and_pipes_stays_in_its_table_row() -> None:
    # REQ: SET-4 — help texts are free text; the table must survive them.
    tool = settings_tool(
        "notes",
        ToolSettingsSchemaBuilder.create()
        .optional("folder", "Folder", "Where notes go.\nUse an absolute path | no ~.")
        .build(),
    )
    markdown = settings_reference_markdown(settings_reference(build_host(tool)))
    row_lines = [line for line in markdown.splitlines() if line.startswith("| `notes.")]
    assert len(row_lines) == 1
    assert len(re.findall(r"(?<!\\)\|", row_lines[0])) == 7  # six columns; the escaped pipe is text
    assert "Where notes go." in row_lines[0] and "no ~." in row_lines[0]


def test_a_host_without_settings_says_so() -> None:
    # REQ: SET-4
    markdown = settings_reference_markdown(settings_reference(build_host(settings_tool("plain", SettingsSchema()))))
    assert "No installed tool has settings." in markdown


def test_invalid_tools_are_not_documented() -> None:
    # REQ: SET-4
    bad = settings_tool("Bad-Name", ToolSettingsSchemaBuilder.create().required("x", "X", "An x.").build())
    assert "Bad-Name.x" not in rows_by_key(build_host(weather(), bad))
