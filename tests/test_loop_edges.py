"""The edges of a run: confidence within a run, errors that keep what happened, typed refine failures,
calls cut short by the token limit, and the system messages and files each API gets."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import pytest
from _provider_server import Reply, a_text, anthropic_message, chat_completion, provider_server

from toolplug.calls import ToolChoice
from toolplug.config import ProviderSection
from toolplug.definitions import ConfidenceLevel, OutputType, ToolExecutionResult
from toolplug.errors import ProviderHTTPError, ToolChoiceViolationError, ToolInputRefineError, UsageError
from toolplug.execution import CallScope, CallStatus
from toolplug.loop import CUT_OFF_HINT, PrepareStep, ToolCallingLoop, generate_text, loop_finished
from toolplug.messages import (
    AssistantMessage,
    SystemMessage,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from toolplug.providers.anthropic import ADAPTER_FACTORY as ANTHROPIC
from toolplug.providers.base import Round, RoundRequest
from toolplug.providers.http import RetryPolicy
from toolplug.providers.openai_chat import ADAPTER_FACTORY as CHAT
from toolplug.testing import ScriptedAdapter, tool_call
from toolplug.tools import function_tool

SCHEMA = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}


def secret_tool(level: ConfidenceLevel = ConfidenceLevel.HIGH) -> Any:
    return function_tool(
        "read_mail",
        "Reads mail.",
        SCHEMA,
        lambda args: ToolExecutionResult(text_content="the private mail", required_provider_confidence=level),
    )


def echo_tool() -> Any:
    return function_tool("echo", "Echoes.", SCHEMA, lambda args: f"echo {args['q']}")


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


# --- SEL-9: confidence within a run --------------------------------------------------------------------


def low_scope(trusted: bool = False) -> CallScope:
    return CallScope(provider_id="cheap", provider_confidence=ConfidenceLevel.LOW, provider_trusted=trusted)


def test_a_result_needing_more_confidence_never_reaches_the_untrusted_provider() -> None:
    # REQ: SEL-9
    model = ScriptedAdapter([tool_call("read_mail", {"q": "x"}, call_id="m1"), "never asked"])
    result = run(generate_text(model, prompt="x", tools=[secret_tool()], scope=low_scope(), stop_when=loop_finished()))
    assert result.stop_reason == "confidence-required"
    assert len(model.requests) == 1  # the model was not asked again
    assert "m1" not in model.results  # nor was the result recorded for it
    assert [r.tool_call_id for r in result.withheld_results] == ["m1"]
    assert "requires provider confidence high" in (result.stop_detail or "")
    # kept for the host: the result is in the response messages and the step
    assert result.response_messages[-1].content[0].output == "the private mail"  # type: ignore[union-attr]


def test_a_trusted_or_confident_provider_gets_the_result() -> None:
    # REQ: SEL-9
    for scope in (low_scope(trusted=True), CallScope(provider_confidence=ConfidenceLevel.HIGH)):
        model = ScriptedAdapter([tool_call("read_mail", {"q": "x"}), "done"])
        result = run(generate_text(model, prompt="x", tools=[secret_tool()], scope=scope, stop_when=loop_finished()))
        assert result.stop_reason == "answered" and not result.withheld_results


def test_an_approved_call_whose_result_needs_more_confidence_stops_before_the_model_is_asked() -> None:
    # REQ: SEL-9
    call = ToolCallPart("m1", "read_mail", {"q": "x"})
    history = [
        UserMessage("x"),
        AssistantMessage([call, ToolApprovalRequestPart("a1", "m1")]),
        ToolMessage([ToolApprovalResponsePart("a1", True)]),
    ]
    model = ScriptedAdapter(["never asked"])
    loop = ToolCallingLoop(model, [secret_tool()], scope=low_scope())
    result = run(loop.run(history))
    assert result.stop_reason == "confidence-required" and model.requests == []
    assert [r.tool_call_id for r in result.withheld_results] == ["m1"]


# --- errors keep what happened ------------------------------------------------------------------------


def test_a_tool_choice_violation_carries_the_steps_that_already_ran() -> None:
    # REQ: LOOP-8
    model = ScriptedAdapter([tool_call("echo", {"q": "a"}), tool_call("echo", {"q": "b"})])

    def none_after_first(context: Any) -> PrepareStep | None:
        return PrepareStep(tool_choice="none") if context.step_number == 1 else None

    with pytest.raises(ToolChoiceViolationError) as caught:
        run(
            generate_text(
                model, prompt="x", tools=[echo_tool()], prepare_step=none_after_first, stop_when=loop_finished()
            )
        )
    partial = caught.value.partial_result
    assert partial is not None and partial.stop_reason == "provider-error"
    assert [t.tool_id for t in partial.traces] == ["echo"] and len(partial.steps) == 1


def test_a_named_tool_choice_for_a_tool_not_offered_is_refused_before_any_request() -> None:
    # REQ: LOOP-8
    model = ScriptedAdapter(["x"])
    with pytest.raises(UsageError, match="'nope' names a tool that is not offered"):
        run(generate_text(model, prompt="x", tools=[echo_tool()], tool_choice=ToolChoice.tool("nope")))
    with pytest.raises(UsageError, match="not offered"):
        run(
            generate_text(
                model,
                prompt="x",
                tools=[echo_tool(), secret_tool()],
                active_tools=["echo"],
                tool_choice=ToolChoice.tool("read_mail"),
            )
        )
    assert model.requests == []


def test_a_raising_refine_is_a_typed_tool_call_error_and_the_run_goes_on() -> None:
    # REQ: LOOP-10
    def refine(arguments: Any) -> Any:
        raise ValueError("refiner broke")

    model = ScriptedAdapter([tool_call("echo", {"q": "a"}), "sorry"])
    result = run(
        generate_text(
            model, prompt="x", tools=[echo_tool()], refine_tool_input={"echo": refine}, stop_when=loop_finished()
        )
    )
    call = result.steps[0].tool_calls[0]
    assert call.invalid and isinstance(call.error, ToolInputRefineError)
    assert result.steps[0].tool_results[0].output.startswith("ToolInputRefineError: ")
    assert result.traces[0].status is CallStatus.ERROR and result.text == "sorry"


def test_arguments_cut_short_by_the_token_limit_say_so_and_have_a_trace() -> None:
    # REQ: LOOP-10
    cut = Round([ToolCallPart("c1", "echo", '{"q": "the begin')], "tool-calls")
    model = ScriptedAdapter([cut, "ok"])
    result = run(generate_text(model, prompt="x", tools=[echo_tool()], stop_when=loop_finished()))
    output = result.steps[0].tool_results[0].output
    assert output.startswith("InvalidToolInputError: ") and output.endswith(CUT_OFF_HINT)
    assert result.traces[0].call_id == "c1" and CUT_OFF_HINT in (result.traces[0].error or "")
    # a JSON that is simply wrong (not cut short) gets no such hint
    model = ScriptedAdapter([Round([ToolCallPart("c2", "echo", '{"q": }')], "tool-calls"), "ok"])
    result = run(generate_text(model, prompt="x", tools=[echo_tool()], stop_when=loop_finished()))
    assert CUT_OFF_HINT not in result.steps[0].tool_results[0].output


def test_a_provider_error_after_a_tool_ran_keeps_it_and_the_recording_has_every_attempt(tmp_path: Path) -> None:
    # REQ: WIRE-5
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "echo", '{"q": "a"}')])),
            Reply(503, {"error": {"message": "busy"}}),
            Reply(503, {"error": {"message": "still busy"}}),
        )
        profile = ProviderSection(api="openai-chat", model="m", base_url=server.url)
        adapter = CHAT.create(
            profile, provider_id="local", retry=RetryPolicy(1, backoff_base=0.0), record_dir=tmp_path / "rec"
        )
        with pytest.raises(ProviderHTTPError) as caught:
            run(generate_text(adapter, prompt="x", tools=[echo_tool()], stop_when=loop_finished()))
    assert [t.tool_id for t in caught.value.partial_result.traces] == ["echo"]  # type: ignore[union-attr]
    files = sorted((tmp_path / "rec").iterdir())
    exchanges = [json.loads(f.read_text()) for f in files]
    assert [e["response"]["status"] for e in exchanges] == [200, 503, 503]  # the retried attempt too
    assert [e.get("attempt") for e in exchanges[1:]] == [1, 2]
    assert all("duration_ms" in e for e in exchanges)


# --- system messages and files on the wire -------------------------------------------------------------


def request(instructions: list[SystemMessage]) -> RoundRequest:
    return RoundRequest(0, instructions, [], ToolChoice.AUTO)


def anthropic_body(conversation: list[Any], instructions: list[SystemMessage], base_url: str) -> tuple[str, Any]:
    with provider_server() as server:
        server.reply(Reply(200, anthropic_message(a_text("hi"))))
        adapter = ANTHROPIC.create(
            ProviderSection(api="anthropic", model="c", base_url=base_url.format(url=server.url)),
            provider_id="a",
            api_key="k-anthropic",
            retry=RetryPolicy(0),
        )
        adapter.begin(conversation)
        run(adapter.run_round(request(instructions)))
    return server.requests[0].path, server.requests[0].body


def test_system_provider_options_reach_the_anthropic_wire_and_a_v1_base_url_is_not_doubled() -> None:
    # REQ: LOOP-5
    cached = SystemMessage("Long policy.", provider_metadata={"anthropic": {"cache_control": {"type": "ephemeral"}}})
    path, body = anthropic_body([UserMessage("x")], [cached, SystemMessage("")], "{url}/v1")
    assert path == "/v1/messages"
    assert body["system"] == [{"type": "text", "text": "Long policy.", "cache_control": {"type": "ephemeral"}}]


def test_empty_instructions_send_no_system_message_and_openai_options_reach_the_message() -> None:
    # REQ: LOOP-5
    with provider_server() as server:
        server.reply(Reply(200, chat_completion("hi")))
        adapter = CHAT.create(ProviderSection(api="openai-chat", model="m", base_url=server.url), provider_id="o")
        adapter.begin([UserMessage("x")])
        named = SystemMessage("Rules.", provider_metadata={"openai": {"name": "policy"}})
        run(adapter.run_round(request([SystemMessage(""), named])))
    messages = server.bodies()[0]["messages"]
    assert messages[0] == {"role": "system", "content": "Rules.", "name": "policy"}
    assert [m["role"] for m in messages] == ["system", "user"]


def file_result(media_type: str, data: bytes) -> ToolMessage:
    part = {"type": "file", "media_type": media_type, "data": base64.b64encode(data).decode()}
    return ToolMessage([ToolResultPart("c1", "get", [part], OutputType.CONTENT)])


@pytest.mark.parametrize(
    ("media_type", "data", "expected"),
    [
        (
            "text/plain",
            b"plain words",
            {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "plain words"}},
        ),
        ("application/pdf", b"%PDF-1.4", {"type": "document"}),
        ("application/gzip", b"\x1f\x8b\x08", {"type": "text"}),
        ("image/png", b"\x89PNG", {"type": "image"}),
    ],
)
def test_a_file_result_goes_to_anthropic_as_its_kind_never_as_a_fake_image(
    media_type: str, data: bytes, expected: dict[str, Any]
) -> None:
    # REQ: WIRE-4
    conversation = [
        UserMessage("x"),
        AssistantMessage([ToolCallPart("c1", "get", {})]),
        file_result(media_type, data),
    ]
    _, body = anthropic_body(conversation, [], "{url}")
    block = body["messages"][-1]["content"][0]["content"][0]
    assert {key: block[key] for key in expected} == expected
    if media_type == "application/gzip":
        assert "binary content not shown" in block["text"]


# --- the CLI says how a turn ended ---------------------------------------------------------------------


def cli_run(tmp_path: Path, url: str, api: str, *arguments: str) -> Any:
    from click.testing import CliRunner

    from toolplug import hookimpl
    from toolplug.cli import cli
    from toolplug.config import load_config
    from toolplug.host import Host

    class Plugin:
        @hookimpl
        def register_tools(self) -> list[Any]:
            return [echo_tool()]

    config = tmp_path / "host.toml"
    config.write_text(
        f'[providers.local]\napi = "{api}"\nmodel = "m"\nbase_url = "{url}"\nserver = "official"\nmax_retries = 0\n',
        encoding="utf-8",
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            Host,
            "from_config",
            classmethod(
                lambda cls, path=None, **o: cls(
                    load_config(path), plugins=[Plugin()], load_entry_points=False, settings_dir=tmp_path / "s"
                )
            ),
        )
        return CliRunner().invoke(cli, ["--config", str(config), "chat", "x", *arguments])


def test_an_id_less_responses_call_ends_the_chat_visibly_with_exit_1(tmp_path: Path) -> None:
    # REQ: WIRE-3
    # REQ: UX-1
    from _provider_server import r_call, responses_object

    with provider_server() as server:
        server.reply(Reply(200, responses_object(r_call(None, "echo", '{"q": "a"}'))))
        result = cli_run(tmp_path, server.url, "openai-responses")
    assert result.exit_code == 1, result.output
    assert "Stopped (provider-ended)" in result.output and "Traceback" not in result.output


def test_a_provider_error_in_the_cli_names_the_tools_that_already_ran(tmp_path: Path) -> None:
    # REQ: UX-1
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "echo", '{"q": "a"}')])), Reply(400, {"error": {"message": "bad"}})
        )
        text = cli_run(tmp_path, server.url, "openai-chat")
    with provider_server() as server:
        server.reply(
            Reply(200, chat_completion(None, [("c1", "echo", '{"q": "a"}')])), Reply(400, {"error": {"message": "bad"}})
        )
        as_json = cli_run(tmp_path, server.url, "openai-chat", "--json")
    assert text.exit_code == 1 and "Before the error, 1 tool call(s) had run: echo (ok)." in text.output
    assert "Traceback" not in text.output
    shape = json.loads(as_json.stdout)
    assert shape["error"]["type"] == "ProviderHTTPError"
    assert [t["tool_id"] for t in shape["partial"]["traces"]] == ["echo"]
