"""The tool-calling loop through its public API, with the scripted adapter (toolplug.loop)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from typing import Any

import pytest

from toolplug.calls import ToolCallRepairContext, ToolChoice
from toolplug.definitions import ConfidenceLevel, OutputType, Source, ToolExecutionResult
from toolplug.errors import InvalidArgumentError, ToolChoiceViolationError, ToolExecutionBlockedError, UsageError
from toolplug.execution import CallScope, CallStatus, ToolExecutor
from toolplug.loop import (
    Agent,
    LoopEvent,
    LoopOptions,
    PrepareStep,
    PrepareStepContext,
    StepResult,
    ToolApproval,
    ToolApprovalRequest,
    ToolCallingLoop,
    ToolResultStreamPart,
    generate_text,
    has_tool_call,
    loop_finished,
    step_count_is,
    stream_text,
)
from toolplug.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    TextPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from toolplug.providers.base import Round, RoundRequest, ToolInputStartDelta, Usage
from toolplug.registry import RegisteredTool
from toolplug.testing import ScriptedAdapter, text_round, tool_call, tool_calls_round
from toolplug.tools import dynamic_tool, function_tool, provider_defined_tool, tool

CITY = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}


@tool
async def weather(city: str) -> str:
    """Returns a short forecast."""
    return f"sunny in {city}"


@tool
async def echo(value: str) -> str:
    """Echoes a value."""
    return value


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


def calls_of(adapter: ScriptedAdapter) -> int:
    return len(adapter.requests)


# --- stop conditions (LOOP-4) -------------------------------------------------------------------------


def test_generate_text_stops_after_one_step_but_runs_its_calls() -> None:
    # REQ: LOOP-4
    model = ScriptedAdapter([tool_call("weather", {"city": "Lisbon"}), "never asked"])
    result = run(generate_text(model, prompt="Weather?", tools=[weather]))
    assert calls_of(model) == 1
    assert result.stop_reason == "stop-condition"
    assert [r.output for r in result.tool_results] == ["sunny in Lisbon"]


def test_step_count_is() -> None:
    # REQ: LOOP-4
    model = ScriptedAdapter([tool_call("weather", {"city": "A"})] * 5)
    result = run(generate_text(model, prompt="x", tools=[weather], stop_when=step_count_is(3)))
    assert len(result.steps) == 3 and calls_of(model) == 3


def test_has_tool_call() -> None:
    # REQ: LOOP-4
    model = ScriptedAdapter([tool_call("weather", {"city": "A"}), tool_call("echo", {"value": "v"}), "no"])
    result = run(generate_text(model, prompt="x", tools=[weather, echo], stop_when=has_tool_call("echo")))
    assert len(result.steps) == 2


def test_loop_finished_runs_until_the_model_answers() -> None:
    # REQ: LOOP-4
    model = ScriptedAdapter([tool_call("weather", {"city": "A"})] * 4 + ["done"])
    result = run(generate_text(model, prompt="x", tools=[weather], stop_when=loop_finished()))
    assert result.text == "done" and len(result.steps) == 5 and result.stop_reason == "answered"


def test_custom_and_combined_conditions() -> None:
    # REQ: LOOP-4
    seen: list[int] = []

    async def after_two_results(steps: Sequence[StepResult]) -> bool:
        seen.append(len(steps))
        return sum(len(step.tool_results) for step in steps) >= 2

    model = ScriptedAdapter([tool_call("weather", {"city": "A"})] * 5)
    result = run(generate_text(model, prompt="x", tools=[weather], stop_when=[step_count_is(4), after_two_results]))
    assert len(result.steps) == 2 and seen == [1, 2]


def test_each_step_names_provider_and_model() -> None:
    # REQ: LOOP-4
    model = ScriptedAdapter(
        [Round([tool_call("weather", {"city": "A"}, call_id="c")], "tool-calls", provider="p1", model="m1"), "ok"],
        provider_id="p2",
        model_id="m2",
    )
    result = run(generate_text(model, prompt="x", tools=[weather], stop_when=loop_finished()))
    assert [(s.provider, s.model) for s in result.steps] == [("p1", "m1"), ("p2", "m2")]


# --- the agent (LOOP-4, LOOP-6) --------------------------------------------------------------------


def endless() -> ScriptedAdapter:
    return ScriptedAdapter(lambda messages, request: [tool_call("weather", {"city": "A"})])


def test_agent_default_limit_logs_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    # REQ: LOOP-4
    agent = Agent(endless, tools=[weather])
    with caplog.at_level(logging.WARNING, logger="toolplug.loop"):
        result = run(agent.generate(prompt="x"))
    assert len(result.steps) == 10
    warnings = [r for r in caplog.records if r.name == "toolplug.loop"]
    assert len(warnings) == 1
    assert "scripted" in warnings[0].getMessage() and "scripted-model" in warnings[0].getMessage()


@pytest.mark.parametrize(
    "agent_options",
    [{"stop_when": step_count_is(10)}, {"log_warnings": False}],
    ids=["explicit-stop-condition", "log-warnings-false"],
)
def test_agent_warning_silenced(caplog: pytest.LogCaptureFixture, agent_options: dict[str, Any]) -> None:
    # REQ: LOOP-4
    agent = Agent(endless, tools=[weather], **agent_options)
    with caplog.at_level(logging.WARNING, logger="toolplug.loop"):
        result = run(agent.generate(prompt="x"))
    assert len(result.steps) == 10
    assert not [r for r in caplog.records if r.name == "toolplug.loop"]


def test_agent_that_finishes_does_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    # REQ: LOOP-4
    agent = Agent(lambda: ScriptedAdapter(["hello"]))
    with caplog.at_level(logging.WARNING, logger="toolplug.loop"):
        assert run(agent.generate(prompt="x")).text == "hello"
    assert not caplog.records


def test_prepare_call_unchanged_keeps_warning_and_stop_when_silences(caplog: pytest.LogCaptureFixture) -> None:
    # REQ: LOOP-6, LOOP-4
    received: list[LoopOptions] = []

    def keep(options: LoopOptions) -> LoopOptions:
        received.append(options)
        return options

    with caplog.at_level(logging.WARNING, logger="toolplug.loop"):
        run(Agent(endless, tools=[weather], prepare_call=keep).generate(prompt="x"))
    assert received[0].stop_when is not None
    assert len(caplog.records) == 1
    caplog.clear()

    def raise_limit(options: LoopOptions) -> LoopOptions:
        return dataclasses.replace(options, stop_when=step_count_is(3), tool_call_concurrency=1)

    with caplog.at_level(logging.WARNING, logger="toolplug.loop"):
        result = run(Agent(endless, tools=[weather], prepare_call=raise_limit).generate(prompt="x"))
    assert len(result.steps) == 3 and not caplog.records
    assert result.steps[0].request.tool_call_concurrency == 1


def test_generate_text_does_not_log(caplog: pytest.LogCaptureFixture) -> None:
    # REQ: LOOP-4
    with caplog.at_level(logging.WARNING):
        run(generate_text(endless(), prompt="x", tools=[weather], stop_when=step_count_is(10)))
    assert not caplog.records


# --- instructions (LOOP-5) -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("instructions", "expected"),
    [
        ("Be brief.", [SystemMessage("Be brief.")]),
        (
            SystemMessage("Be brief.", {"anthropic": {"cache": True}}),
            [SystemMessage("Be brief.", {"anthropic": {"cache": True}})],
        ),
        ([SystemMessage("one"), SystemMessage("two")], [SystemMessage("one"), SystemMessage("two")]),
    ],
)
def test_instructions_forms_and_they_win_over_system(instructions: Any, expected: list[SystemMessage]) -> None:
    # REQ: LOOP-5
    model = ScriptedAdapter(["ok"])
    run(generate_text(model, prompt="x", instructions=instructions, system="ignored"))
    assert list(model.requests[0].instructions) == expected


def test_system_used_without_instructions() -> None:
    # REQ: LOOP-5
    model = ScriptedAdapter(["ok"])
    run(generate_text(model, prompt="x", system="You are terse."))
    assert list(model.requests[0].instructions) == [SystemMessage("You are terse.")]


def test_instructions_none_rejected_before_the_model_is_called() -> None:
    # REQ: LOOP-5
    model = ScriptedAdapter(["ok"])
    with pytest.raises(InvalidArgumentError, match="instructions"):
        run(generate_text(model, prompt="x", instructions=None))  # type: ignore[arg-type]
    assert not model.requests


# --- prepare_step (LOOP-6) -------------------------------------------------------------------------


def test_prepare_step_sets_tool_choice_active_tools_and_instructions() -> None:
    # REQ: LOOP-6
    contexts: list[PrepareStepContext] = []

    def prepare(context: PrepareStepContext) -> PrepareStep | None:
        contexts.append(context)
        if context.step_number == 1:
            return PrepareStep(tool_choice=ToolChoice.tool("echo"), active_tools=["echo"], instructions="Step two.")
        return None

    model = ScriptedAdapter([tool_call("weather", {"city": "A"}), tool_call("echo", {"value": "v"}), "done"])
    result = run(
        generate_text(
            model, prompt="x", tools=[weather, echo], stop_when=loop_finished(), prepare_step=prepare, system="S"
        )
    )
    assert result.text == "done"
    second = model.requests[1]
    assert second.tool_choice == ToolChoice.tool("echo")
    assert [d.function.name for d in second.tools] == ["echo"]
    assert list(second.instructions) == [SystemMessage("Step two.")]
    assert [d.function.name for d in model.requests[2].tools] == ["weather", "echo"]
    assert [c.step_number for c in contexts] == [0, 1, 2]


# --- tools without execute and approval (LOOP-7) -----------------------------------------------------


def test_tool_without_execute_ends_the_loop_without_evaluating_stop_conditions() -> None:
    # REQ: LOOP-7
    client_side = function_tool("ask_user", "Asks the user.", {"type": "object", "properties": {}}, None)
    evaluated: list[int] = []

    def condition(steps: Sequence[StepResult]) -> bool:
        evaluated.append(len(steps))
        return False

    model = ScriptedAdapter([[tool_call("ask_user"), tool_call("weather", {"city": "A"})], "never"])
    result = run(generate_text(model, prompt="x", tools=[client_side, weather], stop_when=condition))
    assert calls_of(model) == 1 and not evaluated
    assert result.stop_reason == "no-execute"
    assert [c.tool_name for c in result.pending_tool_calls] == ["ask_user"]
    assert [r.tool_name for r in result.tool_results] == ["weather"]


def test_needs_approval_without_callback_ends_with_pending_calls(caplog: pytest.LogCaptureFixture) -> None:
    # REQ: LOOP-7
    ran: list[str] = []

    async def delete(arguments: dict[str, Any]) -> str:
        ran.append("delete")
        return "deleted"

    deleting = function_tool("delete", "Deletes.", {"type": "object", "properties": {}}, delete, needs_approval=True)
    model = ScriptedAdapter([tool_call("delete", call_id="d1"), "never"])
    with caplog.at_level(logging.DEBUG, logger="toolplug"):
        result = run(generate_text(model, prompt="x", tools=[deleting], stop_when=loop_finished()))
    assert not ran and calls_of(model) == 1
    assert result.stop_reason == "approval-pending"
    assert result.pending_approvals == [ToolApprovalRequestPart("approval-d1", "d1")]
    assert [c.tool_call_id for c in result.pending_tool_calls] == ["d1"]
    assert result.response_messages[0].content[-1] == ToolApprovalRequestPart("approval-d1", "d1")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize(("approved", "expected"), [(True, "deleted"), (False, "Not today.")])
def test_answered_approval_resumes_the_run(approved: bool, expected: str) -> None:
    # REQ: LOOP-7
    ran: list[str] = []

    async def delete(arguments: dict[str, Any]) -> str:
        ran.append("delete")
        return "deleted"

    deleting = function_tool("delete", "Deletes.", {"type": "object", "properties": {}}, delete, needs_approval=True)
    first = run(generate_text(ScriptedAdapter([tool_call("delete", call_id="d1")]), prompt="x", tools=[deleting]))
    history: list[Message] = [UserMessage("x"), *first.response_messages]
    history.append(ToolMessage([ToolApprovalResponsePart("approval-d1", approved, None if approved else "Not today.")]))
    model = ScriptedAdapter(["done"])
    second = run(generate_text(model, messages=history, tools=[deleting]))
    assert ran == (["delete"] if approved else [])
    result_message = second.response_messages[0]
    assert isinstance(result_message, ToolMessage)
    answer = result_message.content[0]
    assert isinstance(answer, ToolResultPart) and answer.tool_call_id == "d1"
    assert answer.output_type is (OutputType.TEXT if approved else OutputType.EXECUTION_DENIED)
    assert expected in str(answer.output)
    assert second.text == "done" and calls_of(model) == 1
    # Answering again does not run the call twice: its result is in the history now.
    later = [*history, *second.response_messages]
    again = run(generate_text(ScriptedAdapter(["ok"]), messages=later, tools=[deleting]))
    assert ran == (["delete"] if approved else []) and again.text == "ok"


def test_approval_callback_approves_and_denies() -> None:
    # REQ: LOOP-7, LOOP-11
    asked: list[ToolApprovalRequest] = []

    async def approve(request: ToolApprovalRequest) -> ToolApproval:
        asked.append(request)
        return ToolApproval(request.tool_call.input["city"] != "Secret", "not that city")

    guarded = function_tool(
        "guarded",
        "Guarded.",
        CITY,
        lambda arguments: "ran",
        needs_approval=lambda arguments: arguments["city"] != "Free",
    )
    model = ScriptedAdapter(
        [
            [
                tool_call("guarded", {"city": "Lisbon"}),
                tool_call("guarded", {"city": "Secret"}),
                tool_call("guarded", {"city": "Free"}),
            ],
            "done",
        ]
    )
    result = run(generate_text(model, prompt="x", tools=[guarded], approve_tool=approve, stop_when=loop_finished()))
    assert [r.tool_call.input["city"] for r in asked] == ["Lisbon", "Secret"]
    outputs = [(r.output, r.output_type) for r in result.steps[0].tool_results]
    assert outputs == [
        ("ran", OutputType.TEXT),
        ("not that city", OutputType.EXECUTION_DENIED),
        ("ran", OutputType.TEXT),
    ]
    assert [t.status for t in result.traces] == [CallStatus.OK, CallStatus.DENIED, CallStatus.OK]
    assert result.text == "done"


def test_approval_callback_returning_false_denies_with_default_text() -> None:
    # REQ: LOOP-7
    deleting = function_tool(
        "delete", "Deletes.", {"type": "object", "properties": {}}, lambda a: "x", needs_approval=True
    )
    model = ScriptedAdapter([tool_call("delete"), "ok"])
    result = run(generate_text(model, prompt="x", tools=[deleting], approve_tool=lambda request: False))
    assert result.tool_results[0].output == "Tool call execution denied."
    assert result.tool_results[0].is_error


# --- tool choice (LOOP-8) ---------------------------------------------------------------------------


def test_tool_choice_none_raises_and_never_executes() -> None:
    # REQ: LOOP-8
    ran: list[str] = []

    async def side_effect(arguments: dict[str, Any]) -> str:
        ran.append("x")
        return "x"

    effect = function_tool("effect", "Effect.", {"type": "object", "properties": {}}, side_effect)

    def repair(context: ToolCallRepairContext) -> None:
        raise AssertionError("repair is skipped for rejected calls")

    model = ScriptedAdapter([tool_call("effect")])
    with pytest.raises(ToolChoiceViolationError):
        run(generate_text(model, prompt="x", tools=[effect], tool_choice="none", repair_tool_call=repair))
    assert not ran
    assert [d.function.name for d in model.requests[0].tools] == ["effect"]  # definitions still sent
    assert model.requests[0].tool_choice is ToolChoice.NONE


def test_named_tool_choice_violation() -> None:
    # REQ: LOOP-8
    model = ScriptedAdapter([tool_call("weather", {"city": "A"})])
    with pytest.raises(ToolChoiceViolationError, match="echo"):
        run(generate_text(model, prompt="x", tools=[weather, echo], tool_choice=ToolChoice.tool("echo")))


def test_prepare_step_replaces_tool_choice_none() -> None:
    # REQ: LOOP-8, LOOP-6
    model = ScriptedAdapter([tool_call("weather", {"city": "A"}), "done"])
    result = run(
        generate_text(
            model,
            prompt="x",
            tools=[weather],
            tool_choice="none",
            stop_when=loop_finished(),
            prepare_step=lambda context: PrepareStep(tool_choice="auto") if context.step_number == 0 else None,
        )
    )
    assert result.text == "done"


# --- concurrency (LOOP-9) ---------------------------------------------------------------------------


class Gauge:
    def __init__(self) -> None:
        self.running = 0
        self.peak = 0
        self.started: list[str] = []
        self.finished: list[str] = []


def gauged_tool(gauge: Gauge, delays: dict[str, float]) -> Any:
    async def slow(arguments: dict[str, Any]) -> str:
        name = arguments["value"]
        gauge.started.append(name)
        gauge.running += 1
        gauge.peak = max(gauge.peak, gauge.running)
        try:
            await asyncio.sleep(delays.get(name, 0.01))
        finally:
            gauge.running -= 1
        gauge.finished.append(name)
        return name

    return function_tool("slow", "Slow.", {"type": "object", "properties": {"value": {"type": "string"}}}, slow)


@pytest.mark.parametrize(("limit", "expected_peak"), [(1, 1), (2, 2), (3, 3), (None, 6)])
def test_concurrency_limit_is_observed(limit: int | None, expected_peak: int) -> None:
    # REQ: LOOP-9
    gauge = Gauge()
    slow = gauged_tool(gauge, {})
    model = ScriptedAdapter([[tool_call("slow", {"value": f"v{i}"}) for i in range(6)]])
    result = run(generate_text(model, prompt="x", tools=[slow], tool_call_concurrency=limit))
    assert gauge.peak == expected_peak
    assert [r.output for r in result.tool_results] == [f"v{i}" for i in range(6)]


def test_results_stay_in_model_order_when_later_calls_finish_first() -> None:
    # REQ: LOOP-9
    gauge = Gauge()
    slow = gauged_tool(gauge, {"a": 0.06, "b": 0.03, "c": 0.0})
    model = ScriptedAdapter([[tool_call("slow", {"value": v}) for v in "abc"], "done"])
    result = run(generate_text(model, prompt="x", tools=[slow], stop_when=loop_finished()))
    assert gauge.finished == ["c", "b", "a"]
    assert [r.output for r in result.steps[0].tool_results] == ["a", "b", "c"]
    tool_message = result.response_messages[1]
    assert isinstance(tool_message, ToolMessage)
    assert [p.output for p in tool_message.content] == ["a", "b", "c"]  # type: ignore[union-attr]
    assert [r.output for r in model.results.values()] == ["a", "b", "c"]


def test_concurrency_one_runs_in_model_order_and_asks_for_no_parallel_calls() -> None:
    # REQ: LOOP-9
    gauge = Gauge()
    slow = gauged_tool(gauge, {"a": 0.03, "b": 0.0})
    model = ScriptedAdapter([[tool_call("slow", {"value": v}) for v in "ab"]])
    run(generate_text(model, prompt="x", tools=[slow], tool_call_concurrency=1))
    assert gauge.started == ["a", "b"] and gauge.finished == ["a", "b"]
    assert model.requests[0].parallel_tool_calls is False
    no_tools = ScriptedAdapter(["hi"])
    run(generate_text(no_tools, prompt="x", tool_call_concurrency=1))
    assert no_tools.requests[0].parallel_tool_calls is None


@pytest.mark.parametrize("bad", [0, -1, True, 1.5])
def test_concurrency_below_one_rejected_before_the_model_is_called(bad: Any) -> None:
    # REQ: LOOP-9
    model = ScriptedAdapter(["never"])
    with pytest.raises(InvalidArgumentError) as raised:
        run(generate_text(model, prompt="x", tool_call_concurrency=bad))
    assert raised.value.parameter == "tool_call_concurrency"
    assert not model.requests
    with pytest.raises(InvalidArgumentError):
        stream_text(model, prompt="x", tool_call_concurrency=bad)
    with pytest.raises(InvalidArgumentError):
        Agent(model, tool_call_concurrency=bad)


def test_cancellation_leaves_queued_calls_unstarted() -> None:
    # REQ: LOOP-9
    gauge = Gauge()
    slow = gauged_tool(gauge, {str(i): 10.0 for i in range(5)})
    model = ScriptedAdapter([[tool_call("slow", {"value": str(i)}) for i in range(5)]])

    async def main() -> None:
        task = asyncio.ensure_future(generate_text(model, prompt="x", tools=[slow], tool_call_concurrency=2))
        while len(gauge.started) < 2:
            await asyncio.sleep(0.001)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    run(main())
    assert gauge.started == ["0", "1"]
    assert gauge.running == 0


def test_per_tool_timeout() -> None:
    # REQ: LOOP-9, EXE-1
    gauge = Gauge()
    slow = gauged_tool(gauge, {"late": 5.0})
    model = ScriptedAdapter([tool_call("slow", {"value": "late"})])
    result = run(generate_text(model, prompt="x", tools=[slow], tool_timeouts={"slow": 0.02}))
    assert result.tool_results[0].output_type is OutputType.ERROR_TEXT
    assert "timed out" in result.tool_results[0].output
    assert result.traces[0].status is CallStatus.ERROR


# --- validation, repair, refine (LOOP-10) -------------------------------------------------------------


def test_invalid_call_is_answered_with_an_error_and_the_loop_goes_on() -> None:
    # REQ: LOOP-10, LOOP-3
    model = ScriptedAdapter([[tool_call("nope"), tool_call("weather", {"city": 1})], "sorry"])
    result = run(generate_text(model, prompt="x", tools=[weather], stop_when=loop_finished()))
    first = result.steps[0]
    assert all(call.invalid for call in first.tool_calls)
    texts = [r.output for r in first.tool_results]
    assert texts[0] == "NoSuchToolError: Model tried to call unavailable tool 'nope'. Available tools: weather."
    assert texts[1].startswith("InvalidToolInputError: ")
    assert all(r.output_type is OutputType.ERROR_TEXT for r in first.tool_results)
    # nothing ran, yet every call has a trace (REQ: LOOP-10): an invalid call is an error trace
    assert [(t.tool_id, t.status) for t in result.traces] == [("nope", CallStatus.ERROR), ("weather", CallStatus.ERROR)]
    assert result.traces[1].error == texts[1] and result.traces[1].duration_ms == 0.0
    assert result.text == "sorry"


def test_repaired_call_replaces_the_models_everywhere() -> None:
    # REQ: LOOP-10
    def repair(context: ToolCallRepairContext) -> ToolCallPart:
        return ToolCallPart(context.tool_call.tool_call_id, "weather", {"city": "Lisbon"})

    events: list[LoopEvent] = []
    model = ScriptedAdapter([tool_call("wether", {"town": "Lisbon"}, call_id="c1"), "ok"])
    result = run(
        generate_text(
            model,
            prompt="x",
            tools=[weather],
            repair_tool_call=repair,
            stop_when=loop_finished(),
            on_event=events.append,
        )
    )
    step = result.steps[0]
    repaired = ToolCallPart("c1", "weather", {"city": "Lisbon"})
    assert step.tool_calls == [repaired]
    assert step.content[0] == repaired
    assert result.response_messages[0] == AssistantMessage([repaired])
    assert model.messages[1] == AssistantMessage([repaired])
    assert result.traces[0].arguments == {"city": "Lisbon"}
    assert [e.tool_call for e in events if e.type == "tool-running"] == [repaired]  # type: ignore[union-attr]


def test_experimental_repair_alias_and_precedence() -> None:
    # REQ: LOOP-10
    def fixing(context: ToolCallRepairContext) -> ToolCallPart:
        return ToolCallPart("c1", "weather", {"city": "A"})

    model = ScriptedAdapter([tool_call("x", call_id="c1")])
    result = run(generate_text(model, prompt="x", tools=[weather], experimental_repair_tool_call=fixing))
    assert result.tool_results[0].output == "sunny in A"
    model = ScriptedAdapter([tool_call("x", call_id="c1")])
    result = run(
        generate_text(
            model, prompt="x", tools=[weather], experimental_repair_tool_call=fixing, repair_tool_call=lambda c: None
        )
    )
    assert result.tool_results[0].output_type is OutputType.ERROR_TEXT


def test_repair_failure_reaches_the_model_as_text() -> None:
    # REQ: LOOP-10
    def broken(context: ToolCallRepairContext) -> ToolCallPart:
        raise RuntimeError("repair model offline")

    model = ScriptedAdapter([tool_call("x")])
    result = run(generate_text(model, prompt="x", tools=[weather], repair_tool_call=broken))
    assert (
        result.tool_results[0].output
        == "ToolCallRepairError: Error repairing tool call: RuntimeError: repair model offline"
    )


def test_refine_tool_input() -> None:
    # REQ: LOOP-10
    model = ScriptedAdapter([tool_call("weather", {"city": "lisbon"})])
    result = run(
        generate_text(
            model, prompt="x", tools=[weather], refine_tool_input={"weather": lambda i: {"city": i["city"].upper()}}
        )
    )
    assert result.tool_calls[0].input == {"city": "LISBON"}
    assert result.tool_results[0].output == "sunny in LISBON"


# --- output types (LOOP-11, EXE-3) -----------------------------------------------------------------


async def _typed(arguments: dict[str, Any]) -> Any:
    kind = arguments["kind"]
    if kind == "text":
        return "plain words"
    if kind == "json":
        return {"temperature": 20}
    if kind == "json-text":
        return '{"temperature": 20}'
    if kind == "error-json":
        return ToolExecutionResult(json_content={"code": 7}, output_type=OutputType.ERROR_JSON)
    if kind == "content":
        return ToolExecutionResult(content=[{"type": "text", "text": "hi"}])
    if kind == "blocked":
        raise ToolExecutionBlockedError("not allowed here")
    raise ValueError("exploded")


TYPED = function_tool(
    "typed", "Typed.", {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]}, _typed
)


@pytest.mark.parametrize(
    ("kind", "output_type", "output"),
    [
        ("text", OutputType.TEXT, "plain words"),
        ("json", OutputType.JSON, {"temperature": 20}),
        ("json-text", OutputType.JSON, {"temperature": 20}),
        ("error-json", OutputType.ERROR_JSON, {"code": 7}),
        ("content", OutputType.CONTENT, [{"type": "text", "text": "hi"}]),
        ("blocked", OutputType.ERROR_TEXT, "not allowed here"),
        ("failure", OutputType.ERROR_TEXT, "Tool execution failed: exploded"),
    ],
)
def test_output_types_are_inferred(
    kind: str, output_type: OutputType, output: Any, caplog: pytest.LogCaptureFixture
) -> None:
    # REQ: LOOP-11, EXE-3, EXE-1
    model = ScriptedAdapter([tool_call("typed", {"kind": kind})])
    with caplog.at_level(logging.CRITICAL):
        result = run(generate_text(model, prompt="x", tools=[TYPED]))
    part = result.tool_results[0] if kind != "failure" and kind != "blocked" else result.steps[0].content[-1]
    assert isinstance(part, ToolResultPart)
    assert (part.output_type, part.output) == (output_type, output)


def test_denied_output_type_is_execution_denied() -> None:
    # REQ: LOOP-11
    deleting = function_tool("d", "D.", {"type": "object", "properties": {}}, lambda a: "x", needs_approval=True)
    result = run(
        generate_text(ScriptedAdapter([tool_call("d")]), prompt="x", tools=[deleting], approve_tool=lambda r: False)
    )
    assert result.steps[0].content[-1].output_type is OutputType.EXECUTION_DENIED  # type: ignore[union-attr]


# --- provider-executed tools (LOOP-12) ----------------------------------------------------------------


def test_provider_executed_calls_are_kept_and_do_not_start_a_step() -> None:
    # REQ: LOOP-12, DEF-8
    search = provider_defined_tool("openai.web_search", "web_search", {"search_context_size": "low"})
    call = tool_call(
        "web_search",
        {"query": "news"},
        call_id="ws1",
        provider_executed=True,
        provider_metadata={"openai": {"itemId": "ws_1"}},
    )
    provider_result = ToolResultPart("ws1", "web_search", {"results": []}, OutputType.JSON, provider_executed=True)
    model = ScriptedAdapter([Round([call, provider_result, TextPart("Nothing new.")], "stop")])
    result = run(generate_text(model, prompt="x", tools=[search], stop_when=loop_finished()))
    assert calls_of(model) == 1 and result.text == "Nothing new."
    assert [p.type for p in result.content] == ["tool-call", "tool-result", "text"]
    assert result.tool_results == [provider_result]
    assert result.content[0].provider_metadata == {"openai": {"itemId": "ws_1"}}  # type: ignore[union-attr]


def test_provider_results_are_replayed_when_a_client_call_continues() -> None:
    # REQ: LOOP-12
    search = provider_defined_tool("openai.web_search", "web_search")
    call = tool_call("web_search", {}, call_id="ws1", provider_executed=True)
    provider_result = ToolResultPart("ws1", "web_search", "failed", OutputType.ERROR_TEXT, provider_executed=True)
    model = ScriptedAdapter(
        [Round([call, provider_result, tool_call("weather", {"city": "A"}, call_id="w1")], "tool-calls"), "ok"]
    )
    result = run(generate_text(model, prompt="x", tools=[search, weather], stop_when=loop_finished()))
    assert len(result.steps) == 2
    replayed = model.messages[1]
    assert isinstance(replayed, AssistantMessage)
    assert [p.type for p in replayed.content] == ["tool-call", "tool-result", "tool-call"]  # type: ignore[union-attr]
    assert [r.tool_call_id for r in result.steps[0].tool_results] == ["w1"]  # the failed provider result is left out


def test_invalid_provider_executed_call_gets_no_client_error() -> None:
    # REQ: LOOP-12
    search = provider_defined_tool(
        "openai.web_search", "web_search", input_schema={"type": "object", "properties": {"q": {"type": "string"}}}
    )
    call = tool_call("web_search", {"q": 1}, call_id="ws1", provider_executed=True)
    provider_result = ToolResultPart("ws1", "web_search", "done", provider_executed=True)
    result = run(generate_text(ScriptedAdapter([Round([call, provider_result], "stop")]), prompt="x", tools=[search]))
    assert result.content[0].invalid  # type: ignore[union-attr]
    assert result.content[1] == provider_result and len(result.content) == 2


def test_provider_approval_request_ends_the_step() -> None:
    # REQ: LOOP-12
    call = tool_call("mcp_delete", {}, call_id="m1", provider_executed=True, dynamic=True)
    model = ScriptedAdapter([Round([call, ToolApprovalRequestPart("mcp-approval-1", "m1")], "tool-calls")])
    result = run(generate_text(model, prompt="x", stop_when=loop_finished()))
    assert result.stop_reason == "provider-approval" and result.finish_reason == "tool-calls"
    assert result.response_messages == [AssistantMessage(result.content)]


# --- limits (LOOP-2) ----------------------------------------------------------------------------------


def test_max_tool_calls_asks_for_a_final_answer_without_tools() -> None:
    # REQ: LOOP-2
    model = ScriptedAdapter(
        [
            tool_call("weather", {"city": "A"}),
            [tool_call("weather", {"city": "B"}), tool_call("weather", {"city": "C"})],
            "final",
        ]
    )
    result = run(generate_text(model, prompt="x", tools=[weather], max_tool_calls=2, stop_when=loop_finished()))
    assert result.text == "final" and result.stop_reason == "limit"
    final_request = model.requests[-1]
    assert final_request.final_answer and not final_request.tools and final_request.tool_choice is ToolChoice.NONE
    outputs = [r.output for r in result.steps[1].tool_results]
    assert outputs[0] == "sunny in B"
    assert outputs[1].startswith("ToolCallError: Tool call limit of 2 reached")
    # every call has a trace; the one over the limit did not run
    assert [t.status for t in result.traces] == [CallStatus.OK, CallStatus.OK, CallStatus.ERROR]
    # the final-answer round says in words why the tools are gone
    assert "The limit of 2 tool calls was reached." in final_request.instructions[-1].content


def test_max_result_chars_asks_for_a_final_answer() -> None:
    # REQ: LOOP-2
    model = ScriptedAdapter(
        [[tool_call("echo", {"value": "x" * 30}), tool_call("echo", {"value": "y" * 30})], "summary"]
    )
    result = run(generate_text(model, prompt="x", tools=[echo], max_result_chars=40, stop_when=loop_finished()))
    assert result.text == "summary" and model.requests[-1].final_answer
    first, second = result.steps[0].tool_results
    assert first.output == "x" * 30
    assert second.output.startswith("y" * 10 + "\n[truncated")


def _unanswered_calls(messages: list[Message]) -> list[str]:
    answered = {p.tool_call_id for m in messages if isinstance(m, ToolMessage) for p in m.content}
    return [
        p.tool_call_id
        for m in messages
        if isinstance(m, AssistantMessage)
        for p in m.content
        if isinstance(p, ToolCallPart) and p.tool_call_id not in answered
    ]


def test_a_call_in_the_final_round_is_answered_with_an_error_and_one_more_round_gets_the_answer() -> None:
    # REQ: LOOP-2
    model = ScriptedAdapter(
        [tool_call("weather", {"city": "A"}), tool_call("weather", {"city": "B"}, call_id="late"), "answer"]
    )
    result = run(generate_text(model, prompt="x", tools=[weather], max_tool_calls=1, stop_when=loop_finished()))
    assert result.stop_reason == "limit" and result.text == "answer"
    assert [t.status for t in result.traces] == [CallStatus.OK, CallStatus.ERROR]  # the late call never ran
    late = result.steps[1].tool_results[0]
    assert late.tool_call_id == "late" and late.is_error and "The limit of 1 tool calls was reached." in late.output
    assert not _unanswered_calls(result.response_messages)
    assert [r.final_answer for r in model.requests] == [False, True, True]


def test_a_model_that_keeps_calling_after_the_limit_ends_with_its_own_stop_reason() -> None:
    # REQ: LOOP-2
    model = ScriptedAdapter(
        [tool_call("weather", {"city": "A"}), tool_call("weather", {"city": "B"}), tool_call("weather", {"city": "C"})]
    )
    result = run(generate_text(model, prompt="x", tools=[weather], max_tool_calls=1, stop_when=loop_finished()))
    assert result.stop_reason == "limit-no-answer" and len(model.requests) == 3
    assert not _unanswered_calls(result.response_messages)
    assert len(result.traces) == 3


# --- events, sources, confidence, usage, traces (LOOP-3, EXE-3) -----------------------------------------


def test_events_sources_confidence_usage_and_traces() -> None:
    # REQ: LOOP-3, EXE-3, EXE-2
    async def read(arguments: dict[str, Any]) -> ToolExecutionResult:
        url = arguments["url"]
        return ToolExecutionResult(
            text_content=f"page {url}",
            sources=[Source(url=url, title=url.upper())],
            required_provider_confidence=ConfidenceLevel.HIGH if "private" in url else ConfidenceLevel.LOW,
        )

    reader = function_tool(
        "read",
        "Reads.",
        {"type": "object", "properties": {"url": {"type": "string"}, "token": {"type": "string"}}},
        read,
        sensitive_argument_names={"token"},
    )
    events: list[str] = []

    async def on_event(event: LoopEvent) -> None:
        events.append(event.type)

    model = ScriptedAdapter(
        [
            tool_calls_round(tool_call("read", {"url": "a", "token": "s3cret"}), usage=Usage(10, 5)),
            tool_calls_round(
                tool_call("read", {"url": "private"}), tool_call("read", {"url": "a"}), usage=Usage(20, 5)
            ),
            text_round("done", usage=Usage(30, 1)),
        ]
    )
    result = run(generate_text(model, prompt="x", tools=[reader], on_event=on_event, stop_when=loop_finished()))
    assert [s.url for s in result.sources] == ["a", "private"]
    assert result.required_provider_confidence is ConfidenceLevel.HIGH
    assert (result.usage.input_tokens, result.usage.output_tokens, result.usage.total_tokens) == (60, 11, 71)
    assert len(result.traces) == 3 and result.traces[0].arguments == {"url": "a", "token": "[redacted]"}
    # tools of one step may interleave; each step is bracketed by its start and finish
    assert [e for e in events if e.startswith("step")] == ["step-start", "step-finish"] * 3
    assert events[:4] == ["step-start", "tool-running", "tool-finished", "step-finish"]
    assert events.count("tool-running") == events.count("tool-finished") == 3


# --- the host's way in (LOOP-1) -----------------------------------------------------------------------


def test_loop_accepts_registered_tools_an_executor_and_a_scope() -> None:
    # REQ: LOOP-1
    lookups: list[str] = []

    def settings_lookup(registered: RegisteredTool) -> tuple[dict[str, Any], list[str]]:
        lookups.append(registered.id)
        return {}, []

    executor = ToolExecutor(settings_lookup)
    registered = RegisteredTool.from_implementation(weather)
    scope = CallScope(component="chat", provider_id="p", provider_confidence=ConfidenceLevel.LOW, model="m")
    model = ScriptedAdapter([tool_call("weather", {"city": "A"}), "ok"])
    loop = ToolCallingLoop(
        model,
        [registered],
        executor=executor,
        scope=scope,
        options=LoopOptions(tool_call_concurrency=1, max_tool_calls=5, max_result_chars=1000),
    )
    result = run(loop.run([UserMessage("hi")]))
    assert result.text == "ok" and result.stop_reason == "answered"
    assert model.messages[0] == UserMessage("hi")
    with pytest.raises(UsageError):
        run(loop.run([UserMessage("again")]))


def test_confidence_too_low_is_blocked_for_the_model() -> None:
    # REQ: EXE-1, LOOP-3
    guarded = function_tool(
        "guarded", "G.", {"type": "object", "properties": {}}, lambda a: "x", minimum_provider_confidence="high"
    )
    scope = CallScope(provider_id="p", provider_confidence=ConfidenceLevel.LOW)
    result = run(generate_text(ScriptedAdapter([tool_call("guarded")]), prompt="x", tools=[guarded], scope=scope))
    assert result.traces[0].status is CallStatus.BLOCKED
    assert result.tool_results[0].output_type is OutputType.ERROR_TEXT


def test_prompt_and_messages_are_exclusive() -> None:
    # REQ: LOOP-1
    with pytest.raises(InvalidArgumentError):
        run(generate_text(ScriptedAdapter(["x"]), prompt="a", messages=[UserMessage("b")]))
    with pytest.raises(InvalidArgumentError):
        run(generate_text(ScriptedAdapter(["x"])))


# --- streaming (LOOP-14) ----------------------------------------------------------------------------


def test_stream_text_parts() -> None:
    # REQ: LOOP-14
    model = ScriptedAdapter(
        [tool_calls_round(tool_call("weather", {"city": "A"}), text="Let me see."), "Sunny."], chunk_size=4
    )
    stream = stream_text(model, prompt="x", tools=[weather], stop_when=loop_finished())

    async def collect() -> list[Any]:
        return [part async for part in stream]

    parts = run(collect())
    types = [p.type for p in parts]
    assert types[:3] == ["start-step", "text-delta", "text-delta"]
    assert types.index("tool-input-start") < types.index("tool-call") < types.index("tool-result")
    assert types[-1] == "finish"
    assert "".join(p.text for p in parts if p.type == "text-delta") == "Let me see.Sunny."
    assert stream.result.text == "Sunny."


def test_stream_tool_input_start_gets_the_offered_tools_title_metadata_and_dynamic() -> None:
    # REQ: LOOP-14, DEF-8
    titled = function_tool("weather", "W.", CITY, lambda a: "sunny", title="Weather", metadata={"category": "forecast"})
    lookup = dynamic_tool("lookup", "L.", {"type": "object", "properties": {}}, lambda _: 1)
    model = ScriptedAdapter(
        [
            tool_calls_round(
                tool_call("weather", {"city": "A"}, call_id="c1"),
                tool_call("lookup", {}, call_id="d1"),
                tool_call("missing", {}, call_id="u1"),
            )
        ]
    )
    stream = stream_text(model, prompt="x", tools=[titled, lookup])

    async def collect() -> list[Any]:
        return [part async for part in stream]

    starts = [p for p in run(collect()) if isinstance(p, ToolInputStartDelta)]
    assert [(p.tool_call_id, p.title, p.tool_metadata, p.dynamic) for p in starts] == [
        ("c1", "Weather", {"category": "forecast"}, False),
        ("d1", None, None, True),
        ("u1", None, None, True),
    ]


def test_stream_of_a_continued_run_starts_with_the_answered_calls() -> None:
    # REQ: LOOP-14, LOOP-7, EXE-3
    async def read(arguments: dict[str, Any]) -> ToolExecutionResult:
        return ToolExecutionResult(text_content="page", sources=[Source(url="https://a.example/")])

    empty = {"type": "object", "properties": {}}
    reader = function_tool("read", "R.", empty, read, needs_approval=True)
    delete = function_tool("delete", "D.", empty, lambda _: "deleted", needs_approval=True)
    history: list[Message] = [
        UserMessage("x"),
        AssistantMessage(
            [
                ToolCallPart("r1", "read", {}),
                ToolApprovalRequestPart("approval-r1", "r1"),
                ToolCallPart("d1", "delete", {}),
                ToolApprovalRequestPart("approval-d1", "d1"),
            ]
        ),
        ToolMessage([ToolApprovalResponsePart("approval-r1", True), ToolApprovalResponsePart("approval-d1", False)]),
    ]
    stream = stream_text(ScriptedAdapter(["done"]), messages=history, tools=[reader, delete])

    async def collect() -> list[Any]:
        return [part async for part in stream]

    parts = run(collect())
    assert [p.type for p in parts[:3]] == ["tool-result", "tool-result", "start-step"]
    denied, done = parts[0], parts[1]
    assert isinstance(denied, ToolResultStreamPart) and isinstance(done, ToolResultStreamPart)
    assert (denied.result.tool_call_id, denied.result.output_type) == ("d1", OutputType.EXECUTION_DENIED)
    assert (done.result.tool_call_id, done.result.output) == ("r1", "page")
    assert list(done.sources) == [Source(url="https://a.example/")] and not denied.sources
    assert stream.result.sources == [Source(url="https://a.example/")]


def test_stream_withholds_tool_parts_under_tool_choice_none() -> None:
    # REQ: LOOP-14, LOOP-8
    model = ScriptedAdapter([tool_calls_round(tool_call("weather", {"city": "A"}), text="Hm.")])
    stream = stream_text(model, prompt="x", tools=[weather], tool_choice="none")
    seen: list[str] = []

    async def collect() -> None:
        async for part in stream:
            seen.append(part.type)

    with pytest.raises(ToolChoiceViolationError):
        run(collect())
    assert "text-delta" in seen
    assert not [t for t in seen if t.startswith("tool")]


def test_stream_text_stream_and_final() -> None:
    # REQ: LOOP-14
    async def main() -> tuple[list[str], str]:
        stream = stream_text(ScriptedAdapter(["abcdef"], chunk_size=2), prompt="x")
        texts = [text async for text in stream.text_stream]
        return texts, stream.result.text

    assert run(main()) == (["ab", "cd", "ef"], "abcdef")

    async def final_only() -> str:
        return (await stream_text(ScriptedAdapter(["abc"]), prompt="x").final()).text

    assert run(final_only()) == "abc"


def test_agent_stream() -> None:
    # REQ: LOOP-14, LOOP-4
    agent = Agent(lambda: ScriptedAdapter([tool_call("weather", {"city": "A"}), "Sunny."]), tools=[weather])

    async def main() -> str:
        stream = agent.stream(prompt="x")
        return (await stream.final()).text

    assert run(main()) == "Sunny."


def test_response_messages_hold_the_run() -> None:
    # REQ: LOOP-1
    model = ScriptedAdapter([tool_call("weather", {"city": "A"}, call_id="c"), "ok"])
    history: list[Message] = [UserMessage("x")]
    result = run(generate_text(model, messages=history, tools=[weather], stop_when=loop_finished()))
    assert history == [UserMessage("x")]
    assert result.response_messages == [
        AssistantMessage([ToolCallPart("c", "weather", {"city": "A"})]),
        ToolMessage([ToolResultPart("c", "weather", "sunny in A")]),
        AssistantMessage([TextPart("ok")]),
    ]
    assert model.requests[1].step_number == 1 and isinstance(model.requests[1], RoundRequest)


def test_max_steps_ends_with_a_final_answer_round_without_tools() -> None:
    # REQ: LOOP-2
    model = ScriptedAdapter(
        [
            tool_call("weather", {"city": "A"}, call_id="a"),
            tool_call("weather", {"city": "B"}, call_id="b"),
            "Final answer.",
        ]
    )
    loop = ToolCallingLoop(model, tools=[weather], options=LoopOptions(max_steps=2))
    result = run(loop.run([UserMessage("go")]))
    assert result.stop_reason == "limit" and result.text == "Final answer."
    assert [bool(request.tools) for request in model.requests] == [True, True, False]
    assert model.requests[-1].final_answer
    with pytest.raises(InvalidArgumentError, match="max_steps"):
        ToolCallingLoop(ScriptedAdapter(["x"]), tools=[weather], options=LoopOptions(max_steps=0))
