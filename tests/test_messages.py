"""The canonical conversation: pruning and conversion from UI messages (toolplug.messages)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolplug.definitions import OutputType
from toolplug.errors import InvalidArgumentError
from toolplug.messages import (
    TOOL_NO_LONGER_AVAILABLE,
    AssistantMessage,
    DataUIPart,
    FilePart,
    FileUIPart,
    Message,
    PruneToolCallsRule,
    ReasoningFileUIPart,
    ReasoningPart,
    ReasoningUIPart,
    SourceUrlUIPart,
    StepStartUIPart,
    SystemMessage,
    TextPart,
    TextUIPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    ToolUIApproval,
    ToolUIPart,
    UIMessage,
    UserMessage,
    convert_to_model_messages,
    prune_messages,
)


def weather_conversation() -> list[Message]:
    return [
        UserMessage("Weather in Lisbon and Porto?"),
        AssistantMessage(
            [
                ReasoningPart("I should look both up.", {"anthropic": {"signature": "sig-1"}}),
                ToolCallPart("c1", "weather", {"city": "Lisbon"}),
                ToolCallPart("c2", "search", {"q": "Porto"}),
            ]
        ),
        ToolMessage([ToolResultPart("c1", "weather", "sunny")]),
        ToolMessage([ToolResultPart("c2", "search", "rainy")]),
        AssistantMessage([ReasoningPart("Now answer."), TextPart("Sunny in Lisbon, rain in Porto.")]),
        UserMessage("And tomorrow?"),
        AssistantMessage([ToolCallPart("c3", "weather", {"city": "Lisbon"})]),
        ToolMessage([ToolResultPart("c3", "weather", "cloudy")]),
    ]


def test_parts_keep_provider_metadata() -> None:
    # REQ: LOOP-12
    metadata = {"anthropic": {"signature": "abc"}}
    part = ReasoningPart("thinking", metadata)
    assert part.provider_metadata is metadata
    assert ToolCallPart("c", "t", {}, provider_metadata=metadata).provider_metadata == metadata
    assert ToolResultPart("c", "t", {"error": 1}, OutputType.ERROR_JSON).is_error


def test_prune_reasoning_all_keeps_files() -> None:
    # REQ: LOOP-13
    messages: list[Message] = [
        AssistantMessage([ReasoningPart("r"), FilePart("https://x/y.png", "image/png"), TextPart("t")])
    ]
    pruned = prune_messages(messages, reasoning="all")
    assert pruned[0].content == [FilePart("https://x/y.png", "image/png"), TextPart("t")]


def test_prune_reasoning_before_last_message() -> None:
    # REQ: LOOP-13
    messages: list[Message] = [
        AssistantMessage([ReasoningPart("old"), TextPart("a")]),
        UserMessage("q"),
        AssistantMessage([ReasoningPart("new"), TextPart("b")]),
    ]
    pruned = prune_messages(messages, reasoning="before-last-message")
    assert pruned[0].content == [TextPart("a")]
    assert pruned[2].content == [ReasoningPart("new"), TextPart("b")]


def test_prune_example_of_the_sdk_text() -> None:
    # REQ: LOOP-13 — Reasoning=All, ToolCalls=[BeforeLastMessages(2, ["weather"])]
    messages = weather_conversation()
    before = copy.deepcopy(messages)
    pruned = prune_messages(
        messages, reasoning="all", tool_calls=[PruneToolCallsRule.before_last_messages(2, ["weather"])]
    )
    assert messages == before
    assert pruned == [
        UserMessage("Weather in Lisbon and Porto?"),
        AssistantMessage([ToolCallPart("c2", "search", {"q": "Porto"})]),
        ToolMessage([ToolResultPart("c2", "search", "rainy")]),
        AssistantMessage([TextPart("Sunny in Lisbon, rain in Porto.")]),
        UserMessage("And tomorrow?"),
        AssistantMessage([ToolCallPart("c3", "weather", {"city": "Lisbon"})]),
        ToolMessage([ToolResultPart("c3", "weather", "cloudy")]),
    ]


def test_prune_all_tool_calls_removes_empty_messages() -> None:
    # REQ: LOOP-13
    pruned = prune_messages(weather_conversation(), tool_calls=[PruneToolCallsRule.all()])
    assert all(not isinstance(m, ToolMessage) for m in pruned)
    assert not any(isinstance(p, ToolCallPart) for m in pruned if isinstance(m, AssistantMessage) for p in m.parts)
    # the reasoning before the pruned calls goes with them; the one before the text stays
    assert pruned[1] == AssistantMessage([ReasoningPart("Now answer."), TextPart("Sunny in Lisbon, rain in Porto.")])


def test_prune_keep_empty_messages() -> None:
    # REQ: LOOP-13
    pruned = prune_messages(weather_conversation(), tool_calls=[PruneToolCallsRule.all()], empty_messages="keep")
    assert len(pruned) == len(weather_conversation())
    assert pruned[2] == ToolMessage([])


def test_consecutive_tool_messages_count_as_one() -> None:
    # REQ: LOOP-13 — the last message is the run of two tool messages, so both keep their results
    messages: list[Message] = [
        AssistantMessage([ToolCallPart("a", "t", {}), ToolCallPart("b", "t", {})]),
        ToolMessage([ToolResultPart("a", "t", "1")]),
        ToolMessage([ToolResultPart("b", "t", "2")]),
    ]
    pruned = prune_messages(messages, tool_calls=[PruneToolCallsRule.before_last_message()])
    assert pruned == messages


def test_reasoning_group_rule() -> None:
    # REQ: LOOP-13
    message = AssistantMessage(
        [
            ReasoningPart("r1"),
            ReasoningPart("r2"),
            ToolCallPart("a", "weather", {}),
            ReasoningPart("r3"),
            ToolCallPart("b", "weather", {}),
            TextPart("kept"),
            ReasoningPart("r4"),
        ]
    )
    pruned = prune_messages([message], tool_calls=[PruneToolCallsRule.all(["weather"])])
    # r1+r2 preceded only pruned content; r3 is followed by kept text; r4 has nothing after it
    assert pruned[0].content == [ReasoningPart("r3"), TextPart("kept"), ReasoningPart("r4")]


def test_kept_approval_response_keeps_its_tool_call() -> None:
    # REQ: LOOP-13
    messages: list[Message] = [
        UserMessage("delete it"),
        AssistantMessage([ToolCallPart("c1", "delete", {}), ToolApprovalRequestPart("ap1", "c1")]),
        UserMessage("thinking about it"),
        ToolMessage([ToolApprovalResponsePart("ap1", True)]),
    ]
    pruned = prune_messages(messages, tool_calls=[PruneToolCallsRule.before_last_message()])
    assert pruned[1] == AssistantMessage([ToolCallPart("c1", "delete", {}), ToolApprovalRequestPart("ap1", "c1")])


def test_approval_response_with_unknown_request_is_pruned_when_tools_are_named() -> None:
    # REQ: LOOP-13
    messages: list[Message] = [
        ToolMessage([ToolApprovalResponsePart("unknown", True)]),
        UserMessage("next"),
    ]
    assert prune_messages(messages, tool_calls=[PruneToolCallsRule.before_last_message(["x"])]) == [UserMessage("next")]


def test_prune_rejects_bad_options() -> None:
    # REQ: LOOP-13
    with pytest.raises(InvalidArgumentError):
        PruneToolCallsRule.before_last_messages(0)
    with pytest.raises(InvalidArgumentError):
        prune_messages([], reasoning="some")  # type: ignore[arg-type]


# --- hypothesis -------------------------------------------------------------------------------------

TOOL_NAMES = ["weather", "search", "delete"]


@st.composite
def conversations(draw: st.DrawFn) -> list[Message]:
    messages: list[Message] = []
    counter = 0
    for _ in range(draw(st.integers(0, 6))):
        messages.append(UserMessage(draw(st.sampled_from(["", "hi", "more"]))))
        calls = []
        content: list[Any] = []
        for _ in range(draw(st.integers(0, 3))):
            counter += 1
            if draw(st.booleans()):
                content.append(ReasoningPart(f"r{counter}"))
            call = ToolCallPart(f"c{counter}", draw(st.sampled_from(TOOL_NAMES)), {})
            content.append(call)
            if draw(st.booleans()):
                content.append(ToolApprovalRequestPart(f"a{counter}", call.tool_call_id))
            calls.append(call)
        if draw(st.booleans()):
            content.append(TextPart("answer"))
        messages.append(AssistantMessage(content))
        for call in calls:
            parts: list[Any] = []
            if any(isinstance(p, ToolApprovalRequestPart) and p.tool_call_id == call.tool_call_id for p in content):
                parts.append(ToolApprovalResponsePart(f"a{call.tool_call_id[1:]}", draw(st.booleans())))
            parts.append(ToolResultPart(call.tool_call_id, call.tool_name, "ok"))
            messages.append(ToolMessage(parts))
    return messages


rules = st.one_of(
    st.builds(PruneToolCallsRule.all, st.one_of(st.none(), st.lists(st.sampled_from(TOOL_NAMES), max_size=2))),
    st.builds(PruneToolCallsRule.before_last_message, st.one_of(st.none(), st.lists(st.sampled_from(TOOL_NAMES)))),
    st.builds(
        PruneToolCallsRule.before_last_messages,
        st.integers(1, 5),
        st.one_of(st.none(), st.lists(st.sampled_from(TOOL_NAMES), max_size=2)),
    ),
)


def _ids(messages: list[Message], kind: type) -> set[str]:
    return {
        part.tool_call_id
        for message in messages
        if not isinstance(message.content, str)
        for part in message.content
        if isinstance(part, kind)
    }


@settings(max_examples=150, deadline=None)
@given(
    conversations(),
    st.sampled_from(["none", "all", "before-last-message"]),
    st.lists(rules, max_size=2),
    st.sampled_from(["remove", "keep"]),
)
def test_pruning_never_orphans_results_and_never_mutates(
    messages: list[Message], reasoning: Any, tool_rules: list[PruneToolCallsRule], empty: Any
) -> None:
    # REQ: LOOP-13
    before = copy.deepcopy(messages)
    pruned = prune_messages(messages, reasoning=reasoning, tool_calls=tool_rules, empty_messages=empty)
    assert messages == before
    kept_calls = _ids(pruned, ToolCallPart)
    kept_results = _ids(pruned, ToolResultPart)
    assert kept_results <= kept_calls, "a result is kept while its call was pruned"
    assert kept_calls <= kept_results, "a call is kept while its result was pruned"
    if empty == "remove":
        assert all(len(message.content) > 0 for message in pruned)


# --- UI messages ------------------------------------------------------------------------------------


def test_convert_blocks_split_at_step_start() -> None:
    # REQ: LOOP-13
    ui = [
        UIMessage("s", "system", [TextUIPart("Be brief.")]),
        UIMessage("u", "user", [TextUIPart("Weather?"), FileUIPart("https://x/a.pdf", "application/pdf", "a.pdf")]),
        UIMessage(
            "a",
            "assistant",
            [
                StepStartUIPart(),
                ReasoningUIPart("look it up", provider_metadata={"anthropic": {"signature": "s"}}),
                ToolUIPart(
                    "c1",
                    "weather",
                    "output-available",
                    input={"city": "Lisbon"},
                    output={"forecast": "sunny"},
                    call_provider_metadata={"openai": {"itemId": "fc_1"}},
                ),
                StepStartUIPart(),
                TextUIPart("Sunny."),
                FileUIPart("https://x/chart.png", "image/png"),
                ReasoningFileUIPart("https://x/r.png", "image/png"),
                SourceUrlUIPart("s1", "https://x"),
            ],
        ),
    ]
    assert convert_to_model_messages(ui) == [
        SystemMessage("Be brief."),
        UserMessage([TextPart("Weather?"), FilePart("https://x/a.pdf", "application/pdf", "a.pdf")]),
        AssistantMessage(
            [
                ReasoningPart("look it up", {"anthropic": {"signature": "s"}}),
                ToolCallPart("c1", "weather", {"city": "Lisbon"}, provider_metadata={"openai": {"itemId": "fc_1"}}),
            ]
        ),
        ToolMessage([ToolResultPart("c1", "weather", {"forecast": "sunny"}, OutputType.JSON)]),
        AssistantMessage([TextPart("Sunny.")]),
    ]


def test_convert_incomplete_calls() -> None:
    # REQ: LOOP-13
    ui = [
        UIMessage(
            "a",
            "assistant",
            [
                ToolUIPart("c1", "weather", "input-available", input={"city": "A"}),
                ToolUIPart("c2", "weather", "input-streaming", input=None),
                TextUIPart("..."),
            ],
        )
    ]
    kept = convert_to_model_messages(ui)
    assert kept == [AssistantMessage([ToolCallPart("c1", "weather", {"city": "A"}), TextPart("...")])]
    ignored = convert_to_model_messages(ui, ignore_incomplete_tool_calls=True)
    assert ignored == [AssistantMessage([TextPart("...")])]


def test_convert_data_parts() -> None:
    # REQ: LOOP-13
    ui = [UIMessage("u", "user", [TextUIPart("see"), DataUIPart("weather", {"t": 20}), DataUIPart("skip", 1)])]
    assert convert_to_model_messages(ui) == [UserMessage([TextPart("see")])]

    def convert(part: DataUIPart) -> TextPart | None:
        return TextPart(f"data: {part.data}") if part.name == "weather" else None

    assert convert_to_model_messages(ui, convert_data_part=convert) == [
        UserMessage([TextPart("see"), TextPart("data: {'t': 20}")])
    ]


def test_convert_tool_no_longer_available() -> None:
    # REQ: LOOP-13
    ui = [
        UIMessage(
            "a",
            "assistant",
            [
                ToolUIPart("c1", "gone", "output-available", input={}, output="old"),
                ToolUIPart("c2", "gone_dynamic", "output-available", input={}, output="kept", dynamic=True),
            ],
        )
    ]
    messages = convert_to_model_messages(ui, tools={"weather": object()})
    assert messages[1] == ToolMessage([ToolResultPart("c1", "gone", TOOL_NO_LONGER_AVAILABLE)])
    assert messages[2] == ToolMessage([ToolResultPart("c2", "gone_dynamic", "kept", dynamic=True)])
    # without a tool list nothing is replaced
    assert convert_to_model_messages(ui)[1] == ToolMessage([ToolResultPart("c1", "gone", "old")])


def test_convert_approvals_errors_and_denials() -> None:
    # REQ: LOOP-13, LOOP-12
    ui = [
        UIMessage(
            "a",
            "assistant",
            [
                ToolUIPart(
                    "c1",
                    "delete",
                    "output-denied",
                    input={},
                    approval=ToolUIApproval("ap1", approved=False, reason="not now", is_automatic=True),
                ),
                ToolUIPart("c2", "weather", "output-error", raw_input='{"city"', error_text="bad input"),
                ToolUIPart(
                    "c3",
                    "mcp_tool",
                    "output-available",
                    input={},
                    output={"ok": True},
                    provider_executed=True,
                    approval=ToolUIApproval("ap2", approved=True),
                ),
            ],
        )
    ]
    assert convert_to_model_messages(ui) == [
        AssistantMessage(
            [
                ToolCallPart("c1", "delete", {}),
                ToolApprovalRequestPart("ap1", "c1", is_automatic=True),
                ToolCallPart("c2", "weather", '{"city"'),
                ToolCallPart("c3", "mcp_tool", {}, provider_executed=True),
                ToolApprovalRequestPart("ap2", "c3"),
                ToolResultPart("c3", "mcp_tool", {"ok": True}, OutputType.JSON, provider_executed=True),
            ]
        ),
        ToolMessage([ToolApprovalResponsePart("ap1", False, "not now")]),
        ToolMessage([ToolResultPart("c1", "delete", "not now", OutputType.EXECUTION_DENIED)]),
        ToolMessage([ToolResultPart("c2", "weather", "bad input", OutputType.ERROR_TEXT)]),
        ToolMessage([ToolApprovalResponsePart("ap2", True, None, provider_executed=True)]),
    ]


def test_convert_carries_tool_metadata_to_the_call_and_its_client_result() -> None:
    # REQ: DEF-8, LOOP-13
    metadata = {"category": "forecast"}
    ui = [
        UIMessage(
            "a",
            "assistant",
            [
                ToolUIPart("c1", "weather", "output-available", input={}, output="sunny", tool_metadata=metadata),
                ToolUIPart(
                    "c2",
                    "delete",
                    "output-denied",
                    input={},
                    approval=ToolUIApproval("ap", False),
                    tool_metadata=metadata,
                ),
                ToolUIPart(
                    "s1",
                    "search",
                    "output-available",
                    input={},
                    output="hits",
                    provider_executed=True,
                    tool_metadata=metadata,
                ),
            ],
        )
    ]
    assert convert_to_model_messages(ui) == [
        AssistantMessage(
            [
                ToolCallPart("c1", "weather", {}, tool_metadata=metadata),
                ToolCallPart("c2", "delete", {}, tool_metadata=metadata),
                ToolApprovalRequestPart("ap", "c2"),
                ToolCallPart("s1", "search", {}, provider_executed=True, tool_metadata=metadata),
                # the provider's own result never carried the tool's metadata
                ToolResultPart("s1", "search", "hits", provider_executed=True),
            ]
        ),
        ToolMessage([ToolResultPart("c1", "weather", "sunny", tool_metadata=metadata)]),
        ToolMessage([ToolApprovalResponsePart("ap", False)]),
        ToolMessage([ToolResultPart("c2", "delete", None, OutputType.EXECUTION_DENIED, tool_metadata=metadata)]),
    ]
