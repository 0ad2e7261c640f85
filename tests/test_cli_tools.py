"""``toolplug tools``: each tool's description, arguments and settings, in JSON and in full for one tool."""

from __future__ import annotations

import json

import keyring
from keyring.backends import fail
from test_cli import SENTINEL, Install, install, json_of

from toolplug.memory_keyring import MemoryKeyring

__all__ = ["install"]  # the installed-plugin fixture of test_cli

DETAIL_KEYS = {"title", "description", "parameters", "settings", "plugin", "distribution"}


def test_tools_json_has_what_the_model_reads_and_the_settings(install: Install) -> None:
    # REQ: UX-4
    listed = {t["id"]: t for t in json_of(install().invoke("tools", "--json"))}
    for entry in listed.values():
        assert set(entry) >= DETAIL_KEYS
    echo = listed["echo"]
    assert echo["title"] == "echo"
    assert echo["description"] == "Repeat a text."
    assert echo["plugin"] == "testplug" and echo["distribution"] == "toolplug-cli-test"
    assert echo["parameters"]["required"] == ["text"]
    assert echo["parameters"]["properties"]["times"] == {"type": "integer", "description": "How often.", "minimum": 1}
    assert echo["settings"] == []
    settings = {s["name"]: s for s in listed["weather"]["settings"]}
    assert list(settings) == ["language", "limit", "region", "api_key"]
    language = settings["language"]
    assert (language["kind"], language["required"], language["set"]) == ("choice", True, False)
    assert language["choices"] == [
        {"value": "en", "display_name": "English"},
        {"value": "de", "display_name": "German"},
    ]
    assert language["description"] == "The language of the forecast."
    assert (settings["limit"]["type"], settings["limit"]["set"], settings["limit"]["origin"]) == (
        "integer", True, "default"
    )
    assert settings["api_key"]["kind"] == "secret" and settings["api_key"]["set"] is False


def test_tools_json_says_which_settings_are_set_and_never_shows_a_secret(
    install: Install, memory_keyring: MemoryKeyring
) -> None:
    # REQ: UX-4, EXE-2
    installed = install()
    assert installed.invoke("settings", "set", "weather", "language", "de").exit_code == 0
    assert installed.invoke("settings", "secret", "weather", "api_key", input=SENTINEL + "\n").exit_code == 0
    result = installed.invoke("tools", "--json")
    assert SENTINEL not in result.output
    settings = {s["name"]: s for s in {t["id"]: t for t in json_of(result)}["weather"]["settings"]}
    assert (settings["language"]["set"], settings["language"]["origin"]) == (True, "user")
    assert (settings["api_key"]["set"], settings["api_key"]["origin"]) == (True, "keyring")
    assert (settings["region"]["set"], settings["region"]["origin"]) == (False, "unset")
    shown = installed.invoke("tools", "weather")
    assert SENTINEL not in shown.output
    assert "api_key: secret, required, set (keyring)" in shown.stdout


def test_tools_json_without_a_keyring_still_lists_every_tool(install: Install) -> None:
    # REQ: UX-4 — no keyring: whether a secret is set may be unknown, but nothing fails.
    keyring.set_keyring(fail.Keyring())
    result = install().invoke("tools", "--json")
    assert result.exit_code == 0, result.output
    weather = {t["id"]: t for t in json_of(result)}["weather"]
    api_key = next(s for s in weather["settings"] if s["name"] == "api_key")
    assert api_key["set"] in (None, False)


def test_an_invalid_tool_has_no_details_but_keeps_its_plugin(install: Install) -> None:
    # REQ: UX-4
    bad = '[function_tool("Bad-Name", "Bad.", NO_ARGS, lambda arguments: "x")]'
    entry = {t["id"]: t for t in json_of(install(bad).invoke("tools", "--json"))}["Bad-Name"]
    assert entry["status"] == "invalid"
    assert entry["description"] is None and entry["parameters"] is None and entry["settings"] == []
    assert entry["distribution"] == "toolplug-cli-test"


def test_tools_tool_prints_one_tool_in_full(install: Install) -> None:
    # REQ: UX-4 — description, arguments with their constraints, settings with display names, how to run it.
    installed = install()
    result = installed.invoke("tools", "echo")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.startswith("echo  (plugin testplug, distribution toolplug-cli-test)\nStatus: runnable\n")
    assert "What the model reads:\n  Repeat a text.\n" in out
    assert "  text: string, required — The text to repeat.\n" in out
    assert "  times: integer, optional, minimum 1 — How often.\n" in out
    assert "Run it: toolplug call echo --args '{\"text\": \"test\"}'" in out
    weather = installed.invoke("tools", "weather", "--provider", "cloud").stdout
    assert "Status: excluded\n  - not configured: " in weather
    assert "  language: choice, required, not set — The language of the forecast.\n" in weather
    assert '      options: "en" (English), "de" (German)\n' in weather
    assert "  limit: integer, optional, default 3 — How many days to forecast.\n" in weather
    assert "Run it" not in weather


def test_tools_tool_json_is_the_one_entry(install: Install) -> None:
    # REQ: UX-4
    installed = install()
    one = json_of(installed.invoke("tools", "add", "--json"))
    every = {t["id"]: t for t in json_of(installed.invoke("tools", "--json"))}
    assert one == every["add"]


def test_tools_of_an_unknown_tool_is_bad_usage_naming_the_tools(install: Install) -> None:
    # REQ: UX-4
    result = install().invoke("tools", "ecko")
    assert result.exit_code == 2
    assert "ecko" in result.stderr and "echo" in result.stderr
    assert result.stdout == ""


def test_settings_docs_show_the_display_names_of_options(install: Install) -> None:
    # REQ: SET-2, SET-4 — the stored value and the name a person picks it by.
    installed = install()
    text = installed.invoke("settings", "docs").stdout
    assert '"en" (English), "de" (German)' in text
    rows = {row["key"]: row for row in json_of(installed.invoke("settings", "docs", "--json"))}
    assert rows["weather.language"]["options"] == [
        {"value": "en", "display_name": "English"},
        {"value": "de", "display_name": "German"},
    ]
    assert json.dumps(rows["weather.language"]["choices"]) == '["en", "de"]'


# --- call: every output type in full ---------------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + bytes(2992)
CONTENT_TOOL = (
    '[function_tool("shot", "A screenshot.", NO_ARGS, lambda arguments: ToolExecutionResult(content=['
    '{"type": "text", "text": "Here it is."}, '
    '{"type": "file", "media_type": "image/png", "filename": "shot.png", '
    f'"data": __import__("base64").b64encode({PNG!r}).decode()}}], '
    'sources=[Source(url="https://example.org/shot", title="Shot")]))]'
)


def test_call_json_shows_content_parts_with_files_as_placeholders(install: Install) -> None:
    # REQ: EXE-3, UX-1 — the content itself, a file as media type and size, never its base64.
    import base64

    result = install(CONTENT_TOOL).invoke("call", "shot", "--json")
    assert result.exit_code == 0, result.output
    payload = json_of(result)
    assert payload["output_type"] == "content"
    assert payload["content"] == [
        {"type": "text", "text": "Here it is."},
        {"type": "file", "media_type": "image/png", "filename": "shot.png", "size": len(PNG)},
    ]
    assert payload["sources"] == [{"url": "https://example.org/shot", "title": "Shot"}]
    encoded = base64.b64encode(PNG).decode()
    assert encoded[:40] not in result.output


def test_call_prints_content_parts_readably(install: Install) -> None:
    # REQ: EXE-3, UX-1
    result = install(CONTENT_TOOL).invoke("call", "shot")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Here it is.\n[file: image/png, 2.9 KiB, shot.png]\n")
    assert "Sources used by tools:\n  - Shot: https://example.org/shot" in result.stdout


DISPLAY_TOOL = (
    '[function_tool("ask", "Asks.", NO_ARGS, lambda arguments: ToolExecutionResult('
    'text_content="Done.", display_content=['
    '{"type": "text", "text": "A note for the user only."}, '
    '{"type": "file", "media_type": "image/png", "filename": "chart.png", '
    f'"data": __import__("base64").b64encode({PNG!r}).decode()}}]))]'
)


def test_call_shows_what_a_tool_shows_the_user_only(install: Install) -> None:
    # REQ: EXE-3, UX-1 — content a tool (an MCP server's user-only blocks) addresses to the person, not the
    # model: in --json as display_content, and in text after a heading that says the model does not see it.
    installed = install(DISPLAY_TOOL)
    payload = json_of(installed.invoke("call", "ask", "--json"))
    assert payload["text"] == "Done."
    assert payload["display_content"] == [
        {"type": "text", "text": "A note for the user only."},
        {"type": "file", "media_type": "image/png", "filename": "chart.png", "size": len(PNG)},
    ]
    text = installed.invoke("call", "ask").stdout
    assert text.startswith(
        "Done.\n\nFor you only (the model does not see this):\nA note for the user only.\n"
        "[file: image/png, 2.9 KiB, chart.png]\n"
    )


def test_call_prints_json_output_indented(install: Install) -> None:
    # REQ: EXE-3, UX-1
    result = install().invoke("call", "add", "--args", '{"a": 2, "b": 40}')
    assert result.exit_code == 0
    assert result.stdout == '{\n  "sum": 42\n}\n'
