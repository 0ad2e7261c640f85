"""The executor: validation first, blocked and failed calls, traces, secrets never leak."""

from __future__ import annotations

import asyncio
import datetime
import enum
import json
import logging
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

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
from toolplug.calls import check_tool_call, format_tool_error
from toolplug.config import parse_config
from toolplug.errors import ToolResultError
from toolplug.execution import ExecutorTimeoutError
from toolplug.host import Host
from toolplug.loop import generate_text, loop_finished
from toolplug.messages import ToolCallPart
from toolplug.testing import ScriptedAdapter, tool_call, tool_calls_round

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

    reasons = {}
    for name, bad in {
        "type": {"count": "3"}, "missing": {}, "extra": {"count": 1, "extra": True}, "array": ["not", "an", "object"]
    }.items():
        with pytest.raises(InvalidToolInputError) as caught:
            execute(record, bad)
        assert caught.value.tool_name == "record"
        reasons[name] = caught.value.reason
    assert ran == []
    # The reasons come from the validator and name what is wrong, where.
    assert reasons["type"].startswith("at count:") and "integer" in reasons["type"]
    assert "count" in reasons["missing"] and "required" in reasons["missing"]
    assert "extra" in reasons["extra"]
    assert "JSON object" in reasons["array"] and "list" in reasons["array"]


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

    def validate_configuration(self, settings: Any) -> list[str]:
        if self.mode == "validate-returns":
            return [f"the key {settings['api_key']} was refused by the service"]
        if self.mode == "validate-raises":
            raise ValueError(f"cannot check key {settings['api_key']}")
        return []

    async def execute(self, arguments: dict[str, Any], context: ToolExecutionContext) -> Any:
        key = context.settings["api_key"]
        context.warn(f"used key {key}")
        logging.getLogger("leaky_plugin").warning("calling the service with %s", key)
        if self.mode == "raise":
            raise RuntimeError(f"request with key {key} failed")
        if self.mode == "quiet":
            raise ConnectionError("the service is down")  # the key stays in this frame's local variables
        if self.mode == "block":
            raise ToolExecutionBlockedError(f"key {key} is blocked")
        if self.mode == "chain":
            try:
                raise KeyError(key)
            except KeyError as inner:
                raise ValueError("the service refused the request") from inner
        if self.mode == "context":
            try:
                {}[key]
            except KeyError:
                raise RuntimeError("lookup failed")  # noqa: B904 (the implicit __context__ holds the key)
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


def every_text_of(error: BaseException | None) -> list[str]:
    """What a host could print or report of an error: its chain's messages, reprs and the formatted traceback."""
    if error is None:
        return []
    texts = ["".join(traceback.format_exception(error))]
    seen: list[BaseException] = []
    pending: list[BaseException | None] = [error]
    while pending:
        link = pending.pop()
        if link is None or any(link is s for s in seen):
            continue
        seen.append(link)
        texts += [str(link), repr(link), repr(link.args), repr(vars(link))]
        pending += [link.__cause__, link.__context__]
    return texts


@pytest.mark.parametrize("mode", ["ok", "raise", "quiet", "block", "chain", "context"])
def test_sentinel_secret_never_appears_in_a_call_its_chain_its_logs_or_its_trace(
    mode: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
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
        *every_text_of(outcome.error),
    ]
    assert all(SENTINEL not in text for text in everything), everything
    assert "[redacted]" in caplog.text and "leaky_plugin" in caplog.text
    if mode == "quiet":
        # Nothing to scrub in its text, so the host keeps the tool's own exception, without the frames
        # whose local variables hold the secret.
        assert type(outcome.error) is ConnectionError and outcome.error.__traceback__ is None
    if mode == "chain":
        assert outcome.text == "Tool execution failed: the service refused the request"
        assert outcome.error.__cause__ is not None and "[redacted]" in str(outcome.error.__cause__)
    if mode == "context":
        assert outcome.error.__context__ is not None and "[redacted]" in str(outcome.error.__context__)
    settings_file = tmp_path / "settings.json"
    assert not settings_file.exists() or SENTINEL not in settings_file.read_text()


@pytest.mark.parametrize("mode", ["validate-returns", "validate-raises"])
def test_a_secret_in_validate_configuration_text_never_reaches_statuses_or_errors(mode: str, tmp_path: Path) -> None:
    # REQ: EXE-2, SET-1
    host = Host(
        parse_config({}), plugins=[("leaky", LeakyPlugin(mode))], settings_dir=tmp_path, load_entry_points=False
    )
    host.settings.set_secret(host.tool("leaky").definition, "api_key", SENTINEL)
    statuses = [status.as_dict() for status in host.tool_statuses()]
    (status,) = statuses
    assert status["status"] == "excluded" and "[redacted]" in " ".join(status["reasons"])
    with pytest.raises(toolplug.ToolNotRunnableError) as caught:
        asyncio.run(host.call_tool("leaky", {}))
    texts = [json.dumps(statuses), *every_text_of(caught.value), " ".join(caught.value.reasons)]
    assert all(SENTINEL not in text for text in texts), texts


# --- calls are values ----------------------------------------------------------------------------------


def test_a_tool_that_mutates_its_arguments_cannot_rewrite_the_recorded_call() -> None:
    # REQ: EXE-2, EXE-3
    @toolplug.tool
    def vandal(query: str, filters: dict[str, Any]) -> str:
        """Mutates what it was given."""
        filters["injected"] = True
        filters["tags"].append("evil")
        return "done"

    arguments = {"query": "books", "filters": {"tags": ["fiction"]}}
    model = ScriptedAdapter([tool_calls_round(tool_call("vandal", json.dumps(arguments), call_id="c1")), "ok"])
    result = asyncio.run(generate_text(model, prompt="go", tools=[vandal], stop_when=loop_finished()))
    (trace,) = result.traces
    assert trace.arguments == arguments
    recorded = [
        part.input for message in result.response_messages for part in getattr(message, "content", [])
        if isinstance(part, ToolCallPart)
    ]
    assert recorded == [arguments]
    direct = {"query": "books", "filters": {"tags": ["fiction"]}}
    outcome = execute(vandal, direct)
    assert direct == arguments and outcome.trace.arguments == arguments


class _Overwriter(toolplug.ToolImplementation):
    """Works on the arguments dict itself, as a ToolImplementation may."""

    implementation_key = "overwriter"

    def definition(self) -> toolplug.ToolDefinition:
        return toolplug.ToolDefinition(
            id="overwriter", implementation_key="overwriter",
            function=toolplug.FunctionSpec(
                name="overwriter", description_for_llm="Overwrites its arguments.",
                parameters=toolplug.ToolParameterSchemaBuilder().required_string("query", "q").build(),
            ),
        )

    async def execute(self, arguments: dict[str, Any], context: Any) -> str:
        arguments["query"] = "rewritten"
        arguments["added"] = True
        return "done"


def test_a_tool_that_rewrites_flat_arguments_in_place_cannot_rewrite_the_recorded_call() -> None:
    # REQ: EXE-2
    arguments = {"query": "books"}
    outcome = execute(_Overwriter(), arguments)
    assert arguments == {"query": "books"}
    assert outcome.trace.arguments == {"query": "books"}


def test_an_invalid_call_never_repeats_a_sensitive_argument_in_its_error_text() -> None:
    # REQ: EXE-2, EXE-4
    @toolplug.tool(sensitive_argument_names={"pin", "token"})
    def unlock(door: str, pin: int, options: dict[str, Any] | None = None) -> str:
        """Unlock a door."""
        return "open"

    bad = {"door": "front", "pin": "hunter2-secret", "options": {"token": {"value": "tok-hunter2-nested"}}}
    with pytest.raises(InvalidToolInputError) as caught:
        execute(unlock, bad)
    texts = [str(caught.value), caught.value.reason, caught.value.tool_input, format_tool_error(caught.value)]
    assert all("hunter2" not in text for text in texts), texts
    assert "at pin" in caught.value.reason and "integer" in caught.value.reason
    checked = check_tool_call(
        tool_call("unlock", json.dumps(bad), call_id="c1"), {"unlock": RegisteredTool.from_implementation(unlock)}
    )
    assert checked.invalid and checked.error is not None
    assert "hunter2" not in format_tool_error(checked.error) and "hunter2" not in checked.error.tool_input


# --- failures are typed -----------------------------------------------------------------------------------


def test_a_tools_own_timeout_error_is_its_failure_not_the_executors_timeout() -> None:
    # REQ: EXE-1
    @toolplug.tool(timeout=30)
    async def upstream() -> str:
        """Its upstream times out."""
        raise TimeoutError("the upstream took too long")

    outcome = execute(upstream, {})
    assert outcome.status is CallStatus.ERROR
    assert outcome.text == "Tool execution failed: the upstream took too long"
    assert not isinstance(outcome.error, ExecutorTimeoutError)


def test_the_executors_timeout_is_reported_as_such() -> None:
    # REQ: EXE-1
    @toolplug.tool
    async def slow() -> str:
        """Slow."""
        await asyncio.sleep(5)
        return "never"

    outcome = execute(slow, {}, timeout=0.05)
    assert outcome.text == "Tool execution failed: timed out after 0.05 seconds"
    assert isinstance(outcome.error, ExecutorTimeoutError) and outcome.error.limit == 0.05


@pytest.mark.parametrize("raised", [SystemExit(3), SystemExit("bye"), asyncio.CancelledError(), GeneratorExit()])
def test_system_exit_and_a_tools_own_cancelled_error_are_that_calls_failure(raised: BaseException) -> None:
    # REQ: EXE-1
    @toolplug.tool
    async def quitter() -> str:
        """Quits."""
        raise raised

    if isinstance(raised, GeneratorExit):
        with pytest.raises(GeneratorExit):
            execute(quitter, {})
        return
    outcome = execute(quitter, {})
    assert outcome.status is CallStatus.ERROR and outcome.error is raised
    assert outcome.text.startswith(f"Tool execution failed: the tool raised {type(raised).__name__}")


def test_system_exit_in_a_tool_does_not_end_the_run() -> None:
    # REQ: EXE-1, LOOP-1
    @toolplug.tool
    def quitter() -> str:
        """Quits, from a worker thread."""
        sys.exit(2)

    model = ScriptedAdapter([tool_calls_round(tool_call("quitter", {}, call_id="c1")), "I could not quit."])
    result = asyncio.run(generate_text(model, prompt="go", tools=[quitter], stop_when=loop_finished()))
    assert result.text == "I could not quit."
    assert result.traces[0].status is CallStatus.ERROR and "SystemExit: 2" in (result.traces[0].error or "")


def test_keyboard_interrupt_always_reaches_the_host() -> None:
    # REQ: EXE-1 — toolplug cannot tell a tool's own KeyboardInterrupt from the user's Ctrl-C.
    @toolplug.tool
    async def interrupted() -> str:
        """Interrupted."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        execute(interrupted, {})


def test_cancelling_the_call_cancels_it_and_is_not_a_failure() -> None:
    # REQ: EXE-1
    started = asyncio.Event()

    @toolplug.tool
    async def waits() -> str:
        """Waits."""
        started.set()
        await asyncio.sleep(5)
        return "never"

    async def scenario() -> None:
        task = asyncio.create_task(ToolExecutor().execute(RegisteredTool.from_implementation(waits), {}))
        await started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(scenario())


class Colour(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: int
    when: datetime.date


@pytest.mark.parametrize(
    ("returned", "expected"),
    [
        (datetime.datetime(2026, 1, 2, 3, 4, 5), "2026-01-02T03:04:05"),
        (Point(x=1, when=datetime.date(2026, 1, 2)), {"x": 1, "when": "2026-01-02"}),
        ({"tags": {"only"}, "colour": Colour.RED}, {"tags": ["only"], "colour": "red"}),
        ([float("nan"), 1.5], [None, 1.5]),
        (ToolExecutionResult(json_content={"at": datetime.date(2026, 1, 2)}), {"at": "2026-01-02"}),
    ],
    ids=["datetime", "model", "set-and-enum", "nan", "result-with-date"],
)
def test_return_values_are_serialised_with_pydantics_json_mode(returned: Any, expected: Any) -> None:
    # REQ: EXE-3
    @toolplug.tool
    def give() -> Any:
        """Gives."""
        return returned

    outcome = execute(give, {})
    assert outcome.status is CallStatus.OK, outcome.text
    assert outcome.result.json_content == expected
    assert json.loads(outcome.text) == expected


def _cycle() -> dict[str, Any]:
    looped: dict[str, Any] = {}
    looped["self"] = looped
    return looped


@pytest.mark.parametrize(
    ("returned", "words"),
    [
        (b"\x89PNG", "bytes"),
        ({"image": [b"raw"]}, "bytes in the value at image[0]"),
        (ToolExecutionResult(json_content={"blob": bytearray(b"x")}), "bytes"),
        (object(), "cannot be serialised as JSON"),
        (_cycle(), "cannot be serialised as JSON"),
    ],
    ids=["bytes", "nested-bytes", "bytes-in-result", "object", "cycle"],
)
def test_a_return_value_json_cannot_hold_is_a_failed_call_with_a_clear_message(returned: Any, words: str) -> None:
    # REQ: EXE-1, EXE-3
    @toolplug.tool
    def give() -> Any:
        """Gives."""
        return returned

    outcome = execute(give, {})
    assert outcome.status is CallStatus.ERROR and isinstance(outcome.error, ToolResultError)
    assert outcome.text.startswith("Tool execution failed: the tool returned") and words in outcome.text
    model = ScriptedAdapter([tool_calls_round(tool_call("give", {}, call_id="c1")), "Handled."])
    result = asyncio.run(generate_text(model, prompt="go", tools=[give], stop_when=loop_finished()))
    assert result.text == "Handled."  # the run goes on
