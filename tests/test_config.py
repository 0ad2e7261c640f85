"""The host config in TOML: every documented key, errors naming the key and the file, defaults."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from toolplug.config import HostConfig, load_config, parse_config
from toolplug.definitions import ConfidenceLevel
from toolplug.errors import ConfigError, UsageError

# The example of the host-core issue, verbatim: the shape admins copy.
ISSUE_EXAMPLE = """
[host]
components = ["chat", "assistants", "legal_check"]   # the host's own; "chat" is the CLI's default
[plugins]
deny = ["some-plugin"]                               # never imported
[plugins.components.legal_check]
allow = ["web"]                                      # entry-point names
deny = ["acme"]
[tools.web_search]
locked = { language = "en" }
defaults = { result_limit = 5 }
[providers.local]
api = "openai-chat"
base_url = "http://127.0.0.1:11434/v1"
model = "qwen3"
confidence = "high"
api_key_env = "LOCAL_API_KEY"
trusted = true
"""

MINIMAL_PROVIDER = '[providers.p]\napi = "openai-chat"\nmodel = "m"\n'


def write(tmp_path: Path, text: str | bytes, name: str = "toolplug.toml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --- defaults ----------------------------------------------------------------------------------


def test_without_a_file_the_builtin_defaults_apply() -> None:
    # REQ: PLG-5 (a host builds from one call; no file means defaults, not an error)
    config = load_config()
    assert isinstance(config, HostConfig)
    assert "chat" in config.host.components
    assert config.plugins.deny == ()
    assert config.plugins.components == {}
    assert config.tools == {} and config.providers == {}
    assert config.locked_settings() == {} and config.default_settings() == {}
    assert config.limits.max_tool_calls >= 1 and config.limits.max_tool_result_characters >= 1
    assert config.source is None


def test_an_empty_file_means_the_defaults(tmp_path: Path) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    config = load_config(write(tmp_path, ""))
    assert config.host.components == HostConfig().host.components
    assert config.source == str(tmp_path / "toolplug.toml")


# --- every documented key -------------------------------------------------------------------------


def test_the_issue_example_reads_into_every_documented_key(tmp_path: Path) -> None:
    # REQ: PLG-4 (plugin policy), SET-3 (locked and defaults by <toolId>.<fieldName>), SEL-5 (trusted)
    config = load_config(write(tmp_path, ISSUE_EXAMPLE))
    assert config.host.components == ("chat", "assistants", "legal_check")
    assert config.plugins.deny == ("some-plugin",)
    policy = config.plugins.components["legal_check"]
    assert policy.allow == ("web",)
    assert policy.deny == ("acme",)
    assert config.locked_settings() == {"web_search": {"language": "en"}}
    assert config.default_settings() == {"web_search": {"result_limit": 5}}
    local = config.providers["local"]
    assert local.api == "openai-chat"
    assert local.base_url == "http://127.0.0.1:11434/v1"
    assert local.model == "qwen3"
    assert local.confidence is ConfidenceLevel.HIGH
    assert local.api_key_env == "LOCAL_API_KEY"
    assert local.trusted is True
    assert config.is_trusted("local")
    assert not config.is_trusted("elsewhere")
    assert not config.is_trusted(None)


def test_the_further_keys_read_as_documented(tmp_path: Path) -> None:
    text = """
trusted_provider_ids = ["cloud"]
[host]
components = ["chat", "review"]
default_tools = ["echo"]
[plugins.components.review]
deny = ["acme"]
[providers.cloud]
api = "anthropic"
model = "claude"
confidence = "very low"
supports_tools = false
timeout = 30
max_retries = 5
extra = { temperature = 0.2 }
[providers.plain]
api = "openai-responses"
model = "gpt"
[limits]
max_tool_calls = 3
max_tool_result_characters = 1000
max_steps = 4
[mcp.servers.files]
command = "files-server"
[plugin_settings.acme]
anything = [1, 2]
"""
    config = load_config(write(tmp_path, text))
    assert config.host.default_tools == ("echo",)
    assert config.plugins.components["review"].allow is None  # no allow list: every plugin
    cloud = config.providers["cloud"]
    assert cloud.confidence is ConfidenceLevel.VERY_LOW
    assert cloud.supports_tools is False
    assert cloud.timeout == 30
    assert cloud.max_retries == 5
    assert cloud.extra == {"temperature": 0.2}
    # REQ: SEL-5 — trusted through the list as well as through `trusted = true`
    assert config.is_trusted("cloud")
    plain = config.providers["plain"]
    assert not config.is_trusted("plain")
    assert plain.confidence is ConfidenceLevel.UNKNOWN  # an unrated provider is trusted with nothing
    assert plain.supports_tools is True
    assert (config.limits.max_tool_calls, config.limits.max_tool_result_characters, config.limits.max_steps) == (
        3,
        1000,
        4,
    )
    assert config.mcp == {"servers": {"files": {"command": "files-server"}}}
    assert config.plugin_settings == {"acme": {"anything": [1, 2]}}


@pytest.mark.parametrize(
    ("written", "level"),
    [
        ("unknown", ConfidenceLevel.UNKNOWN),
        ("untrusted", ConfidenceLevel.UNTRUSTED),
        ("very_low", ConfidenceLevel.VERY_LOW),
        ("very low", ConfidenceLevel.VERY_LOW),
        ("low", ConfidenceLevel.LOW),
        ("moderate", ConfidenceLevel.MODERATE),
        ("medium", ConfidenceLevel.MEDIUM),
        ("High", ConfidenceLevel.HIGH),
    ],
)
def test_every_confidence_level_can_be_written_by_name(tmp_path: Path, written: str, level: ConfidenceLevel) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    config = load_config(write(tmp_path, f'{MINIMAL_PROVIDER}confidence = "{written}"\n'))
    assert config.providers["p"].confidence is level


# --- errors name the key and the file -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("colour = 1\n", "colour"),
        ("[host]\ncolour = 1\n", "host.colour"),
        ("[plugins]\nallow = ['x']\n", "plugins.allow"),
        ("[plugins.components.chat]\npermit = ['x']\n", "plugins.components.chat.permit"),
        ("[tools.web_search]\nlockd = { language = 'en' }\n", "tools.web_search.lockd"),
        (MINIMAL_PROVIDER + "modle = 'x'\n", "providers.p.modle"),
        ("[limits]\nmax_calls = 3\n", "limits.max_calls"),
    ],
)
def test_an_unknown_key_is_an_error_naming_the_key_and_the_file(tmp_path: Path, text: str, key: str) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message
    assert key in message
    assert "unknown key" in message
    assert caught.value.key == key
    assert caught.value.path == str(path)


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        (MINIMAL_PROVIDER + "confidence = 'sky-high'\n", "providers.p.confidence", "sky-high"),
        (MINIMAL_PROVIDER + "timeout = 0\n", "providers.p.timeout", "greater than 0"),
        (MINIMAL_PROVIDER + "trusted = [1]\n", "providers.p.trusted", "bool"),
        ("[providers.p]\napi = 'openai-chat'\n", "providers.p.model", "required"),
        ("[limits]\nmax_tool_calls = 0\n", "limits.max_tool_calls", "greater than or equal to 1"),
        ("[limits]\nmax_steps = 'many'\n", "limits.max_steps", "integer"),
        ("[host]\ncomponents = []\n", "host.components", "at least one component"),
        ("[host]\ncomponents = ['chat', 'chat']\n", "host.components", "unique"),
        ("[host]\ncomponents = 'chat'\n", "host.components", "tuple"),
        ("[plugins]\ndeny = 'acme'\n", "plugins.deny", "tuple"),
        ("[tools.web_search]\nlocked = 'en'\n", "tools.web_search.locked", "dictionary"),
    ],
)
def test_a_bad_value_is_an_error_naming_the_key_and_the_file(tmp_path: Path, text: str, key: str, words: str) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message
    assert key in message
    assert words.lower() in message.lower()
    assert caught.value.key == key


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ("[plugins.components.legal_check]\ndeny = ['acme']\n", "plugins.components.legal_check", "unknown component"),
        ("trusted_provider_ids = ['ghost']\n", "trusted_provider_ids", "ghost"),
    ],
)
def test_a_reference_to_something_undeclared_names_the_key_and_the_file(
    tmp_path: Path, text: str, key: str, words: str
) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert str(path) in message
    assert words in message
    assert caught.value.key == key
    assert message.startswith(f"{path}: {key}: ")


def test_every_problem_is_counted_when_there_are_several(tmp_path: Path) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, "[host]\ncolour = 1\n[limits]\nmax_steps = 0\n")
    with pytest.raises(ConfigError, match=r"and 1 more problem"):
        load_config(path)


def test_a_config_error_is_a_usage_error() -> None:
    # The CLI turns usage errors into exit code 2 and a message instead of a traceback.
    # REQ: PLG-5 (the host config of issue 2)
    with pytest.raises(UsageError):
        parse_config({"nonsense": True}, source="inline")


def test_parse_config_names_its_source() -> None:
    # REQ: PLG-5 (the host config of issue 2)
    with pytest.raises(ConfigError, match=r"^app defaults: host\.colour: unknown key"):
        parse_config({"host": {"colour": 1}}, source="app defaults")


# --- the file itself ----------------------------------------------------------------------------


def test_a_missing_file_is_an_error_naming_the_file(tmp_path: Path) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    missing = tmp_path / "nowhere.toml"
    with pytest.raises(ConfigError) as caught:
        load_config(missing)
    assert str(missing) in str(caught.value)
    assert "does not exist" in str(caught.value)
    assert caught.value.path == str(missing)


def test_invalid_toml_is_an_error_naming_the_file_and_the_line(tmp_path: Path) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, "[host]\ncomponents = chat\n[limits]\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(path) in str(caught.value)
    assert "TOML" in str(caught.value)
    assert "line 2" in str(caught.value)
    assert isinstance(caught.value.__cause__, tomllib.TOMLDecodeError)


def test_a_file_that_is_not_utf8_is_a_config_error_not_a_crash(tmp_path: Path) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, b'[host]\ncomponents = ["ch\xe4t"]\n')
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(path) in str(caught.value)


def test_a_folder_instead_of_a_file_is_a_config_error(tmp_path: Path) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    assert str(tmp_path) in str(caught.value)


# --- TOOLPLUG_CONFIG --------------------------------------------------------------------------


def test_toolplug_config_names_the_file_when_no_path_is_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    path = write(tmp_path, ISSUE_EXAMPLE)
    monkeypatch.setenv("TOOLPLUG_CONFIG", str(path))
    config = load_config()
    assert config.source == str(path)
    assert "legal_check" in config.host.components


def test_an_explicit_path_wins_over_toolplug_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    monkeypatch.setenv("TOOLPLUG_CONFIG", str(write(tmp_path, ISSUE_EXAMPLE, "env.toml")))
    explicit = write(tmp_path, "[host]\ncomponents = ['chat', 'mine']\n", "explicit.toml")
    assert load_config(explicit).host.components == ("chat", "mine")


def test_toolplug_config_pointing_nowhere_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    monkeypatch.setenv("TOOLPLUG_CONFIG", str(tmp_path / "gone.toml"))
    with pytest.raises(ConfigError, match=r"gone\.toml"):
        load_config()


def test_an_empty_toolplug_config_means_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-5 (the host config of issue 2)
    monkeypatch.setenv("TOOLPLUG_CONFIG", "")
    assert load_config().source is None


def test_the_host_reads_toolplug_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: PLG-5 — Host.from_config() without a path uses the same file as the CLI would.
    from toolplug.host import Host

    monkeypatch.setenv("TOOLPLUG_CONFIG", str(write(tmp_path, ISSUE_EXAMPLE)))
    host = Host.from_config(load_entry_points=False)
    assert host.config.host.components == ("chat", "assistants", "legal_check")
    assert host.settings.locked == {"web_search": {"language": "en"}}
    assert host.settings.defaults == {"web_search": {"result_limit": 5}}
