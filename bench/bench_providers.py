"""Provider adapters: conversion cost per round for a 50-message conversation, and SSE parsing throughput.

For each adapter (no network): starting a call on a 50-message conversation (``begin`` and the first body), and then one
round's own work — building the request body, serialising it to JSON, parsing an answer with a tool
call, and recording the turn and the result. The wire conversation grows incrementally, so a round
does not re-convert the history; the JSON serialisation of the whole body is the part that grows.
Then the SSE decoder's throughput on a Chat Completions stream fed in 4 KiB chunks, alone and with
the Chat Completions assembler.

    python bench/bench_providers.py          # full run
    python bench/bench_providers.py --quick  # CI's quick mode
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import Any

from toolplug.calls import ToolChoice
from toolplug.config import ProviderSection
from toolplug.definitions import FunctionSpec, OutputType, ToolDefinition
from toolplug.messages import (
    AssistantMessage,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from toolplug.providers import anthropic, openai_chat, openai_responses
from toolplug.providers.base import RoundRequest
from toolplug.providers.http import SSEDecoder

TOOLS = [
    ToolDefinition(
        id=f"tool_{i}",
        implementation_key=f"tool_{i}",
        function=FunctionSpec(
            name=f"tool_{i}",
            description_for_llm="A tool.",
            parameters={
                "type": "object",
                "properties": {"q": {"type": "string"}, "n": {"type": "integer"}},
                "required": ["q"],
            },
            strict=i % 2 == 0,
        ),
    )
    for i in range(8)
]


def conversation(size: int = 50) -> list[Message]:
    """User, assistant (reasoning, text, a call), tool result — repeated to ``size`` messages."""
    messages: list[Message] = []
    turn = 0
    while len(messages) < size:
        call_id = f"call_{turn}"
        messages.append(UserMessage(f"Question {turn}: what about item {turn}?"))
        meta = {
            "anthropic": {"signature": "sig" * 20},
            "openai": {"item": {"type": "reasoning", "id": f"rs_{turn}", "summary": [], "encrypted_content": "x" * 80}},
        }
        messages.append(
            AssistantMessage(
                [
                    ReasoningPart("thinking " * 10, meta),
                    TextPart("Let me look that up."),
                    ToolCallPart(call_id, "tool_1", {"q": f"item {turn}", "n": turn}),
                ]
            )
        )
        messages.append(ToolMessage([ToolResultPart(call_id, "tool_1", {"result": "x" * 200}, OutputType.JSON)]))
        turn += 1
    return messages[:size]


ANSWERS: dict[str, dict[str, Any]] = {
    "openai-chat": {
        "id": "c",
        "model": "m",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {"id": "call_x", "type": "function", "function": {"name": "tool_1", "arguments": '{"q":"a"}'}}
                    ],
                },
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
    },
    "openai-responses": {
        "id": "r",
        "model": "m",
        "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_x", "summary": [{"type": "summary_text", "text": "hm"}]},
            {"type": "function_call", "id": "fc_x", "call_id": "call_x", "name": "tool_1", "arguments": '{"q":"a"}'},
        ],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
    "anthropic": {
        "id": "m",
        "type": "message",
        "model": "m",
        "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "thinking": "hm", "signature": "sig"},
            {"type": "tool_use", "id": "call_x", "name": "tool_1", "input": {"q": "a"}},
        ],
        "usage": {"input_tokens": 1, "output_tokens": 1},
    },
}
FACTORIES = {
    "openai-chat": openai_chat.ADAPTER_FACTORY,
    "openai-responses": openai_responses.ADAPTER_FACTORY,
    "anthropic": anthropic.ADAPTER_FACTORY,
}


def best_of(function: Callable[[], None], repeats: int, number: int) -> float:
    """The best time per call in microseconds."""
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        for _ in range(number):
            function()
        best = min(best, (time.perf_counter() - started) / number)
    return best * 1e6


def bench_adapter(api: str, repeats: int, number: int) -> tuple[float, float, int]:
    factory = FACTORIES[api]
    profile = ProviderSection(api=api, model="m", base_url="http://127.0.0.1:9")
    messages = conversation()
    request = RoundRequest(3, [SystemMessage("You are helpful.")], TOOLS, ToolChoice.AUTO, 1)
    answer = ANSWERS[api]

    def begin() -> None:
        # Responses converts the history with the first body (once the tools are known), so the first
        # body is part of starting a call for every adapter.
        adapter = factory.create(profile, provider_id="p")
        adapter.begin(messages)
        adapter.build_body(request, stream=False)

    adapter: Any = factory.create(profile, provider_id="p")
    adapter.begin(messages)
    adapter.build_body(request, stream=False)
    size = 0

    wire: list[Any] = adapter.items if api == "openai-responses" else adapter.messages
    start = len(wire)

    def one_round() -> None:
        nonlocal size
        body = adapter.build_body(request, stream=False)
        size = len(json.dumps(body))
        round_ = adapter.parse_response(answer, request)
        adapter.record_model_turn(round_)
        adapter.record_tool_result("call_x", ToolResultPart("call_x", "tool_1", "ok", OutputType.TEXT))
        # back to the 50 messages, so every sample measures the same conversation
        del wire[start:]
        if api == "anthropic":
            adapter._pending.clear()

    return best_of(begin, repeats, number), best_of(one_round, repeats, number), size


def sse_stream(events: int) -> bytes:
    chunk = {
        "id": "c",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "hello wor"}}],
    }
    line = f"data: {json.dumps(chunk)}\n\n".encode()
    return line * events + b"data: [DONE]\n\n"


def bench_sse(events: int, repeats: int) -> tuple[float, float, float]:
    payload = sse_stream(events)
    pieces = [payload[i : i + 4096] for i in range(0, len(payload), 4096)]

    def decode() -> None:
        decoder = SSEDecoder()
        for piece in pieces:
            decoder.feed(piece)
        decoder.flush()

    def assemble() -> None:
        decoder = SSEDecoder()
        assembler = openai_chat.ChatStreamAssembler()
        for piece in pieces:
            for event in decoder.feed(piece):
                assembler.feed(event)
        assembler.finish()

    decode_s = best_of(decode, repeats, 1) / 1e6
    assemble_s = best_of(assemble, repeats, 1) / 1e6
    megabytes = len(payload) / 1e6
    return megabytes, megabytes / decode_s, events / assemble_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (CI)")
    args = parser.parse_args()
    repeats, number, events = (3, 20, 2_000) if args.quick else (7, 200, 20_000)
    print("Conversion per round, 50-message conversation, 8 tools (best of runs, no network):")
    print(f"  {'adapter':18} {'start (50 msgs)':>16} {'per round':>12} {'body JSON':>10}")
    for api in FACTORIES:
        begin_us, round_us, size = bench_adapter(api, repeats, number)
        print(f"  {api:18} {begin_us:13.1f} µs {round_us:9.1f} µs {size / 1024:7.1f} KiB")
    megabytes, mb_per_s, events_per_s = bench_sse(events, repeats)
    print(f"SSE: {events} Chat Completions chunks ({megabytes:.2f} MB) in 4 KiB pieces:")
    print(f"  decoder alone       {mb_per_s:8.1f} MB/s")
    print(f"  decoder + assembler {events_per_s / 1000:8.1f} k events/s")


if __name__ == "__main__":
    main()
