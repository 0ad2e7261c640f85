"""Tests of the Example Tools plugin, with the fixtures toolplug's pytest plugin provides."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from example_tools import plugin
from example_tools.notes import REGIONS, TOOL_ID, SearchNotesTool
from example_tools.temperature import convert_temperature

SETTINGS = {"service_url": "https://notes.example", "api_key": "test-key-0123", "region": "eu"}
PLUGIN_NAME = "example-tools"


def configured_host(toolplug_host: Any, **options: Any) -> Any:
    """A host with only this plugin, its search tool configured as a user would."""
    host = toolplug_host(plugins=[(PLUGIN_NAME, plugin)], **options)
    definition = host.tool(TOOL_ID).definition
    host.settings.set(definition, "service_url", SETTINGS["service_url"])
    host.settings.set(definition, "region", SETTINGS["region"])
    host.settings.set_secret(definition, "api_key", SETTINGS["api_key"])
    return host


def test_the_plugin_registers_valid_tools(toolplug_host: Any) -> None:
    host = toolplug_host(plugins=[(PLUGIN_NAME, plugin)])
    assert host.registry.diagnostics == []
    assert host.registry.ids() == ["example_tools_convert_temperature", "example_tools_search_notes"]
    assert "example_tools_regions" in host.option_sources


def test_the_installed_package_is_discovered(toolplug_host: Any) -> None:
    # Needs the package installed (pip install -e .): loads it through its entry point, as a host does.
    host = toolplug_host(plugins=[PLUGIN_NAME])
    record = host.plugin_records()[0]
    assert (record.name, record.distribution, record.status) == (PLUGIN_NAME, "example-tools", "loaded")
    assert record.hooks == ["register_option_sources", "register_tools"]


def test_search_notes_keeps_the_contract(check_tool_contract: Any) -> None:
    report = check_tool_contract(SearchNotesTool(), settings=SETTINGS, option_sources=[REGIONS])
    assert report.examples_run > 0


def test_convert_temperature_keeps_the_contract(check_tool_contract: Any) -> None:
    report = check_tool_contract(convert_temperature)
    assert report.strict
    # What OpenAI strict mode changes: the optional "unit" becomes required and may be null.
    assert any(change.startswith("unit: optional made required") for change in report.strict_changes)


def test_convert_temperature_refuses_what_its_schema_forbids(toolplug_host: Any) -> None:
    from toolplug.errors import InvalidToolInputError

    host = toolplug_host(plugins=[(PLUGIN_NAME, plugin)])
    with pytest.raises(InvalidToolInputError):  # colder than absolute zero: refused before the tool runs
        asyncio.run(host.call_tool("example_tools_convert_temperature", {"value": -500}))


def test_an_unconfigured_search_is_never_offered(toolplug_host: Any) -> None:
    host = toolplug_host(plugins=[(PLUGIN_NAME, plugin)])
    status = next(s for s in host.tool_statuses() if s.id == TOOL_ID)
    assert status.status == "excluded"
    assert any("service_url" in reason for reason in status.reasons)


def test_search_finds_notes_and_cites_them(toolplug_host: Any) -> None:
    host = configured_host(toolplug_host)
    outcome = asyncio.run(host.call_tool(TOOL_ID, {"query": "release", "tags": ["release"]}))
    assert outcome.status.value == "ok"
    assert [note["title"] for note in outcome.result.json_content] == ["Release checklist"]
    assert outcome.result.sources[0].url == "https://notes.example/notes/1"
    assert SETTINGS["api_key"] not in str(outcome.trace.as_dict())


@pytest.mark.parametrize(("confidence", "status"), [("low", "blocked"), ("medium", "ok")])
def test_archived_notes_need_a_medium_provider(toolplug_host: Any, confidence: str, status: str) -> None:
    config = {"providers": {"local": {"api": "openai-chat", "model": "any", "confidence": confidence}}}
    host = configured_host(toolplug_host, config=config)
    call = host.call_tool(TOOL_ID, {"query": "release", "include_archived": True}, provider_id="local")
    outcome = asyncio.run(call)
    assert outcome.status.value == status


def test_convert_temperature_both_ways() -> None:
    assert convert_temperature(100.0, "celsius") == "100.0 °C is 212.0 °F"
    assert convert_temperature(212.0, "fahrenheit") == "212.0 °F is 100.0 °C"
