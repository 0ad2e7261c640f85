"""Testing a host offline: a host with a test model, and a switch that makes real provider requests fail fast."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _provider_server import Reply, chat_completion, provider_server

from toolplug import function_tool
from toolplug.config import parse_config
from toolplug.errors import ModelRequestsDisabledError
from toolplug.host import Host
from toolplug.testing import SchemaTestModel, ScriptedAdapter, block_model_requests, offline_host, tool_call

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


def weather() -> Any:
    return function_tool("weather", "The weather in a city.", CITY, lambda args: f"Sunny in {args['city']}")


def test_an_offline_host_chats_with_a_scripted_model_and_runs_the_tools() -> None:
    # REQ: UX-3 — no API key, no plugin, no config file.
    model = ScriptedAdapter([tool_call("weather", {"city": "Lisbon"}), "It is sunny in Lisbon."])
    host = offline_host(weather(), model=model)
    with block_model_requests():
        result = asyncio.run(host.run_chat("Weather in Lisbon?"))
    assert result.text == "It is sunny in Lisbon."
    assert [(t.tool_id, t.status.value) for t in result.traces] == [("weather", "ok")]
    assert model.results and next(iter(model.results.values())).output == "Sunny in Lisbon"


def test_an_offline_host_defaults_to_the_schema_test_model() -> None:
    # REQ: UX-3
    host = offline_host(weather())
    result = asyncio.run(host.run_chat("Try every tool"))
    assert result.text == '{"weather": "Sunny in test"}'
    assert host.config.providers["test"].model == SchemaTestModel().model_id


def real_provider_host(url: str, tmp_path: Any) -> Host:
    config = parse_config({"providers": {"real": {"api": "openai-chat", "model": "m", "base_url": url}}})
    return Host(config, load_entry_points=False, settings_dir=tmp_path)


def test_blocked_model_requests_fail_before_anything_is_sent(tmp_path: Any) -> None:
    # REQ: UX-3 — the switch: a real provider's request fails at once; the server never hears of it.
    with provider_server() as server:
        server.reply(Reply(200, chat_completion("should never be asked")))
        host = real_provider_host(server.url, tmp_path)
        with block_model_requests(), pytest.raises(ModelRequestsDisabledError, match="real"):
            asyncio.run(host.run_chat("hi"))
        assert server.requests == []
        assert asyncio.run(host.run_chat("hi")).text == "should never be asked"  # on again after the block


def test_the_environment_switches_model_requests_off_too(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # REQ: UX-3
    monkeypatch.setenv("TOOLPLUG_ALLOW_MODEL_REQUESTS", "0")
    with provider_server() as server:
        host = real_provider_host(server.url, tmp_path)
        with pytest.raises(ModelRequestsDisabledError):
            asyncio.run(host.run_chat("hi"))
        assert server.requests == []
