"""Tool settings: plain values in the JSON store, secrets in the keyring, option sources, admin values."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyring.backends import fail

from toolplug import hookimpl
from toolplug.config import parse_config
from toolplug.definitions import ToolDefinition
from toolplug.errors import KeyringUnavailableError, SettingsError, ToolNotRunnableError
from toolplug.execution import ToolExecutionContext
from toolplug.host import Host
from toolplug.memory_keyring import MemoryKeyring
from toolplug.schema import ToolSettingsSchemaBuilder
from toolplug.settings import JsonSettingsStore, Option, OptionSource, SecretStore, ToolSettingsService
from toolplug.tools import FunctionTool, function_tool

SENTINEL = "sk-sentinel-8f3a91c2"


def settings_tool(name: str, schema: ToolSettingsSchemaBuilder, **options: Any) -> FunctionTool:
    """A tool that returns the settings it ran with, so tests see what reached it."""

    def execute(arguments: dict[str, Any], context: ToolExecutionContext) -> dict[str, Any]:
        return {key: value for key, value in context.settings.items() if key != "api_key"}

    return function_tool(
        name,
        f"Report the settings of {name}.",
        {"type": "object", "properties": {}},
        execute,
        pass_context=True,
        settings_schema=schema.build(),
        **options,
    )


class Plugin:
    """A plugin object registering tools and option sources directly (PLG-5)."""

    def __init__(self, *tools: FunctionTool, option_sources: tuple[OptionSource, ...] = ()) -> None:
        self._tools = list(tools)
        self._option_sources = list(option_sources)

    @hookimpl
    def register_tools(self) -> list[FunctionTool]:
        return self._tools

    @hookimpl
    def register_option_sources(self) -> list[OptionSource]:
        return self._option_sources


LANGUAGES = OptionSource.of("languages", [("en", "English"), ("de", "German")])


def search_tool() -> FunctionTool:
    return settings_tool(
        "search",
        ToolSettingsSchemaBuilder.create()
        .required_choice("language", "languages", "Language", "The language results are in.")
        .optional("result_limit", "Results", "How many results.", value_type="integer", default=3)
        .optional_enum("safety", ["off", "strict"], "Safety", "Safe search.")
        .optional("verbose", value_type="boolean")
        .optional_secret("api_key", "API key", "The search API key."),
    )


def build_host(config_text: str = "", *tools: FunctionTool) -> Host:
    import tomllib

    config = parse_config(tomllib.loads(config_text), source="test.toml")
    plugin = Plugin(*(tools or (search_tool(),)), option_sources=(LANGUAGES,))
    return Host(config, plugins=[("testplugin", plugin)], load_entry_points=False)


def settings_file() -> Path:
    import os

    return Path(os.environ["TOOLPLUG_SETTINGS_DIR"]) / "settings.json"


def run(host: Host, tool_id: str, arguments: Mapping[str, Any] | None = None) -> Any:
    outcome = asyncio.run(host.call_tool(tool_id, arguments or {}))
    assert outcome.status.value == "ok", outcome.text
    return outcome.result.json_content


# --- SET-1: plain values in the JSON store, secrets in the keyring ---------------------------------------


def test_plain_values_are_stored_as_json_under_the_settings_dir() -> None:
    # REQ: SET-1
    host = build_host()
    definition = host.tool("search").definition
    host.settings.set(definition, "language", "de")
    host.settings.set(definition, "result_limit", 7)
    stored = json.loads(settings_file().read_text(encoding="utf-8"))
    assert stored == {"search": {"language": "de", "result_limit": 7}}
    # A fresh host (a restart) reads the same values back.
    assert build_host().settings.effective(definition)["language"] == "de"


def test_secrets_live_only_in_the_keyring_under_service_toolplug(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1
    host = build_host()
    definition = host.tool("search").definition
    host.settings.set(definition, "language", "en")
    host.settings.set_secret(definition, "api_key", SENTINEL)
    assert memory_keyring.secrets == {("toolplug", "search.api_key"): SENTINEL}
    assert SENTINEL not in settings_file().read_text(encoding="utf-8")
    assert host.settings.effective(definition)["api_key"] == SENTINEL
    assert "api_key" not in host.settings.effective(definition, include_secrets=False)
    assert host.settings.origin(definition, "api_key") == "keyring"


def test_a_secret_cannot_be_saved_as_a_plain_value(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1
    host = build_host()
    definition = host.tool("search").definition
    with pytest.raises(SettingsError, match="secret"):
        host.settings.set(definition, "api_key", SENTINEL)
    assert not settings_file().exists()
    assert memory_keyring.secrets == {}


def test_a_plain_value_cannot_be_saved_as_a_secret(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1
    host = build_host()
    with pytest.raises(SettingsError, match="not a secret"):
        host.settings.set_secret(host.tool("search").definition, "language", "en")
    assert memory_keyring.secrets == {}


def test_an_empty_secret_is_refused() -> None:
    # REQ: SET-1
    host = build_host()
    with pytest.raises(SettingsError, match="empty"):
        host.settings.set_secret(host.tool("search").definition, "api_key", "")


def test_unset_removes_a_secret_from_the_keyring_and_tolerates_a_missing_one(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1
    host = build_host()
    definition = host.tool("search").definition
    host.settings.set_secret(definition, "api_key", SENTINEL)
    host.settings.unset(definition, "api_key")
    assert memory_keyring.secrets == {}
    host.settings.unset(definition, "api_key")  # nothing stored: nothing to do
    assert host.settings.origin(definition, "api_key") == "unset"


def test_the_secret_store_uses_the_key_tool_id_dot_field_name(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1 — the key another program (or an admin with `keyring set`) would use.
    keyring.set_password("toolplug", "search.api_key", SENTINEL)
    assert SecretStore().get("search", "api_key") == SENTINEL
    assert SecretStore().get("search", "other") is None


def test_without_a_keyring_backend_secrets_fail_with_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: SET-1
    keyring.set_keyring(fail.Keyring())
    host = build_host()
    definition = host.tool("search").definition
    for attempt in (
        lambda: host.settings.set_secret(definition, "api_key", SENTINEL),
        lambda: host.settings.secrets.resolve("search", "api_key"),
        lambda: host.settings.unset(definition, "api_key"),
    ):
        with pytest.raises(KeyringUnavailableError) as caught:
            attempt()
        message = str(caught.value)
        assert "keyring" in message.lower()
        assert "pip install" in message
        assert "TOOLPLUG_SECRET_SEARCH_API_KEY" in message
        assert "plaintext" in message  # keyrings.alt is named for what it is, never as a safe store
        assert isinstance(caught.value, SettingsError)
    # An optional secret that cannot be read is simply absent from the values a tool runs with.
    assert "api_key" not in host.settings.effective(definition)
    # Plain settings keep working without a keyring.
    host.settings.set(definition, "language", "en")
    assert host.settings.effective(definition, include_secrets=False)["language"] == "en"


def test_without_a_keyring_a_tool_needing_a_secret_is_unconfigured_with_the_reason() -> None:
    # REQ: SET-1, SEL-4, SEL-7
    keyring.set_keyring(fail.Keyring())
    tool = settings_tool("mailer", ToolSettingsSchemaBuilder.create().required_secret("api_key"))
    host = build_host("", tool)
    reasons = host.select().reasons_for("mailer")
    assert reasons, "a tool whose required secret cannot be read must not be offered"
    assert any("pip install" in reason for reason in reasons)


def test_without_a_keyring_a_tool_with_only_an_optional_secret_is_still_selected() -> None:
    # REQ: SET-1
    keyring.set_keyring(fail.Keyring())
    host = build_host("[tools.search]\nlocked = { language = 'en' }\n")
    assert [t.id for t in host.select().runnable] == ["search"]


def test_without_a_keyring_a_tool_with_only_an_optional_secret_runs_without_it() -> None:
    # REQ: SET-1, SEL-4 — what the selector calls runnable must run, not fail on the missing keyring.
    keyring.set_keyring(fail.Keyring())
    host = build_host("[tools.search]\nlocked = { language = 'en' }\n")
    assert run(host, "search") == {"language": "en", "result_limit": 3}


def test_a_keyring_that_breaks_while_reading_is_reported_as_unavailable(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1
    class BrokenKeyring(MemoryKeyring):
        def get_password(self, service: str, username: str) -> str | None:
            raise RuntimeError("dbus is gone")

    keyring.set_keyring(BrokenKeyring())
    with pytest.raises(KeyringUnavailableError):
        SecretStore().get("search", "api_key")


# --- SET-2: option sources ----------------------------------------------------------------------------


def test_option_sources_keep_values_with_display_names() -> None:
    # REQ: SET-2
    source = OptionSource.of("units", [Option("c", "Celsius"), ("f", "Fahrenheit"), "kelvin"])
    assert source.values() == ["c", "f", "kelvin"]
    assert [option.label for option in source.options] == ["Celsius", "Fahrenheit", "kelvin"]


def test_a_choice_accepts_only_a_value_of_its_option_source() -> None:
    # REQ: SET-2
    host = build_host()
    definition = host.tool("search").definition
    host.settings.set(definition, "language", "de")
    with pytest.raises(SettingsError) as caught:
        host.settings.set(definition, "language", "fr")
    assert "search.language" in str(caught.value)
    assert "languages" in str(caught.value)
    assert host.settings.effective(definition)["language"] == "de"


def test_a_stored_value_is_checked_against_the_current_list() -> None:
    # REQ: SET-2, SEL-4 — a value saved before the list changed (or edited by hand) leaves the tool
    # unconfigured instead of reaching it.
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text(json.dumps({"search": {"language": "fr"}}), encoding="utf-8")
    host = build_host()
    reasons = host.select().reasons_for("search")
    assert any("language" in reason and "fr" in reason for reason in reasons)
    with pytest.raises(ToolNotRunnableError):
        asyncio.run(host.call_tool("search"))


def test_an_admin_value_outside_the_list_leaves_the_tool_unconfigured() -> None:
    # REQ: SET-2 — values arriving from an organisation's config are checked too.
    host = build_host("[tools.search]\nlocked = { language = 'klingon' }\n")
    assert any("klingon" in reason for reason in host.select().reasons_for("search"))


def test_an_enum_setting_accepts_only_its_own_values() -> None:
    # REQ: SET-2
    host = build_host()
    definition = host.tool("search").definition
    host.settings.set(definition, "safety", "strict")
    with pytest.raises(SettingsError, match="not one of"):
        host.settings.set(definition, "safety", "medium")


@pytest.mark.parametrize(
    ("field", "bad"),
    [("result_limit", "5"), ("result_limit", 2.5), ("result_limit", True), ("verbose", 1), ("language", 3)],
)
def test_a_value_of_the_wrong_type_is_refused(field: str, bad: Any) -> None:
    # REQ: SET-2
    host = build_host()
    with pytest.raises(SettingsError, match=f"search.{field}: expected"):
        host.settings.set(host.tool("search").definition, field, bad)
    assert not settings_file().exists()


def test_an_unknown_field_is_refused_with_the_fields_that_exist() -> None:
    # REQ: SET-2
    host = build_host()
    with pytest.raises(SettingsError) as caught:
        host.settings.set(host.tool("search").definition, "langauge", "en")
    assert "langauge" in str(caught.value)
    assert "language" in str(caught.value).replace("'langauge'", "")


# --- SET-3: locked beats user beats admin default beats field default -------------------------------------


def test_each_layer_wins_over_the_ones_below() -> None:
    # REQ: SET-3
    host = build_host()
    definition = host.tool("search").definition
    # Only the field's own default.
    assert host.settings.effective(definition)["result_limit"] == 3
    assert host.settings.origin(definition, "result_limit") == "default"
    host.settings.set(definition, "result_limit", 9)
    assert host.settings.effective(definition)["result_limit"] == 9

    admin = build_host("[tools.search]\ndefaults = { result_limit = 5 }\n")
    # The user's saved value beats the admin default...
    assert admin.settings.effective(definition)["result_limit"] == 9
    assert admin.settings.origin(definition, "result_limit") == "user"
    # ...and once the user removes it, the admin default pre-fills again, over the field default.
    admin.settings.unset(definition, "result_limit")
    assert admin.settings.effective(definition)["result_limit"] == 5
    assert admin.settings.origin(definition, "result_limit") == "default"

    host.settings.set(definition, "result_limit", 11)
    locked = build_host("[tools.search]\nlocked = { result_limit = 2 }\ndefaults = { result_limit = 5 }\n")
    # The locked value beats the user's saved one, which stays stored.
    assert locked.settings.effective(definition)["result_limit"] == 2
    assert locked.settings.origin(definition, "result_limit") == "locked"
    assert json.loads(settings_file().read_text(encoding="utf-8"))["search"]["result_limit"] == 11


def test_a_locked_value_cannot_be_changed_by_the_user() -> None:
    # REQ: SET-3
    host = build_host("[tools.search]\nlocked = { language = 'en' }\n")
    definition = host.tool("search").definition
    with pytest.raises(SettingsError, match="locked"):
        host.settings.set(definition, "language", "de")
    assert host.settings.effective(definition)["language"] == "en"
    assert not settings_file().exists()


def test_admin_values_reach_the_tool_when_it_runs() -> None:
    # REQ: SET-3 — addressed as <toolId>.<fieldName> in the config, with nothing registered per setting.
    host = build_host("[tools.search]\nlocked = { language = 'de' }\ndefaults = { result_limit = 4 }\n")
    assert run(host, "search") == {"language": "de", "result_limit": 4}
    host.settings.set(host.tool("search").definition, "result_limit", 8)
    assert run(host, "search") == {"language": "de", "result_limit": 8}


def test_an_admin_default_makes_a_required_setting_configured_until_the_user_saves() -> None:
    # REQ: SET-3, SEL-4
    assert build_host().select().reasons_for("search")
    host = build_host("[tools.search]\ndefaults = { language = 'en' }\n")
    assert [t.id for t in host.select().runnable] == ["search"]
    host.settings.set(host.tool("search").definition, "language", "de")
    assert run(host, "search")["language"] == "de"


def test_secrets_never_travel_through_the_config(memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-3 — a secret written into [tools.<id>] neither becomes the secret nor configures the tool.
    tool = settings_tool("mailer", ToolSettingsSchemaBuilder.create().required_secret("api_key"))
    config = f"[tools.mailer]\nlocked = {{ api_key = '{SENTINEL}' }}\ndefaults = {{ api_key = '{SENTINEL}' }}\n"
    host = build_host(config, tool)
    definition = host.tool("mailer").definition
    assert "api_key" not in host.settings.effective(definition)
    assert host.select().reasons_for("mailer")
    assert memory_keyring.secrets == {}
    host.settings.set_secret(definition, "api_key", "from-the-user")
    assert host.settings.effective(definition)["api_key"] == "from-the-user"


def test_values_of_one_tool_never_leak_into_another() -> None:
    # REQ: SET-3
    other = settings_tool("other", ToolSettingsSchemaBuilder.create().optional("language"))
    host = build_host("[tools.search]\nlocked = { language = 'en' }\n", search_tool(), other)
    assert "language" not in host.settings.effective(host.tool("other").definition)
    host.settings.set(host.tool("other").definition, "language", "tlh")
    assert host.settings.effective(host.tool("search").definition)["language"] == "en"


# --- the store ------------------------------------------------------------------------------------------


def definition_of(tool: FunctionTool) -> ToolDefinition:
    return tool.definition()


def test_a_corrupt_settings_file_is_a_clear_settings_error_and_is_never_overwritten(tmp_path: Path) -> None:
    # REQ: SET-1
    path = tmp_path / "settings.json"
    path.write_text('{"search": {"language": "en"', encoding="utf-8")
    service = ToolSettingsService(JsonSettingsStore(path), SecretStore(), option_sources={"languages": LANGUAGES})
    definition = definition_of(search_tool())
    with pytest.raises(SettingsError) as caught:
        service.effective(definition)
    assert str(path) in str(caught.value)
    assert "not valid JSON" in str(caught.value)
    with pytest.raises(SettingsError):
        service.set(definition, "language", "de")
    assert path.read_text(encoding="utf-8") == '{"search": {"language": "en"'


@pytest.mark.parametrize("content", ['["search"]', '{"search": "en"}', '"text"'])
def test_a_settings_file_of_the_wrong_shape_is_a_clear_settings_error(tmp_path: Path, content: str) -> None:
    # REQ: SET-1
    path = tmp_path / "settings.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SettingsError, match="must map tool ids"):
        JsonSettingsStore(path).get_tool("search")


def test_a_corrupt_file_leaves_the_tool_out_of_selection_not_the_host_down() -> None:
    # REQ: SET-1
    settings_file().parent.mkdir(parents=True, exist_ok=True)
    settings_file().write_text("{not json", encoding="utf-8")
    plain = function_tool("plain", "No settings.", {"type": "object", "properties": {}}, lambda arguments: "ran")
    host = build_host("", search_tool(), plain)
    selection = host.select()  # the host keeps working
    assert [tool.id for tool in selection.runnable] == ["plain"]
    (reason,) = selection.reasons_for("search")
    assert "not valid JSON" in reason and str(settings_file()) in reason
    assert asyncio.run(host.call_tool("plain", {})).text == "ran"
    with pytest.raises(ToolNotRunnableError, match="not valid JSON"):
        asyncio.run(host.call_tool("search", {}))
    assert settings_file().read_text(encoding="utf-8") == "{not json"  # nothing stored is lost


def test_a_settings_file_that_is_not_utf8_is_a_clear_settings_error(tmp_path: Path) -> None:
    # REQ: SET-1
    path = tmp_path / "settings.json"
    path.write_bytes(b'{"search": {"language": "\xe4"}}')
    with pytest.raises(SettingsError, match=r"settings\.json"):
        JsonSettingsStore(path).get_tool("search")


def test_an_empty_settings_file_reads_as_no_values(tmp_path: Path) -> None:
    # REQ: SET-1
    path = tmp_path / "settings.json"
    path.write_text("  \n", encoding="utf-8")
    assert JsonSettingsStore(path).get_tool("search") == {}


def test_writing_one_tool_never_loses_another_tools_values(tmp_path: Path) -> None:
    # REQ: SET-1
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"weather": {"unit": "celsius"}}), encoding="utf-8")
    store = JsonSettingsStore(path)
    store.set("search", "language", "en")
    store.set("search", "language", None)
    store.set("maps", "zoom", 3)
    assert json.loads(path.read_text(encoding="utf-8")) == {"weather": {"unit": "celsius"}, "maps": {"zoom": 3}}


def test_two_writers_on_one_file_never_lose_each_others_values(tmp_path: Path) -> None:
    # A host app and `toolplug settings set` in another process share the file: a write from one
    # must not wipe what the other saved after the first had read the file.
    # REQ: SET-1
    path = tmp_path / "settings.json"
    app = JsonSettingsStore(path)
    cli = JsonSettingsStore(path)
    app.set("search", "language", "en")
    assert cli.get_tool("search") == {"language": "en"}
    app.set("maps", "zoom", 3)
    cli.set("weather", "unit", "celsius")
    app.set("search", "result_limit", 5)
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "search": {"language": "en", "result_limit": 5},
        "maps": {"zoom": 3},
        "weather": {"unit": "celsius"},
    }
    assert app.get_tool("weather") == {"unit": "celsius"}


def test_the_store_creates_its_folder_and_leaves_no_temporary_files(tmp_path: Path) -> None:
    # REQ: SET-1
    path = tmp_path / "deep" / "er" / "settings.json"
    JsonSettingsStore(path).set("search", "language", "en")
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]


def test_the_default_store_follows_toolplug_settings_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: SET-1
    monkeypatch.setenv("TOOLPLUG_SETTINGS_DIR", str(tmp_path / "elsewhere"))
    service = ToolSettingsService(option_sources={"languages": LANGUAGES})
    service.set(definition_of(search_tool()), "language", "en")
    assert json.loads((tmp_path / "elsewhere" / "settings.json").read_text(encoding="utf-8")) == {
        "search": {"language": "en"}
    }
