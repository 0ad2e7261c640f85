"""Responders that play the OpenAI-compatible servers people run, with their known quirks.

Each :class:`CompatDialect` answers a Chat Completions request the way one kind of server does:

- ``null_content_500``: an assistant turn with ``"content": null`` beside its tool calls is answered
  with HTTP 500 (llama-cpp-python's server);
- ``reads``: the output-token field the server honours; any other is ignored and the answer runs long;
- ``refuses``: tool_choice values the server fails on (HTTP 500), e.g. ``required`` on llama.cpp;
- ``nulls_in_stream``: stream chunks carry explicit nulls (``"content": null``, ``"index": null``...).

The conversation it plays: the first round calls ``find``; once a tool result is in the request it
answers with text, cut to the token limit it honours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from _provider_server import Recorded, Reply, chat_completion

LONG_ANSWER = " ".join(["word"] * 200)


@dataclass
class CompatDialect:
    """One server's behaviour (see the module docstring)."""

    name: str
    null_content_500: bool = True
    reads: str = "max_tokens"
    refuses: frozenset[str] = field(default_factory=frozenset)
    nulls_in_stream: bool = True

    def __call__(self, request: Recorded) -> Reply:
        body = request.body
        problem = self._problem(body)
        if problem is not None:
            return Reply(500, {"error": {"message": problem, "type": "server_error"}})
        has_result = any(m.get("role") == "tool" for m in body["messages"])
        if has_result:
            limit = body.get(self.reads)
            words = LONG_ANSWER.split()
            text = " ".join(words[: int(limit)] if isinstance(limit, int) else words)
            completion = chat_completion(text)
        else:
            completion = chat_completion(None, [("call_1", "find", json.dumps({"q": "fado"}))])
        if body.get("stream"):
            return Reply(events=self._stream(completion))
        return Reply(200, completion)

    def _problem(self, body: dict[str, Any]) -> str | None:
        for message in body["messages"]:
            if self.null_content_500 and message.get("tool_calls") and message.get("content") is None:
                return "'NoneType' object has no attribute 'strip'"
        choice = body.get("tool_choice")
        mode = "tool" if isinstance(choice, dict) else choice
        if mode in self.refuses:
            return f"tool_choice {mode!r} crashed the chat handler"
        return None

    def _stream(self, completion: dict[str, Any]) -> list[tuple[str | None, Any]]:
        message = completion["choices"][0]["message"]
        base = {"id": completion["id"], "object": "chat.completion.chunk", "model": completion["model"]}
        nulls: dict[str, Any] = (
            {"content": None, "tool_calls": None, "function_call": None} if self.nulls_in_stream else {}
        )
        events: list[tuple[str | None, Any]] = []

        def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
            choice = {"index": 0, "delta": {**nulls, **delta}, "finish_reason": finish, "logprobs": None}
            events.append((None, {**base, "choices": [choice], "usage": None}))

        chunk({"role": "assistant"})
        if message.get("content"):
            for start in range(0, len(message["content"]), 12):
                chunk({"content": message["content"][start : start + 12]})
        for index, call in enumerate(message.get("tool_calls") or ()):
            function = call["function"]
            chunk(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": call["id"],
                            "type": "function",
                            "function": {"name": function["name"], "arguments": ""},
                        }
                    ]
                }
            )
            arguments = function["arguments"]
            for start in range(0, len(arguments), 5):
                piece = {
                    "index": None if self.nulls_in_stream else index,
                    "id": None,
                    "type": None,
                    "function": {"name": None, "arguments": arguments[start : start + 5]},
                }
                chunk({"tool_calls": [piece]})
        chunk({}, completion["choices"][0]["finish_reason"])
        events.append((None, "[DONE]"))
        return events


DIALECTS = {
    "llama.cpp": CompatDialect("llama.cpp", refuses=frozenset({"required"})),
    "ollama": CompatDialect("ollama", nulls_in_stream=False),
    "vllm": CompatDialect("vllm"),
    "lmstudio": CompatDialect("lmstudio", refuses=frozenset({"tool"})),
    "generic": CompatDialect("generic"),
}
