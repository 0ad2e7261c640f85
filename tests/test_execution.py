"""The executor: validation first, blocked and failed calls, traces, secrets never leak."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest

import toolplug
from toolplug import (
    CallScope,
    CallStatus,
    ConfidenceLevel,
    InvalidToolInputError,
    OutputType,
    RegisteredTool,
    Source,
    ToolExecutionBlockedError,
    ToolExecutionContext,
    ToolExecutionResult,
    ToolExecutor,
    ToolSettingsSchemaBuilder,
)
from toolplug.config import parse_config
from toolplug.host import Host

SENTINEL = "sk-SENTINEL-7f3a9c1e"


def execute(tool: toolplug.ToolImplementation, arguments: Any, **options: Any) -> toolplug.ToolCallOutcome:
    return asyncio.run(ToolExecutor().execute(RegisteredTool.from_implementation(tool), arguments, **options))


def test_arguments_are_validated_before_any_tool_code_runs() -> None:
    # REQ: EXE-4
    ran: list[Any] = []

    @toolplug.tool
    def record(count: int) -> str:
        """Record."""
        ran.append(count)
        return "ok"

    for bad in ({"count": "3"}, {}, {"count": 1, "extra": True}, ["not", "an", "object"]):
        with pytest.raises(InvalidToolInputError) as caught:
            execute(record, bad)
        assert caught.value.tool_name == "record"
    assert ran == []
    assert "at count" in str(InvalidToolInputError("record", "{}", "at count: '3' is not of type 'integer'"))


def test_blocked_call_sends_its_message_and_traces_blocked() -> None:
    # REQ: EXE-1
    @toolplug.tool
    def guarded(url: str) -> str:
        """Guarded."""
        raise ToolExecutionBlockedError(f"Reading {url} is not allowed by policy.")

    outcome = execute(guarded, {"url": "http://10.0.0.1/"})
    assert outcome.status is CallStatus.BLOCKED and outcome.trace.status is CallStatus.BLOCKED
    assert outcome.text == "Reading http://10.0.0.1/ is not allowed by policy."
    assert isinstance(outcome.error, ToolExecutionBlockedError)


def test_failed_call_is_logged_and_answered_with_tool_execution_failed(caplog: pytest.LogCaptureFixture) -> None:
    # REQ: EXE-1
    @toolplug.tool
    def broken(x: int) -> str:
        """Broken."""
        raise ZeroDivisionError("division by zero")

    with caplog.at_level(logging.ERROR, logger="toolplug.execution"):
        outcome = execute(broken, {"x": 1})
    assert outcome.status is CallStatus.ERROR
    assert outcome.text == "Tool execution failed: division by zero"
    assert outcome.result.resolved_output_type() is OutputType.ERROR_TEXT
    assert "ZeroDivisionError" in caplog.text and "Traceback" in caplog.text


def test_timeout_is_a_failed_call() -> None:
    # REQ: EXE-1
    @toolplug.tool(timeout=0.05)
    async def slow() -> str:
        """Slow."""
        await asyncio.sleep(5)
        return "never"

    outcome = execute(slow, {})
    assert outcome.status is CallStatus.ERROR and "timed out after 0.05 seconds" in outcome.text


def test_confidence_below_minimum_is_blocked_at_execution_too() -> None:
    # REQ: SEL-5, EXE-1
    @toolplug.tool(minimum_provider_confidence="high")
    def private() -> str:
        """Private data."""
        return "secret data"

    low = CallScope(provider_id="cheap", provider_confidence=ConfidenceLevel.LOW)
    outcome = execute(private, {}, scope=low)
    assert outcome.status is CallStatus.BLOCKED and "confidence high or higher" in outcome.text
    assert execute(private, {}, scope=CallScope(provider_confidence=ConfidenceLevel.HIGH)).status is CallStatus.OK


def test_result_carries_sources_confidence_and_output_type() -> None:
    # REQ: EXE-3
    @toolplug.tool
    def lookup() -> ToolExecutionResult:
        """Lookup."""
        return ToolExecutionResult(
            text_content="found",
            sources=[Source(url="https://example.org/a", title="A")],
            required_provider_confidence=ConfidenceLevel.MEDIUM,
        )

    outcome = execute(lookup, {})
    assert outcome.result.sources[0].url == "https://example.org/a"
    assert outcome.result.required_provider_confidence is ConfidenceLevel.MEDIUM
    assert outcome.result.resolved_output_type() is OutputType.TEXT
    assert ToolExecutionResult(text_content='{"a": 1}').resolved_output_type() is OutputType.JSON
    assert ToolExecutionResult(json_content=[1]).resolved_output_type(is_error=True) is OutputType.ERROR_JSON


def test_trace_records_tool_status_duration_size_and_redacts_sensitive_arguments() -> None:
    # REQ: EXE-2
    @toolplug.tool(sensitive_argument_names={"password"})
    def login(user: str, password: str, options: dict[str, Any] | None = None) -> str:
        """Log in."""
        return "welcome"

    outcome = execute(login, {"user": "ada", "password": "hunter22", "options": {"password": "nested"}}, call_id="c1")
    trace = outcome.trace.as_dict()
    assert trace["tool_id"] == "login" and trace["call_id"] == "c1" and trace["status"] == "ok"
    assert trace["arguments"] == {"user": "ada", "password": "[redacted]", "options": {"password": "[redacted]"}}
    assert trace["result_chars"] == len("welcome") and trace["duration_ms"] >= 0
    assert "hunter22" not in json.dumps(trace) and "nested" not in json.dumps(trace)


class LeakyTool(toolplug.ToolImplementation):
    """A careless tool that puts its API key everywhere it can."""

    implementation_key = "leaky"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def definition(self) -> toolplug.ToolDefinition:
        return toolplug.ToolDefinition(
            id="leaky",
            implementation_key="leaky",
            function=toolplug.FunctionSpec(
                name="leaky",
                description_for_llm="Leaks.",
                parameters={"type": "object", "properties": {"q": {"type": "string"}}},
            ),
            settings_schema=ToolSettingsSchemaBuilder().required_secret("api_key").build(),
        )

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> Any:
        key = context.settings["api_key"]
        context.warn(f"used key {key}")
        if self.mode == "raise":
            raise RuntimeError(f"request with key {key} failed")
        if self.mode == "block":
            raise ToolExecutionBlockedError(f"key {key} is blocked")
        return ToolExecutionResult(
            text_content=f"key={key}",
            json_content={"key": key, key: [key]},
            sources=[Source(url=f"https://api.example.org/?key={key}", title=key)],
        )


class LeakyPlugin:
    def __init__(self, mode: str) -> None:
        self.mode = mode

    @toolplug.hookimpl
    def register_tools(self) -> list[Any]:
        return [LeakyTool(self.mode)]


@pytest.mark.parametrize("mode", ["ok", "raise", "block"])
def test_sentinel_secret_never_appears_anywhere(mode: str, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    # REQ: EXE-2, SET-1
    host = Host(
        parse_config({}), plugins=[("leaky", LeakyPlugin(mode))], settings_dir=tmp_path, load_entry_points=False
    )
    host.settings.set_secret(host.tool("leaky").definition, "api_key", SENTINEL)
    with caplog.at_level(logging.DEBUG):
        outcome = asyncio.run(host.call_tool("leaky", {"q": SENTINEL}))
    everything = [
        outcome.result.model_dump_json(),
        json.dumps(outcome.trace.as_dict()),
        caplog.text,
        str(outcome.result.model_text()),
        " ".join(outcome.trace.warnings),
        repr(outcome.error),
    ]
    assert all(SENTINEL not in text for text in everything), everything
    assert "[redacted]" in outcome.text
    settings_file = tmp_path / "settings.json"
    assert not settings_file.exists() or SENTINEL not in settings_file.read_text()
