"""A real HTTP server on 127.0.0.1 speaking the three provider APIs, scripted per test.

Queue replies (JSON, server-sent-event streams, errors, streams cut mid-way) with :meth:`reply`; the
server answers every POST with the next one and records each request (path, headers, JSON body).
Builders below make answers in each API's documented shape, and turn a complete answer into the
event stream the API would send for it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from toolplug.definitions import FunctionSpec, GrammarSpec, OutputType, ProviderToolSpec, ToolDefinition, ToolKind
from toolplug.messages import (
    AssistantMessage,
    Message,
    TextPart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)


@dataclass
class Recorded:
    """A request the server got."""

    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class Reply:
    """One scripted answer: JSON, raw bytes, or SSE events; ``cut_after`` events then the connection drops."""

    status: int = 200
    json: Any = None
    raw: bytes | None = None
    events: Sequence[tuple[str | None, Any]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None
    hold_after: int | None = None
    """Send this many events, then wait for ``gate`` before the rest (a stream caught mid-way)."""
    gate: threading.Event | None = None


Script = Reply | Callable[[Recorded], Reply]


class ProviderServer:
    """The server; use :func:`provider_server` to run it for one test."""

    def __init__(self) -> None:
        self.script: list[Script] = []
        self.requests: list[Recorded] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", errors="replace")
                recorded = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                with owner.lock:
                    owner.requests.append(recorded)
                    item = owner.script.pop(0) if owner.script else Reply(500, {"error": {"message": "no reply"}})
                reply = item(recorded) if callable(item) else item
                owner.answer(self, reply)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)

    @property
    def url(self) -> str:
        """The base URL (``http://127.0.0.1:PORT``)."""
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def reply(self, *replies: Script) -> None:
        """Queue answers, in order."""
        with self.lock:
            self.script.extend(replies)

    def bodies(self) -> list[Any]:
        """The JSON bodies received, in order."""
        return [r.body for r in self.requests]

    @staticmethod
    def answer(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        headers = {"x-request-id": "req_test_1", "request-id": "req_test_1", **reply.headers}
        if reply.events is not None:
            handler.send_response(reply.status)
            handler.send_header("content-type", "text/event-stream")
            handler.send_header("connection", "close")
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            for number, (event, data) in enumerate(reply.events):
                if reply.cut_after is not None and number >= reply.cut_after:
                    break
                if number == reply.hold_after and reply.gate is not None:
                    reply.gate.wait(timeout=60)
                text = data if isinstance(data, str) else json.dumps(data)
                frame = (f"event: {event}\n" if event else "") + f"data: {text}\n\n"
                handler.wfile.write(frame.encode())
                handler.wfile.flush()
            handler.close_connection = True
            return
        payload = reply.raw if reply.raw is not None else json.dumps(reply.json).encode()
        handler.send_response(reply.status)
        handler.send_header("content-type", "application/json")
        handler.send_header("content-length", str(len(payload)))
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(payload)


@contextmanager
def provider_server() -> Iterator[ProviderServer]:
    """Run a server for the duration of the block."""
    server = ProviderServer()
    server.thread.start()
    try:
        yield server
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
        server.thread.join(timeout=5)


def chunks(text: str, size: int = 4) -> list[str]:
    """``text`` in pieces, as a stream delivers it."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# --- Chat Completions --------------------------------------------------------------------------------


def chat_completion(
    text: str | None = None,
    tool_calls: Sequence[tuple[str | None, str, str]] = (),
    *,
    finish: str | None = None,
    model: str = "gpt-test",
) -> dict[str, Any]:
    """A completion: text and/or ``(id, name, arguments)`` calls."""
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        message["tool_calls"] = [
            {"type": "function", "function": {"name": name, "arguments": args}, **({"id": cid} if cid else {})}
            for cid, name, args in tool_calls
        ]
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish or ("tool_calls" if tool_calls else "stop"),
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def chat_stream(completion: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The chunks a server streams for ``completion``, then ``[DONE]``."""
    base = {"id": completion["id"], "object": "chat.completion.chunk", "created": 1, "model": completion["model"]}
    choice = completion["choices"][0]
    message = choice["message"]
    events: list[tuple[str | None, Any]] = [
        (None, {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})
    ]
    for piece in chunks(message.get("content") or "") if message.get("content") else []:
        events.append((None, {**base, "choices": [{"index": 0, "delta": {"content": piece}}]}))
    for index, call in enumerate(message.get("tool_calls") or []):
        first = {"index": index, "type": "function", "function": {"name": call["function"]["name"], "arguments": ""}}
        if "id" in call:
            first["id"] = call["id"]
        events.append((None, {**base, "choices": [{"index": 0, "delta": {"tool_calls": [first]}}]}))
        for piece in chunks(call["function"]["arguments"], 3):
            delta = {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}
            events.append((None, {**base, "choices": [{"index": 0, "delta": delta}]}))
    events.append((None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]}))
    events.append((None, {**base, "choices": [], "usage": completion["usage"]}))
    events.append((None, "[DONE]"))
    return events


# --- Responses ---------------------------------------------------------------------------------------


def responses_object(*output: dict[str, Any], status: str = "completed", model: str = "gpt-test") -> dict[str, Any]:
    """A response object with ``output`` items."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": status,
        "model": model,
        "output": list(output),
        "usage": {
            "input_tokens": 20,
            "output_tokens": 8,
            "total_tokens": 28,
            "output_tokens_details": {"reasoning_tokens": 3},
            "input_tokens_details": {"cached_tokens": 0},
        },
    }


def r_message(text: str, item_id: str = "msg_1") -> dict[str, Any]:
    """An output message item."""
    return {
        "type": "message",
        "id": item_id,
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def r_call(call_id: str | None, name: str, arguments: str, item_id: str = "fc_1") -> dict[str, Any]:
    """A function_call item."""
    item = {"type": "function_call", "id": item_id, "name": name, "arguments": arguments, "status": "completed"}
    if call_id is not None:
        item["call_id"] = call_id
    return item


def r_reasoning(item_id: str, summary: str, encrypted: str = "enc-1") -> dict[str, Any]:
    """A reasoning item with a summary and encrypted content."""
    return {
        "type": "reasoning",
        "id": item_id,
        "summary": [{"type": "summary_text", "text": summary}],
        "encrypted_content": encrypted,
    }


def responses_stream(response: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The events a server streams for ``response``."""
    started = {**response, "status": "in_progress", "output": []}
    events: list[tuple[str | None, Any]] = [("response.created", {"type": "response.created", "response": started})]
    for index, item in enumerate(response["output"]):
        added = dict(item)
        if item["type"] == "function_call":
            added["arguments"] = ""
        if item["type"] == "message":
            added["content"] = []
        events.append(
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": index, "item": added})
        )
        if item["type"] == "message":
            for piece in chunks(item["content"][0]["text"]):
                events.append(
                    (
                        "response.output_text.delta",
                        {
                            "type": "response.output_text.delta",
                            "item_id": item["id"],
                            "output_index": index,
                            "content_index": 0,
                            "delta": piece,
                        },
                    )
                )
        elif item["type"] == "function_call":
            for piece in chunks(item["arguments"], 3):
                events.append(
                    (
                        "response.function_call_arguments.delta",
                        {
                            "type": "response.function_call_arguments.delta",
                            "item_id": item["id"],
                            "output_index": index,
                            "delta": piece,
                        },
                    )
                )
        elif item["type"] == "reasoning":
            for piece in chunks(item["summary"][0]["text"]):
                events.append(
                    (
                        "response.reasoning_summary_text.delta",
                        {
                            "type": "response.reasoning_summary_text.delta",
                            "item_id": item["id"],
                            "output_index": index,
                            "summary_index": 0,
                            "delta": piece,
                        },
                    )
                )
        events.append(
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": index, "item": item})
        )
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return events


# --- Anthropic ---------------------------------------------------------------------------------------


def anthropic_message(
    *content: dict[str, Any], stop_reason: str = "end_turn", model: str = "claude-test"
) -> dict[str, Any]:
    """A Messages API answer."""
    return {
        "id": "msg_01",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": list(content),
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 30, "output_tokens": 12},
    }


def a_text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def a_thinking(text: str, signature: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": text, "signature": signature}


def a_tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def anthropic_stream(message: dict[str, Any]) -> list[tuple[str | None, Any]]:
    """The events the Messages API streams for ``message``."""
    start = {**message, "content": [], "stop_reason": None, "usage": {"input_tokens": 30, "output_tokens": 1}}
    events: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        kind = block["type"]
        if kind == "text":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                )
            )
            for piece in chunks(block["text"]):
                events.append(
                    (
                        "content_block_delta",
                        {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
                    )
                )
        elif kind == "thinking":
            events.append(
                (
                    "content_block_start",
                    {
                        "type": "content_block_start",
                        "index": index,
                        "content_block": {"type": "thinking", "thinking": "", "signature": ""},
                    },
                )
            )
            for piece in chunks(block["thinking"]):
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "thinking_delta", "thinking": piece},
                        },
                    )
                )
            events.append(
                (
                    "content_block_delta",
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "signature_delta", "signature": block["signature"]},
                    },
                )
            )
        elif kind == "tool_use":
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                )
            )
            for piece in chunks(json.dumps(block["input"]), 5):
                events.append(
                    (
                        "content_block_delta",
                        {
                            "type": "content_block_delta",
                            "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": piece},
                        },
                    )
                )
        else:
            events.append(
                ("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        if index == 0:
            events.append(("ping", {"type": "ping"}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


# --- the golden fixture: one set of definitions, one conversation ------------------------------------


def golden_definitions() -> list[ToolDefinition]:
    """The definitions every golden request body is built from."""
    weather = ToolDefinition(
        id="get_weather",
        implementation_key="get_weather",
        function=FunctionSpec(
            name="get_weather",
            description_for_llm="Get the current weather in a given city.",
            parameters={
                "type": "object",
                "properties": {
                    "city": {"type": "string", "description": "The city."},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city"],
            },
            strict=True,
        ),
    )
    lookup = ToolDefinition(
        id="lookup",
        implementation_key="lookup",
        function=FunctionSpec(
            name="lookup",
            description_for_llm="Look a term up.",
            parameters={"type": "object", "properties": {"term": {"type": "string"}}, "required": ["term"]},
        ),
    )
    return [weather, lookup]


def custom_definition() -> ToolDefinition:
    """A custom grammar tool (OpenAI only)."""
    return ToolDefinition(
        id="write_sql",
        implementation_key="write_sql",
        function=FunctionSpec(name="write_sql", description_for_llm="Write a SQL SELECT query."),
        kind=ToolKind.CUSTOM,
        grammar=GrammarSpec(syntax="regex", definition="SELECT .+"),
    )


def provider_definition(tool_id: str, name: str, **args: Any) -> ToolDefinition:
    """A provider-defined tool."""
    return ToolDefinition(
        id=name,
        implementation_key=name,
        function=FunctionSpec(name=name, description_for_llm=f"The provider's {name}."),
        kind=ToolKind.PROVIDER_DEFINED,
        provider_tool=ProviderToolSpec(id=tool_id, args=args),
    )


def golden_conversation() -> list[Message]:
    """A conversation with one earlier tool round: two calls, an ok and a failed result."""
    return [
        UserMessage("What is the weather in Lisbon and what does 'saudade' mean?"),
        AssistantMessage(
            [
                TextPart("Let me check."),
                ToolCallPart("call_a", "get_weather", {"city": "Lisbon", "unit": None}),
                ToolCallPart("call_b", "lookup", {"term": "saudade"}),
            ]
        ),
        ToolMessage(
            [
                ToolResultPart("call_a", "get_weather", {"temperature": 21, "unit": "celsius"}, OutputType.JSON),
                ToolResultPart("call_b", "lookup", "Tool execution failed: dictionary offline", OutputType.ERROR_TEXT),
            ]
        ),
    ]


# --- golden files ------------------------------------------------------------------------------------

GOLDEN_DIR = Path(__file__).parent / "golden"
OPENAPI_PATH = Path(__file__).resolve().parent.parent.parent / "shared" / "api-specs" / "openai-openapi.json"


def assert_golden(name: str, actual: Any) -> None:
    """Compare ``actual`` with ``tests/golden/<name>.json`` field by field (TOOLPLUG_UPDATE_GOLDEN=1 rewrites it)."""
    path = GOLDEN_DIR / f"{name}.json"
    if os.environ.get("TOOLPLUG_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(actual, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    expected = json.loads(path.read_text(encoding="utf-8"))
    differences = list(_differences(expected, json.loads(json.dumps(actual)), "$"))
    assert not differences, f"{name}: the request body differs from the golden file:\n" + "\n".join(differences)


def _differences(expected: Any, actual: Any, path: str) -> Iterator[str]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected.keys() | actual.keys():
            if key not in actual:
                yield f"{path}.{key}: missing (expected {expected[key]!r})"
            elif key not in expected:
                yield f"{path}.{key}: unexpected {actual[key]!r}"
            else:
                yield from _differences(expected[key], actual[key], f"{path}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            yield f"{path}: {len(actual)} items instead of {len(expected)}"
        for index, (e, a) in enumerate(zip(expected, actual, strict=False)):
            yield from _differences(e, a, f"{path}[{index}]")
    elif expected != actual or type(expected) is not type(actual):
        yield f"{path}: {actual!r} instead of {expected!r}"


def openapi_validator(schema_name: str) -> Any:
    """A validator for one request schema of OpenAI's OpenAPI description; skips the test without the file."""
    import pytest

    if not OPENAPI_PATH.exists():
        pytest.skip(f"OpenAI's OpenAPI description is not at {OPENAPI_PATH} (../shared/api-specs); not validated")
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    document = _openapi_document()
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": document["components"]}
    return Draft202012Validator(schema)


_DOCUMENT: dict[str, Any] = {}


def _openapi_document() -> dict[str, Any]:
    if not _DOCUMENT:
        _DOCUMENT.update(json.loads(OPENAPI_PATH.read_text(encoding="utf-8")))
    return _DOCUMENT
