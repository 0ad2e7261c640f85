"""The host's chat and ``toolplug chat`` end to end against a local server (LOOP, SEL-5, SEL-8, WIRE-5)."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from _provider_server import (
    Reply,
    a_text,
    a_tool_use,
    anthropic_message,
    anthropic_stream,
    chat_completion,
    chat_stream,
    provider_server,
)
from click.testing import CliRunner

from toolplug import hookimpl
from toolplug.chat import ChatResult, provider_keyring_name, run_host_chat
from toolplug.cli import cli
from toolplug.config import load_config, parse_config
from toolplug.definitions import ConfidenceLevel, Source, ToolExecutionResult
from toolplug.errors import ConfigError, UsageError
from toolplug.host import Host
from toolplug.memory_keyring import MemoryKeyring
from toolplug.providers.base import TextDelta
from toolplug.tools import function_tool

KEY = "sk-host-chat-key-42"
SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def search(args: Any) -> ToolExecutionResult:
    return ToolExecutionResult(
        text_content=f"Results for {args['q']}",
        sources=[Source(url="https://example.org/a", title="Page A"), Source(url="https://example.org/b", title="B")],
        required_provider_confidence=ConfidenceLevel.LOW,
    )


class SearchPlugin:
    @hookimpl
    def register_tools(self) -> list[Any]:
        return [
            function_tool("find", "Find pages.", SCHEMA, search, system_prompt_instructions="Cite the pages you used.")
        ]


def config_data(url: str, api: str = "openai-chat", **provider: Any) -> dict[str, Any]:
    section = {
        "api": api,
        "model": "test-model",
        "base_url": url,
        "api_key_env": "TEST_PROVIDER_KEY",
        "confidence": "medium",
        **provider,
    }
    return {"providers": {"p": section}}


def make_host(data: dict[str, Any], tmp_path: Path) -> Host:
    return Host(parse_config(data), plugins=[SearchPlugin()], load_entry_points=False, settings_dir=tmp_path)


def test_host_chat_runs_the_loop_with_the_desktop_rules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: LOOP-3
    # REQ: LOOP-9
    # REQ: SEL-8
    monkeypatch.setenv("TEST_PROVIDER_KEY", KEY)
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "find", '{"q": "saudade"}')])),
            Reply(200, chat_completion(None, [("c2", "find", '{"q": "fado"}')])),
            Reply(200, chat_completion("Saudade is longing.")),
        )
        host = make_host(config_data(server.url), tmp_path)
        result = asyncio.run(run_host_chat(host, "What is saudade?", system="Be brief."))
    assert isinstance(result, ChatResult)
    assert result.text == "Saudade is longing." and len(result.steps) == 3
    assert [s.url for s in result.sources] == ["https://example.org/a", "https://example.org/b"]  # deduplicated
    assert result.required_provider_confidence is ConfidenceLevel.LOW
    assert len(result.traces) == 2 and result.usage.input_tokens == 30
    first = server.bodies()[0]
    assert first["parallel_tool_calls"] is False  # concurrency 1
    system = first["messages"][0]["content"]
    assert system.startswith("Be brief.") and "Cite the pages you used." in system
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    text = result.text_with_sources()
    assert text.endswith("Sources used by tools:\n- Page A: https://example.org/a\n- B: https://example.org/b")


def test_host_chat_limits_ask_for_a_final_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: LOOP-2
    monkeypatch.setenv("TEST_PROVIDER_KEY", KEY)
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "find", '{"q": "a"}')])),
            Reply(200, chat_completion("Final.")),
        )
        data = {**config_data(server.url), "limits": {"max_tool_calls": 1}}
        result = asyncio.run(make_host(data, tmp_path).run_chat("go"))
    assert result.stop_reason == "limit" and result.text == "Final."
    assert "tools" not in server.bodies()[1] and "parallel_tool_calls" not in server.bodies()[1]


def test_streamed_host_chat_with_key_from_the_keyring(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    # REQ: WIRE-5
    memory_keyring.set_password("toolplug", provider_keyring_name("p"), KEY)
    turn = anthropic_message(a_tool_use("toolu_1", "find", {"q": "x"}), stop_reason="tool_use")
    with provider_server() as server:
        server.reply(
            Reply(events=anthropic_stream(turn)), Reply(events=anthropic_stream(anthropic_message(a_text("Found it."))))
        )
        data = config_data(server.url, api="anthropic")
        del data["providers"]["p"]["api_key_env"]
        seen: list[str] = []
        result = asyncio.run(
            run_host_chat(
                make_host(data, tmp_path),
                "find x",
                stream=True,
                on_event=lambda e: seen.append(e.text) if isinstance(e, TextDelta) else None,
            )
        )
    assert "".join(seen) == "Found it." and result.text == "Found it."
    assert server.requests[0].headers["x-api-key"] == KEY
    assert len(server.bodies()[1]["messages"]) == 3


def test_no_provider_configured_says_what_to_configure(tmp_path: Path) -> None:
    # REQ: WIRE-5
    host = Host(parse_config({}), load_entry_points=False, settings_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"\[providers\.openai\]") as caught:
        asyncio.run(run_host_chat(host, "hi"))
    assert "api_key_env" in str(caught.value)


def test_missing_key_for_a_vendor_provider(tmp_path: Path) -> None:
    # REQ: WIRE-5
    data = {"providers": {"cloud": {"api": "openai-chat", "model": "m"}}}
    host = Host(parse_config(data), load_entry_points=False, settings_dir=tmp_path)
    with pytest.raises(ConfigError, match=r"toolplug settings provider-key cloud"):
        asyncio.run(run_host_chat(host, "hi"))


def test_refuses_a_chat_whose_data_needs_more_confidence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: SEL-5
    monkeypatch.setenv("TEST_PROVIDER_KEY", KEY)
    with provider_server() as server:
        server.reply(Reply(200, chat_completion("ok")))
        host = make_host(config_data(server.url), tmp_path)
        with pytest.raises(UsageError, match="confidence high"):
            asyncio.run(run_host_chat(host, "hi", chat_required_confidence=ConfidenceLevel.HIGH))
        assert server.requests == []
        trusted = make_host(config_data(server.url, trusted=True), tmp_path)
        result = asyncio.run(run_host_chat(trusted, "hi", chat_required_confidence=ConfidenceLevel.HIGH))
    assert result.text == "ok" and result.required_provider_confidence is ConfidenceLevel.HIGH


# --- the command -------------------------------------------------------------------------------------


def write_config(tmp_path: Path, url: str, api: str = "openai-chat") -> Path:
    path = tmp_path / "host.toml"
    path.write_text(
        f'[providers.local]\napi = "{api}"\nmodel = "test-model"\nbase_url = "{url}"\n'
        'api_key_env = "TEST_PROVIDER_KEY"\nconfidence = "high"\n',
        encoding="utf-8",
    )
    return path


@pytest.fixture
def plugin_host(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``toolplug`` builds its host with the test plugin (and no installed plugins)."""
    monkeypatch.setenv("TEST_PROVIDER_KEY", KEY)
    monkeypatch.setattr(
        Host,
        "from_config",
        classmethod(
            lambda cls, path=None, **o: cls(
                load_config(path), plugins=[SearchPlugin()], load_entry_points=False, settings_dir=tmp_path / "s"
            )
        ),
    )


@pytest.mark.usefixtures("plugin_host")
def test_cli_chat_streams_records_and_lists_sources(tmp_path: Path) -> None:
    # REQ: LOOP-3
    # REQ: WIRE-5
    record = tmp_path / "rec"
    with provider_server() as server:
        first = chat_completion("Looking. ", [("c1", "find", '{"q": "fado"}')])
        server.reply(Reply(events=chat_stream(first)), Reply(events=chat_stream(chat_completion("Fado is a song."))))
        config = write_config(tmp_path, server.url)
        result = CliRunner().invoke(
            cli, ["--config", str(config), "chat", "What is fado?", "--stream", "--record", str(record)]
        )
    assert result.exit_code == 0, result.output
    # each step's text on its own line, in reading order, never glued (REQ: LOOP-14)
    assert result.output.startswith("Looking. \nFado is a song.\n")
    assert "Sources used by tools:\n  - Page A: https://example.org/a\n  - B: https://example.org/b" in result.output
    files = sorted(record.iterdir())
    assert [f.name for f in files] == ["0001-local.json", "0002-local.json"]
    for file, received in zip(files, server.requests, strict=True):
        text = file.read_text()
        assert KEY not in text
        exchange = json.loads(text)
        assert exchange["request"]["body"] == received.body  # what was recorded is what the server got
        assert exchange["request"]["headers"]["authorization"] == "[REDACTED]"
        assert exchange["response"]["stream"][-1]["data"] == "[DONE]"
    assembled = json.loads(files[0].read_text())["response"]["assembled"]
    assert assembled["tool_calls"] == [{"id": "c1", "name": "find", "arguments": '{"q": "fado"}'}]
    assert json.loads(files[1].read_text())["request"]["body"]["messages"][-1]["tool_call_id"] == "c1"


@pytest.mark.usefixtures("plugin_host")
def test_cli_chat_json(tmp_path: Path) -> None:
    # REQ: LOOP-3
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "find", '{"q": "x"}')])), Reply(200, chat_completion("Done."))
        )
        config = write_config(tmp_path, server.url)
        result = CliRunner().invoke(cli, ["--config", str(config), "chat", "x?", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["text"] == "Done." and payload["provider"] == "local"
    assert payload["sources"] == [
        {"url": "https://example.org/a", "title": "Page A"},
        {"url": "https://example.org/b", "title": "B"},
    ]
    assert payload["steps"][0]["tool_calls"][0]["name"] == "find"
    assert payload["required_provider_confidence"] == "low"


@pytest.mark.usefixtures("plugin_host")
def test_cli_chat_without_provider_or_reachable_server(tmp_path: Path) -> None:
    # REQ: WIRE-5
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(empty), "chat", "hi"])
    assert result.exit_code == 2 and "No model provider is configured" in result.output
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = write_config(tmp_path, f"http://127.0.0.1:{port}")
    result = CliRunner().invoke(cli, ["--config", str(config), "chat", "hi"])
    assert result.exit_code == 1 and "ProviderConnectionError" in result.output and "base_url" in result.output


def test_provider_key_is_stored_from_stdin_and_used_by_the_chat(tmp_path: Path) -> None:
    # REQ: WIRE-5, SET-1
    from click.testing import CliRunner

    from toolplug.cli import cli

    with provider_server() as server:
        server.reply(Reply(200, chat_completion("Hello from the keyring.")))
        config = tmp_path / "toolplug.toml"
        config.write_text(
            f'[providers.keyed]\napi = "openai-chat"\nmodel = "m"\nbase_url = "{server.url}"\n', encoding="utf-8"
        )
        command = ["--config", str(config), "settings", "provider-key", "keyed"]
        stored = CliRunner().invoke(cli, command, input=KEY + "\n")
        assert stored.exit_code == 0, stored.output
        assert KEY not in stored.output
        answered = CliRunner().invoke(cli, ["--config", str(config), "chat", "hi"])
        assert answered.exit_code == 0, answered.output
        assert "Hello from the keyring." in answered.output
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
    unknown = CliRunner().invoke(cli, ["--config", str(config), "settings", "provider-key", "nope"], input="x\n")
    assert unknown.exit_code == 2 and "Unknown provider 'nope'" in unknown.output
