"""Server profiles against a local server playing each compatible dialect's quirks (WIRE-6), and tool
choice from the CLI, the config and ``Host.run_chat``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from _compat_server import DIALECTS, CompatDialect
from _provider_server import Reply, chat_completion, provider_server
from click.testing import CliRunner

from toolplug import hookimpl
from toolplug.cli import cli
from toolplug.config import load_config, parse_config
from toolplug.errors import ConfigError, UsageError
from toolplug.host import Host
from toolplug.providers.profiles import PROFILES, guess_server, server_profile
from toolplug.tools import function_tool

KEY = "sk-dialect-key-0001"
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


class FindPlugin:
    @hookimpl
    def register_tools(self) -> list[Any]:
        return [function_tool("find", "Find pages.", SCHEMA, lambda args: f"pages about {args['q']}")]


def host_for(url: str, tmp_path: Path, **provider: Any) -> Host:
    section = {"api": "openai-chat", "model": "local-model", "base_url": url, "api_key_env": "DIALECT_KEY"}
    section.update(provider)
    config = parse_config({"providers": {"local": section}})
    return Host(config, plugins=[FindPlugin()], load_entry_points=False, settings_dir=tmp_path)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIALECT_KEY", KEY)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
@pytest.mark.parametrize("server_name", ["llama.cpp", "ollama", "vllm", "lmstudio", "generic"])
def test_each_profile_finishes_a_tool_round_trip_against_its_dialect(
    server_name: str, stream: bool, tmp_path: Path
) -> None:
    # REQ: WIRE-6
    dialect = DIALECTS[server_name]
    with provider_server() as server:
        server.reply(dialect, dialect)
        host = host_for(server.url, tmp_path, server=server_name, max_output_tokens=8)
        result = asyncio.run(host.run_chat("What is fado?", stream=stream))
    assert result.stop_reason == "answered"
    # the server honoured the output-token limit: it reads only the field the profile sends
    assert result.text == " ".join(["word"] * 8)
    first, second = server.bodies()
    assert first[dialect.reads] == 8 and "max_completion_tokens" not in first
    turn = next(m for m in second["messages"] if m.get("tool_calls"))
    assert turn["content"] == ""  # null would be a 500 here
    assert [t.tool_id for t in result.traces] == ["find"]
    if server_name == "ollama":
        assert "tool_choice" not in first and "parallel_tool_calls" not in first
    else:
        assert first["tool_choice"] == "auto"


def test_the_official_profile_speaks_openais_own_dialect(tmp_path: Path) -> None:
    # REQ: WIRE-6
    official = CompatDialect("official", null_content_500=False, reads="max_completion_tokens")
    with provider_server() as server:
        server.reply(official, official)
        host = host_for(server.url, tmp_path, server="official", max_output_tokens=3)
        result = asyncio.run(host.run_chat("What is fado?"))
    assert result.text == "word word word"
    first, second = server.bodies()
    assert first["max_completion_tokens"] == 3 and "max_tokens" not in first
    assert first["parallel_tool_calls"] is False
    assert next(m for m in second["messages"] if m.get("tool_calls"))["content"] is None


def test_null_content_really_fails_on_a_compatible_server(tmp_path: Path) -> None:
    # REQ: WIRE-6
    # The quirk the profile exists for: with OpenAI's null content the second round is a 500.
    dialect = DIALECTS["llama.cpp"]
    with provider_server() as server:
        server.reply(dialect, dialect)
        host = host_for(server.url, tmp_path, server="llama.cpp", tool_call_content="null", max_retries=0)
        with pytest.raises(Exception, match=r"500|NoneType") as caught:
            asyncio.run(host.run_chat("What is fado?"))
    partial = caught.value.partial_result  # type: ignore[attr-defined]
    assert [t.tool_id for t in partial.traces] == ["find"]  # the tool that ran is not lost


@pytest.mark.parametrize(
    ("server_name", "choice"), [("llama.cpp", "required"), ("ollama", "none"), ("ollama", "find"), ("lmstudio", "find")]
)
def test_a_tool_choice_the_server_cannot_honour_is_refused_before_any_request(
    server_name: str, choice: str, tmp_path: Path
) -> None:
    # REQ: WIRE-6
    with provider_server() as server:
        host = host_for(server.url, tmp_path, server=server_name)
        with pytest.raises(UsageError, match=f"not supported by provider 'local' \\({server_name} server\\)"):
            asyncio.run(host.run_chat("x", tool_choice=choice))
    assert server.requests == []


def test_a_profile_knob_can_be_overridden_in_the_config(tmp_path: Path) -> None:
    # REQ: WIRE-6
    capable = CompatDialect("llama-server")  # a llama-server that does take "required"
    with provider_server() as server:
        server.reply(capable, capable)
        host = host_for(
            server.url,
            tmp_path,
            server="llama.cpp",
            tool_choices=["auto", "none", "required", "tool"],
            max_tokens_field="max_completion_tokens",
            stream_usage=False,
        )
        asyncio.run(host.run_chat("x", tool_choice="required", stream=True))
    first = server.bodies()[0]
    assert first["tool_choice"] == "required" and "stream_options" not in first


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (None, "official"),
        ("https://api.openai.com/v1", "official"),
        ("http://localhost:11434/v1", "ollama"),
        ("http://127.0.0.1:1234/v1", "lmstudio"),
        ("http://127.0.0.1:8080/v1", "llama.cpp"),
        ("http://127.0.0.1:8000/v1", "generic"),  # vLLM's and llama-cpp-python's shared default: neither
        ("https://proxy.example/v1", "generic"),
    ],
)
def test_the_default_profile_follows_the_base_url(url: str | None, expected: str) -> None:
    # REQ: WIRE-6
    assert guess_server(url) == expected
    assert server_profile(None, url) is PROFILES[expected]


def test_an_unknown_server_or_override_is_a_config_error(tmp_path: Path) -> None:
    # REQ: WIRE-6
    path = tmp_path / "host.toml"
    for line in ('server = "llamacpp"', 'tool_choices = ["always"]', 'max_tokens_field = "n_predict"'):
        path.write_text(f'[providers.p]\napi = "openai-chat"\nmodel = "m"\n{line}\n', encoding="utf-8")
        with pytest.raises(ConfigError, match=r"providers\.p"):
            load_config(path)


# --- tool choice everywhere ---------------------------------------------------------------------------


def test_tool_choice_from_the_config_and_from_run_chat(tmp_path: Path) -> None:
    # REQ: LOOP-8
    generic = DIALECTS["generic"]
    with provider_server() as server:
        server.reply(generic, generic, Reply(200, chat_completion("no tools")))
        host = host_for(server.url, tmp_path, tool_choice="find")
        asyncio.run(host.run_chat("x"))
        asyncio.run(host.run_chat("x", tool_choice="none"))  # the call's choice wins over the config's
    named, _, none = server.bodies()
    assert named["tool_choice"] == {"type": "function", "function": {"name": "find"}}
    assert none["tool_choice"] == "none" and none["tools"]


def test_cli_tool_choice_names_a_tool_and_an_unknown_one_is_refused_before_any_request(tmp_path: Path) -> None:
    # REQ: UX-1
    # REQ: LOOP-8
    generic = DIALECTS["generic"]
    with provider_server() as server:
        server.reply(generic, generic)
        config = tmp_path / "host.toml"
        config.write_text(
            f'[providers.local]\napi = "openai-chat"\nmodel = "m"\nbase_url = "{server.url}"\n'
            'api_key_env = "DIALECT_KEY"\n',
            encoding="utf-8",
        )
        runner = CliRunner()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(
                Host,
                "from_config",
                classmethod(
                    lambda cls, path=None, **o: cls(
                        load_config(path), plugins=[FindPlugin()], load_entry_points=False, settings_dir=tmp_path
                    )
                ),
            )
            bad = runner.invoke(cli, ["--config", str(config), "chat", "x", "--tool-choice", "nope"])
            assert server.requests == []
            good = runner.invoke(cli, ["--config", str(config), "chat", "x", "--tool-choice", "find", "--json"])
    assert bad.exit_code == 2 and "'nope' is not auto, none, required or an offered tool" in bad.output
    assert "Traceback" not in bad.output
    assert good.exit_code == 0, good.output
    assert server.bodies()[0]["tool_choice"] == {"type": "function", "function": {"name": "find"}}
    assert json.loads(good.output)["stop_reason"] == "answered"
