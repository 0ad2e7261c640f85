"""The ``toolplug`` command: the JSON shapes scripts rely on, exit codes, and settings (UX-1, PLG-6)."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

import keyring
import pytest
from click.testing import CliRunner, Result
from keyring.backends import fail

from toolplug.cli import cli
from toolplug.memory_keyring import MemoryKeyring

SENTINEL = "sk-sentinel-5e0c77d1a2"

# A third-party plugin as a user installs it: a module plus its dist-info with an entry point in the
# group `toolplug`, found by importlib.metadata on sys.path.
PLUGIN_BODY = """
from toolplug import (
    OptionSource, Source, ToolExecutionBlockedError, ToolExecutionResult, function_tool, hookimpl,
)
from toolplug.schema import ToolParameterSchemaBuilder, ToolSettingsSchemaBuilder

CALLS = []


def _echo(arguments):
    CALLS.append(("echo", arguments))
    return ToolExecutionResult(
        text_content=arguments["text"] * arguments.get("times", 1),
        sources=[Source(url="https://example.org/echo", title="Echo page")],
        required_provider_confidence="medium",
    )


def _add(arguments):
    return {"sum": arguments["a"] + arguments["b"]}


def _refuse(arguments):
    raise ToolExecutionBlockedError("Refused: the admin blocks this target.")


def _explode(arguments):
    raise RuntimeError("kaboom in the tool")


def _weather(arguments, context):
    key = context.settings["api_key"]
    return (
        f"language={context.settings['language']} limit={context.settings.get('limit')} "
        f"key-length={len(key)} key={key}"
    )


NO_ARGS = {"type": "object", "properties": {}}

TOOLS = [
    function_tool(
        "echo", "Repeat a text.",
        ToolParameterSchemaBuilder.create()
        .required_string("text", "The text to repeat.")
        .optional_integer("times", "How often.", minimum=1)
        .build(),
        _echo,
    ),
    function_tool(
        "add", "Add two integers.",
        ToolParameterSchemaBuilder.create().required_integer("a").required_integer("b").build(), _add,
    ),
    function_tool("refuse", "Always refuses.", NO_ARGS, _refuse),
    function_tool("explode", "Always fails.", NO_ARGS, _explode),
    function_tool("vault", "Reads the vault.", NO_ARGS, lambda arguments: "vault opened",
                  minimum_provider_confidence="high"),
    function_tool(
        "weather", "The weather.", NO_ARGS, _weather, pass_context=True,
        settings_schema=ToolSettingsSchemaBuilder.create()
        .required_choice("language", "languages", "Language", "The language of the forecast.")
        .optional("limit", "Limit", "How many days to forecast.", value_type="integer", default=3)
        .optional("region", "Region", "Where the forecast is for.")
        .required_secret("api_key", "API key", "The key of the weather service.")
        .build(),
    ),
]


@hookimpl
def register_tools():
    return TOOLS + EXTRA_TOOLS


@hookimpl
def register_option_sources():
    return [OptionSource.of("languages", [("en", "English"), ("de", "German")])]
"""


def builtin_plugins() -> list[str]:
    """The entry points toolplug itself registers; denied here so these tests see only their own plugin."""
    return sorted(
        ep.name
        for ep in metadata.entry_points(group="toolplug")
        if ep.dist is not None and ep.dist.metadata["Name"] == "toolplug"
    )


BASE_CONFIG = """
[host]
components = ["chat", "assistants", "legal_check"]
[plugins]
deny = {builtins}
[providers.cloud]
api = "openai-chat"
model = "m"
confidence = "low"
[providers.local]
api = "openai-chat"
model = "m"
confidence = "high"
"""

_counter = itertools.count()


class Installed:
    """An installed test plugin and the config file naming it."""

    def __init__(self, config: Path, module: str, plugin_dir: Path) -> None:
        self.config = config
        self.module = module
        self.plugin_dir = plugin_dir

    def invoke(self, *args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(cli, ["--config", str(self.config), *args], input=input)

    def environment(self, home: Path, **extra: str) -> dict[str, str]:
        """The environment of a fresh ``toolplug`` process: this config and plugin, nothing of the machine's
        (home, config folder, settings and keyring all isolated below ``home``)."""
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / "xdg"),
            "PYTHONPATH": str(self.plugin_dir),
            "TOOLPLUG_CONFIG": str(self.config),
            "TOOLPLUG_SETTINGS_DIR": str(home / "settings"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
            **extra,
        }

    def calls(self) -> list[Any]:
        """The calls the plugin's tools received (none when the plugin was never even imported)."""
        module = sys.modules.get(self.module)
        return [] if module is None else list(module.CALLS)


Install = Callable[..., Installed]


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    modules: list[str] = []

    def install(
        extra_tools: str = "[]", *, config: str = "", plugins: dict[str, str] | None = None, name: str = "testplug"
    ) -> Installed:
        plugin_dir = tmp_path / "site"
        plugin_dir.mkdir(exist_ok=True)
        module = f"toolplug_cli_test_{os.getpid()}_{next(_counter)}"
        (plugin_dir / f"{module}.py").write_text(PLUGIN_BODY + f"\nEXTRA_TOOLS = {extra_tools}\n", encoding="utf-8")
        entry_points = {name: module}
        for other_name, body in (plugins or {}).items():
            other = f"{module}_{other_name}"
            (plugin_dir / f"{other}.py").write_text(body, encoding="utf-8")
            entry_points[other_name] = other
        modules.extend(entry_points.values())
        dist_info = plugin_dir / f"{module}-1.2.3.dist-info"
        dist_info.mkdir()
        (dist_info / "METADATA").write_text(
            "Metadata-Version: 2.1\nName: toolplug-cli-test\nVersion: 1.2.3\n", encoding="utf-8"
        )
        (dist_info / "entry_points.txt").write_text(
            "[toolplug]\n" + "".join(f"{n} = {m}\n" for n, m in entry_points.items()), encoding="utf-8"
        )
        monkeypatch.syspath_prepend(str(plugin_dir))
        config_file = tmp_path / "toolplug.toml"
        base = BASE_CONFIG.replace("{builtins}", json.dumps(builtin_plugins()))
        config_file.write_text(base + config, encoding="utf-8")
        return Installed(config_file, module, plugin_dir)

    yield install
    for module in modules:
        sys.modules.pop(module, None)


def json_of(result: Result) -> Any:
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return json.loads(result.stdout)


def settings_file() -> Path:
    return Path(os.environ["TOOLPLUG_SETTINGS_DIR"]) / "settings.json"


# --- plugins --------------------------------------------------------------------------------------------


def test_plugins_json_lists_each_plugin_with_its_origin_hooks_and_status(install: Install) -> None:
    # REQ: PLG-6, UX-1
    result = install().invoke("plugins", "--json")
    assert result.exit_code == 0, result.output
    assert json_of(result) == [
        {
            "name": "testplug",
            "distribution": "toolplug-cli-test",
            "version": "1.2.3",
            "hooks": ["register_option_sources", "register_tools"],
            "status": "loaded",
            "reason": "",
        }
    ]


def test_plugins_all_includes_the_builtins(install: Install) -> None:
    # REQ: PLG-6 — the built-ins are listed like any plugin (here denied by this config, so not imported).
    installed = install()
    builtins = builtin_plugins()
    assert {"web", "mcp"} <= set(builtins)  # REQ: PLG-1 — registered through toolplug's own entry points
    shown = {p["name"]: p for p in json_of(installed.invoke("plugins", "--all", "--json"))}
    assert set(shown) == {*builtins, "testplug"}
    for builtin in builtins:
        assert shown[builtin]["distribution"] == "toolplug"
        assert shown[builtin]["status"] == "denied"
        assert "denied" in shown[builtin]["reason"]
    without_all = {p["name"] for p in json_of(installed.invoke("plugins", "--json"))}
    assert without_all == {"testplug"}


def test_a_plugin_that_fails_to_import_is_listed_as_failed_and_the_rest_go_on(install: Install) -> None:
    # REQ: PLG-6, PLG-3
    installed = install(plugins={"broken": "raise ImportError('needs libfoo 2.0')\n"})
    result = installed.invoke("plugins", "--json")
    assert result.exit_code == 0
    shown = {p["name"]: p for p in json_of(result)}
    assert shown["broken"]["status"] == "failed"
    assert "needs libfoo 2.0" in shown["broken"]["reason"]
    assert shown["testplug"]["status"] == "loaded"
    tools = {t["id"] for t in json_of(installed.invoke("tools", "--json"))}
    assert "echo" in tools


def test_plugins_human_output_names_status_and_reason(install: Install) -> None:
    # REQ: PLG-6
    installed = install(plugins={"broken": "raise ImportError('needs libfoo 2.0')\n"})
    result = installed.invoke("plugins")
    assert result.exit_code == 0
    assert "testplug" in result.stdout and "loaded" in result.stdout and "1.2.3" in result.stdout
    assert "broken" in result.stdout and "failed" in result.stdout and "needs libfoo 2.0" in result.stdout


# --- tools ----------------------------------------------------------------------------------------------


def test_tools_json_lists_every_tool_with_status_and_reasons(install: Install) -> None:
    # REQ: UX-1, SEL-7
    result = install().invoke("tools", "--json")
    assert result.exit_code == 0, result.output
    listed = json_of(result)
    assert all(set(entry) >= {"id", "plugin", "status", "reasons"} for entry in listed)
    by_id = {entry["id"]: entry for entry in listed}
    assert set(by_id) == {"echo", "add", "refuse", "explode", "vault", "weather"}
    echo = by_id["echo"]
    assert {k: echo[k] for k in ("id", "plugin", "status", "reasons", "deferred")} == {
        "id": "echo", "plugin": "testplug", "status": "runnable", "reasons": [], "deferred": False
    }
    weather = by_id["weather"]
    assert weather["status"] == "excluded"
    assert any("language" in reason for reason in weather["reasons"])
    assert any("api_key" in reason for reason in weather["reasons"])
    assert by_id["vault"]["status"] == "runnable"  # no provider: a person, confidence not checked


def test_tools_for_a_provider_apply_its_confidence(install: Install) -> None:
    # REQ: UX-1, SEL-5
    installed = install()
    cloud = {t["id"]: t for t in json_of(installed.invoke("tools", "--provider", "cloud", "--json"))}
    assert cloud["vault"]["status"] == "excluded"
    assert any("high" in reason for reason in cloud["vault"]["reasons"])
    assert cloud["echo"]["status"] == "runnable"
    local = {t["id"]: t for t in json_of(installed.invoke("tools", "--provider", "local", "--json"))}
    assert local["vault"]["status"] == "runnable"


def test_tools_for_a_component_apply_the_admins_plugin_policy(install: Install) -> None:
    # REQ: UX-1, SEL-6
    installed = install(config='[plugins.components.legal_check]\ndeny = ["testplug"]\n')
    legal = json_of(installed.invoke("tools", "--component", "legal_check", "--json"))
    assert legal and all(t["status"] == "excluded" for t in legal)
    assert all(any("denied" in r and "legal_check" in r for r in t["reasons"]) for t in legal)
    chat = {t["id"]: t["status"] for t in json_of(installed.invoke("tools", "--json"))}
    assert chat["echo"] == "runnable"


def test_tools_lists_invalid_definitions_with_what_is_wrong(install: Install) -> None:
    # REQ: UX-1
    bad = '[function_tool("Bad-Name", "Bad.", NO_ARGS, lambda arguments: "x")]'
    listed = {t["id"]: t for t in json_of(install(bad).invoke("tools", "--json"))}
    assert listed["Bad-Name"]["status"] == "invalid"
    assert listed["Bad-Name"]["reasons"]


def test_tools_human_output_shows_reasons(install: Install) -> None:
    # REQ: UX-1
    result = install().invoke("tools", "--provider", "cloud")
    assert result.exit_code == 0
    assert "weather" in result.stdout and "excluded" in result.stdout and "language" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--component", "ledger"], "ledger"), (["--provider", "nowhere"], "nowhere")],
)
def test_tools_with_an_unknown_component_or_provider_is_bad_usage(
    install: Install, args: list[str], words: str
) -> None:
    # REQ: UX-1
    result = install().invoke("tools", *args, "--json")
    assert result.exit_code == 2
    assert words in result.stderr
    assert "Traceback" not in result.output


# --- check ----------------------------------------------------------------------------------------------


def test_check_exits_0_when_every_definition_is_valid(install: Install) -> None:
    # REQ: UX-1
    installed = install()
    result = installed.invoke("check", "--json")
    assert result.exit_code == 0, result.output
    assert json_of(result) == []
    assert installed.invoke("check").exit_code == 0


def test_check_exits_1_with_each_diagnostic(install: Install) -> None:
    # REQ: UX-1, DEF-4
    bad = (
        '[function_tool("Bad-Name", "Bad.", NO_ARGS, lambda arguments: "x"),'
        ' function_tool("no_root", "No object root.", {"type": "string"}, lambda arguments: "x")]'
    )
    installed = install(bad)
    result = installed.invoke("check", "--json")
    assert result.exit_code == 1
    findings = json_of(result)
    assert all(set(f) == {"tool_id", "plugin", "field", "message"} for f in findings)
    assert {(f["tool_id"], f["plugin"], f["field"]) for f in findings} >= {
        ("Bad-Name", "testplug", "id"),
        ("no_root", "testplug", "function.parameters"),
    }
    human = installed.invoke("check")
    assert human.exit_code == 1
    assert "Bad-Name" in human.stdout and "no_root" in human.stdout


def test_check_strict_report_shows_per_provider_which_tools_go_strict_and_what_they_lose(install: Install) -> None:
    # REQ: UX-1, DEF-7
    extra = (
        '[function_tool("tally", "Count.", {"type": "object", "properties": {"counts": {"type": "object",'
        ' "additionalProperties": {"type": "integer"}}}}, lambda arguments: "x", strict=True),'
        ' function_tool("pick", "Pick.", {"type": "object", "properties": {"when": {"type": "string",'
        ' "format": "uri"}}}, lambda arguments: "x", strict=True)]'
    )
    installed = install(extra)
    result = installed.invoke("check", "--json", "--strict-report")
    assert result.exit_code == 0, result.output
    shown = json_of(result)
    assert shown["findings"] == []
    by_provider = {entry["provider"]: entry for entry in shown["strict_report"]}
    assert set(by_provider) == {"cloud", "local"}
    tools = {entry["tool_id"]: entry for entry in by_provider["cloud"]["tools"]}
    assert tools["tally"]["strict"] is False and "open map" in tools["tally"]["unconvertible"][0]
    assert tools["pick"]["strict"] is True
    assert any("format 'uri' dropped" in change for change in tools["pick"]["changes"])
    assert tools["echo"] == {"tool_id": "echo", "strict_requested": False, "strict": False, "changes": [],
                             "unconvertible": []}
    human = installed.invoke("check", "--strict-report").stdout
    assert "Strict mode per provider:" in human
    assert "tally: sent without strict mode: counts: an open map" in human
    assert "pick: strict" in human and "format 'uri' dropped" in human
    assert json_of(installed.invoke("check", "--json")) == []  # without the flag, the findings list as before


def test_check_reports_a_failed_plugin(install: Install) -> None:
    # REQ: UX-1, PLG-3
    result = install(plugins={"broken": "raise ImportError('needs libfoo 2.0')\n"}).invoke("check", "--json")
    assert result.exit_code == 1
    findings = json_of(result)
    assert any(f["plugin"] == "broken" and "libfoo" in f["message"] for f in findings)


# --- call -----------------------------------------------------------------------------------------------

CALL_KEYS = {
    "status", "output_type", "text", "json", "content", "display_content", "sources",
    "required_provider_confidence", "trace",
}


def test_call_prints_the_result_and_exits_0(install: Install) -> None:
    # REQ: UX-1, EXE-3
    installed = install()
    result = installed.invoke("call", "echo", "--args", '{"text": "hi ", "times": 2}', "--json")
    assert result.exit_code == 0, result.output
    payload = json_of(result)
    assert set(payload) == CALL_KEYS
    assert payload["status"] == "ok"
    assert payload["output_type"] == "text"
    assert payload["text"] == "hi hi "
    assert payload["json"] is None
    assert payload["sources"] == [{"url": "https://example.org/echo", "title": "Echo page"}]
    assert payload["required_provider_confidence"] == "medium"
    trace = payload["trace"]
    assert trace["tool_id"] == "echo" and trace["status"] == "ok" and trace["plugin"] == "testplug"
    assert trace["arguments"] == {"text": "hi ", "times": 2}
    assert installed.calls() == [("echo", {"text": "hi ", "times": 2})]


def test_call_prints_json_output(install: Install) -> None:
    # REQ: UX-1, EXE-3
    payload = json_of(install().invoke("call", "add", "--args", '{"a": 2, "b": 40}', "--json"))
    assert payload["status"] == "ok"
    assert payload["output_type"] == "json"
    assert payload["json"] == {"sum": 42}
    assert payload["required_provider_confidence"] is None


def test_call_without_json_prints_the_text_and_the_sources(install: Install) -> None:
    # REQ: UX-1
    result = install().invoke("call", "echo", "--args", '{"text": "hello"}')
    assert result.exit_code == 0
    assert "hello" in result.stdout
    assert "Sources used by tools" in result.stdout and "https://example.org/echo" in result.stdout


def test_call_of_a_failing_tool_exits_1_with_an_error_result(install: Install) -> None:
    # REQ: UX-1, EXE-1
    result = install().invoke("call", "explode", "--json")
    assert result.exit_code == 1
    payload = json_of(result)
    assert payload["status"] == "error"
    assert payload["output_type"] == "error-text"
    assert payload["text"].startswith("Tool execution failed: ")
    assert "kaboom in the tool" in payload["text"]
    assert payload["trace"]["status"] == "error"


def test_call_of_a_refusing_tool_exits_1_with_the_block_message(install: Install) -> None:
    # REQ: UX-1, EXE-1
    result = install().invoke("call", "refuse", "--json")
    assert result.exit_code == 1
    payload = json_of(result)
    assert payload["status"] == "blocked"
    assert payload["text"] == "Refused: the admin blocks this target."
    assert payload["trace"]["status"] == "blocked"
    human = install().invoke("call", "refuse")
    assert human.exit_code == 1 and "Refused: the admin blocks this target." in human.stdout


def test_call_of_an_unknown_tool_is_bad_usage_naming_the_tools_that_exist(install: Install) -> None:
    # REQ: UX-1
    result = install().invoke("call", "ecko", "--json")
    assert result.exit_code == 2
    assert "ecko" in result.stderr and "echo" in result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(("raw", "words"), [("{text: hi}", "not JSON"), ('["hi"]', "JSON object")])
def test_call_with_arguments_that_are_not_a_json_object_is_bad_usage(install: Install, raw: str, words: str) -> None:
    # REQ: UX-1
    installed = install()
    result = installed.invoke("call", "echo", "--args", raw)
    assert result.exit_code == 2
    assert words in result.stderr
    assert installed.calls() == []


@pytest.mark.parametrize(
    ("raw", "words"),
    [('{"text": 5}', "text"), ("{}", "text"), ('{"text": "x", "times": 0}', "times"), ('{"text": "x", "y": 1}', "y")],
)
def test_call_with_arguments_the_schema_rejects_is_bad_usage_and_nothing_runs(
    install: Install, raw: str, words: str
) -> None:
    # REQ: UX-1, EXE-4 — the schema error in words, and the tool never runs.
    installed = install()
    result = installed.invoke("call", "echo", "--args", raw, "--json")
    assert result.exit_code == 2
    assert "schema" in result.stderr and words in result.stderr
    assert result.stdout == ""
    assert installed.calls() == []


@pytest.mark.parametrize(
    ("args", "words"), [(["--component", "ledger"], "ledger"), (["--provider", "nowhere"], "nowhere")]
)
def test_call_in_an_unknown_component_or_for_an_unknown_provider_is_bad_usage(
    install: Install, args: list[str], words: str
) -> None:
    # REQ: UX-1
    installed = install()
    result = installed.invoke("call", "echo", "--args", '{"text": "x"}', *args, "--json")
    assert result.exit_code == 2
    assert words in result.stderr
    assert installed.calls() == []


def test_call_of_a_tool_the_selector_leaves_out_exits_1_with_the_reasons(install: Install) -> None:
    # REQ: UX-1, SEL-4, SEL-5
    installed = install()
    unconfigured = installed.invoke("call", "weather", "--json")
    assert unconfigured.exit_code == 1
    assert "language" in unconfigured.stderr
    low = installed.invoke("call", "vault", "--provider", "cloud")
    assert low.exit_code == 1
    assert "high" in low.stderr
    high = installed.invoke("call", "vault", "--provider", "local", "--json")
    assert high.exit_code == 0 and json_of(high)["text"] == "vault opened"


# --- settings -------------------------------------------------------------------------------------------


def settings_rows(installed: Installed, *field: str) -> dict[str, dict[str, Any]]:
    result = installed.invoke("settings", "get", "weather", *field, "--json")
    assert result.exit_code == 0, result.output
    return {row["field"]: row for row in json_of(result)}


def test_settings_set_get_and_unset(install: Install) -> None:
    # REQ: UX-1, SET-1, SET-3
    installed = install()
    assert installed.invoke("settings", "set", "weather", "language", "de").exit_code == 0
    assert installed.invoke("settings", "set", "weather", "limit", "7").exit_code == 0
    rows = settings_rows(installed)
    assert rows["language"] == {"field": "language", "value": "de", "origin": "user"}
    assert rows["limit"] == {"field": "limit", "value": 7, "origin": "user"}  # an integer, not "7"
    assert json.loads(settings_file().read_text(encoding="utf-8")) == {"weather": {"language": "de", "limit": 7}}
    assert installed.invoke("settings", "unset", "weather", "limit").exit_code == 0
    assert settings_rows(installed, "limit") == {"limit": {"field": "limit", "value": 3, "origin": "default"}}
    human = installed.invoke("settings", "get", "weather", "language")
    assert "weather.language" in human.stdout and "de" in human.stdout and "user" in human.stdout


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("limit", "seven", "integer"),
        ("limit", "2.5", "integer"),
        ("language", "fr", "languages"),
        ("colour", "red", "has no setting"),
        ("api_key", SENTINEL, "secret"),
    ],
)
def test_settings_set_refuses_a_bad_value_as_bad_usage(install: Install, field: str, value: str, words: str) -> None:
    # REQ: UX-1, SET-2
    result = install().invoke("settings", "set", "weather", field, value)
    assert result.exit_code == 2
    assert words in result.stderr
    assert not settings_file().exists()
    assert SENTINEL not in result.output


def test_settings_honour_the_admins_locked_and_default_values(install: Install) -> None:
    # REQ: SET-3
    installed = install(config='[tools.weather]\nlocked = { region = "Alps" }\ndefaults = { language = "en" }\n')
    rows = settings_rows(installed)
    assert rows["region"] == {"field": "region", "value": "Alps", "origin": "locked"}
    assert rows["language"] == {"field": "language", "value": "en", "origin": "default"}
    refused = installed.invoke("settings", "set", "weather", "region", "Andes")
    assert refused.exit_code == 2 and "locked" in refused.stderr
    assert installed.invoke("settings", "set", "weather", "language", "de").exit_code == 0
    assert settings_rows(installed, "language")["language"]["origin"] == "user"


def test_settings_secret_reads_stdin_stores_in_the_keyring_and_never_prints_it(
    install: Install, memory_keyring: MemoryKeyring
) -> None:
    # REQ: UX-1, SET-1, EXE-2
    installed = install()
    stored = installed.invoke("settings", "secret", "weather", "api_key", input=SENTINEL + "\n")
    assert stored.exit_code == 0, stored.output
    assert SENTINEL not in stored.output
    assert memory_keyring.secrets == {("toolplug", "weather.api_key"): SENTINEL}
    assert not settings_file().exists() or SENTINEL not in settings_file().read_text(encoding="utf-8")

    shown = installed.invoke("settings", "get", "weather", "--json")
    assert SENTINEL not in shown.output
    assert {r["field"]: r for r in json_of(shown)}["api_key"]["origin"] == "keyring"
    assert SENTINEL not in installed.invoke("settings", "get", "weather").output

    # The tool receives the secret, and nothing the call prints contains it.
    assert installed.invoke("settings", "set", "weather", "language", "en").exit_code == 0
    called = installed.invoke("call", "weather", "--json")
    assert called.exit_code == 0, called.output
    assert f"key-length={len(SENTINEL)}" in json_of(called)["text"]
    assert SENTINEL not in called.output

    assert installed.invoke("settings", "unset", "weather", "api_key").exit_code == 0
    assert memory_keyring.secrets == {}


def test_a_secret_is_never_taken_from_the_command_line(install: Install, memory_keyring: MemoryKeyring) -> None:
    # REQ: UX-1 — argv ends up in shell history and process lists.
    result = install().invoke("settings", "secret", "weather", "api_key", SENTINEL)
    assert result.exit_code == 2
    assert memory_keyring.secrets == {}


def test_settings_secret_for_a_plain_field_is_refused(install: Install, memory_keyring: MemoryKeyring) -> None:
    # REQ: SET-1
    result = install().invoke("settings", "secret", "weather", "language", input="en\n")
    assert result.exit_code == 2
    assert "not a secret" in result.stderr
    assert memory_keyring.secrets == {}


def test_settings_secret_without_a_keyring_says_what_to_install(install: Install) -> None:
    # REQ: SET-1
    keyring.set_keyring(fail.Keyring())
    result = install().invoke("settings", "secret", "weather", "api_key", input=SENTINEL + "\n")
    assert result.exit_code == 2
    assert "pip install" in result.stderr
    assert SENTINEL not in result.output
    assert "Traceback" not in result.output


def test_settings_of_an_unknown_tool_is_bad_usage(install: Install) -> None:
    # REQ: UX-1
    result = install().invoke("settings", "get", "nothing")
    assert result.exit_code == 2
    assert "nothing" in result.stderr


def test_settings_docs_documents_every_setting(install: Install) -> None:
    # REQ: SET-4, UX-1
    installed = install()
    result = installed.invoke("settings", "docs")
    assert result.exit_code == 0
    for key in ("weather.language", "weather.limit", "weather.region", "weather.api_key"):
        assert key in result.stdout
    assert "The language of the forecast." in result.stdout
    rows = {row["key"]: row for row in json_of(installed.invoke("settings", "docs", "--json"))}
    assert set(rows) == {"weather.language", "weather.limit", "weather.region", "weather.api_key"}
    assert rows["weather.limit"]["type"] == "integer"
    assert rows["weather.language"]["required"] is True
    assert rows["weather.language"]["choices"] == ["en", "de"]


# --- config and the real script -------------------------------------------------------------------------


def test_the_config_comes_from_toolplug_config_too(install: Install, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: UX-1
    installed = install(config='[plugins.components.chat]\ndeny = ["testplug"]\n')
    monkeypatch.setenv("TOOLPLUG_CONFIG", str(installed.config))
    result = CliRunner().invoke(cli, ["tools", "--json"])
    assert result.exit_code == 0
    assert all(t["status"] == "excluded" for t in json_of(result))


@pytest.mark.parametrize(("content", "words"), [(None, "does not exist"), ("[host\n", "not valid TOML")])
def test_a_bad_config_file_is_bad_usage_naming_the_file(tmp_path: Path, content: str | None, words: str) -> None:
    # REQ: UX-1
    path = tmp_path / "broken.toml"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(path), "tools"])
    assert result.exit_code == 2
    assert str(path) in result.stderr and words in result.stderr
    assert "Traceback" not in result.output


def test_a_plugin_can_add_a_command(install: Install) -> None:
    # REQ: UX-1, PLG-2 (register_commands)
    body = (
        "import click\nfrom toolplug import hookimpl\n\n"
        "@hookimpl\ndef register_commands(cli):\n"
        "    @cli.command()\n    def hello():\n        click.echo('hello from a plugin')\n"
    )
    result = install(plugins={"greeter": body}).invoke("hello")
    assert result.exit_code == 0, result.output
    assert "hello from a plugin" in result.stdout


def test_the_installed_toolplug_script_runs_a_tool(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1 — the real console script in a fresh process, finding the plugin through its dist-info.
    installed = install()
    script = Path(sys.executable).with_name("toolplug")
    assert script.exists(), f"the console script is not installed next to {sys.executable}"
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "PYTHONPATH": str(installed.plugin_dir),
        "TOOLPLUG_CONFIG": str(installed.config),
        "TOOLPLUG_SETTINGS_DIR": str(tmp_path / "settings"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    done = subprocess.run(
        [str(script), "call", "echo", "--args", '{"text": "from a process"}', "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert set(payload) == CALL_KEYS
    assert payload["text"] == "from a process"
    bad = subprocess.run(
        [str(script), "call", "echo", "--args", "{nope"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert bad.returncode == 2
    assert "not JSON" in bad.stderr


def test_call_json_of_a_tool_the_selector_leaves_out_keeps_the_documented_shape(install: Install) -> None:
    # REQ: UX-1, SEL-7
    result = install().invoke("call", "weather", "--json")
    assert result.exit_code == 1
    payload = json_of(result)
    assert payload["status"] == "blocked" and "language" in payload["text"]
    assert set(payload) >= {"status", "output_type", "text", "json", "sources", "required_provider_confidence", "trace"}


def test_check_reports_admin_values_that_cannot_apply(install: Install) -> None:
    # REQ: SET-3, UX-1
    installed = install(config='[tools.weather]\nlocked = { nosuch = 1 }\n[tools.ghost]\ndefaults = { a = 1 }\n')
    result = installed.invoke("check", "--json")
    assert result.exit_code == 1
    findings = {(f["tool_id"], f["field"]): f["message"] for f in json_of(result)}
    assert "no such setting" in findings[("weather", "locked.nosuch")]
    assert "no such tool" in findings[("ghost", "tools")]
    assert str(installed.config) in findings[("ghost", "tools")]
