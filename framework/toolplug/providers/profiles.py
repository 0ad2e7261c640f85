"""Server profiles: the dialect of the OpenAI-compatible server behind a base URL.

Chat Completions is spoken by OpenAI and by the servers people run for local models (llama.cpp's
server, Ollama, vLLM, LM Studio), each with its own differences. A :class:`ServerProfile` holds them,
and the adapters ask the profile, never the URL. ``[providers.<id>] server`` names the profile; when it
is unset, :func:`guess_server` picks one from the base URL. Every knob can be overridden in the
provider's config; docs/providers.md gives the reason for each default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias
from urllib.parse import urlsplit

from toolplug.errors import InvalidArgumentError, UsageError

if TYPE_CHECKING:
    from toolplug.calls import ToolChoice

ServerName: TypeAlias = Literal["official", "llama.cpp", "ollama", "vllm", "lmstudio", "generic"]
SERVERS: tuple[ServerName, ...] = ("official", "llama.cpp", "ollama", "vllm", "lmstudio", "generic")

ToolChoiceMode: TypeAlias = Literal["auto", "none", "required", "tool"]
ALL_TOOL_CHOICES: frozenset[str] = frozenset({"auto", "none", "required", "tool"})

MaxTokensField: TypeAlias = Literal["max_completion_tokens", "max_tokens"]


@dataclass(frozen=True, slots=True)
class ServerProfile:
    """What one kind of server expects of a Chat Completions request.

    :param tool_call_content: the ``content`` of an assistant turn that has tool calls and no text:
        ``None`` sends ``null`` (OpenAI's documented form), ``""`` an empty string.
    :param max_tokens_field: the body field of the output-token limit (``max_output_tokens``).
    :param tool_choices: the tool choice modes the server honours (``tool`` is a named tool); any other
        is refused before the request. Without ``auto`` the field is never sent (the server ignores it).
    :param parallel_tool_calls: whether to send ``parallel_tool_calls`` when calls run one at a time.
    :param stream_usage: whether a streamed request asks for usage (``stream_options.include_usage``).
    """

    name: str
    tool_call_content: str | None = ""
    max_tokens_field: MaxTokensField = "max_tokens"
    tool_choices: frozenset[str] = ALL_TOOL_CHOICES
    parallel_tool_calls: bool = True
    stream_usage: bool = True
    send_tool_choice: bool = True
    """False for a server that has no ``tool_choice`` field (only ``auto`` is then possible)."""

    def check_tool_choice(self, choice: ToolChoice, provider: str | None = None) -> None:
        """Raise UsageError when the server cannot honour ``choice`` (before any request)."""
        if choice.mode in self.tool_choices:
            return
        shown = f"the tool {choice.tool_name!r}" if choice.mode == "tool" else repr(choice.mode)
        supported = ", ".join(sorted(self.tool_choices))
        who = f"provider {provider!r} ({self.name} server)" if provider else f"a {self.name} server"
        raise UsageError(
            f"tool choice {shown} is not supported by {who}; it supports: {supported}. "
            "Choose another tool choice, or set the provider's tool_choices if the server does support it."
        )

    def but(self, overrides: Mapping[str, Any]) -> ServerProfile:
        """This profile with the knobs in ``overrides`` replaced (None values are left alone)."""
        changes = {key: value for key, value in overrides.items() if value is not None}
        if "tool_choices" in changes:
            changes["tool_choices"] = frozenset(changes["tool_choices"])
            unknown = changes["tool_choices"] - ALL_TOOL_CHOICES
            if unknown:
                raise InvalidArgumentError(
                    "tool_choices", f"unknown tool choices {sorted(unknown)}; use {sorted(ALL_TOOL_CHOICES)}"
                )
        if changes.get("tool_call_content") == "null":
            changes["tool_call_content"] = None
        return dataclasses.replace(self, **changes)


PROFILES: dict[str, ServerProfile] = {
    # OpenAI documents null content beside tool calls, and its reasoning models reject max_tokens.
    "official": ServerProfile("official", None, "max_completion_tokens"),
    # llama-cpp-python's server answers 500 to null content, reads only max_tokens, and fails on
    # tool_choice "required" (a named tool is forced through a grammar); llama-server reads max_tokens too.
    "llama.cpp": ServerProfile("llama.cpp", "", "max_tokens", frozenset({"auto", "none", "tool"})),
    # Ollama's OpenAI layer reads max_tokens (as num_predict), has no tool_choice and no
    # parallel_tool_calls field, and honours stream_options.include_usage.
    "ollama": ServerProfile(
        "ollama", "", "max_tokens", frozenset({"auto"}), parallel_tool_calls=False, send_tool_choice=False
    ),
    # vLLM supports auto, none, required (0.8.3 on) and named choices; max_tokens works in every version.
    "vllm": ServerProfile("vllm", "", "max_tokens"),
    # LM Studio takes tool_choice only as a string (none, auto, required), not a named tool.
    "lmstudio": ServerProfile(
        "lmstudio", "", "max_tokens", frozenset({"auto", "none", "required"}), parallel_tool_calls=False
    ),
    # An unknown server: the forms every compatible server reads; the server judges tool choices itself.
    "generic": ServerProfile("generic", "", "max_tokens"),
}

MANAGED_FIELDS: dict[str, str] = {
    "model": "model",
    "messages": "the conversation",
    "input": "the conversation",
    "system": "instructions",
    "instructions": "instructions",
    "tools": "the selected tools",
    "tool_choice": "tool_choice",
    "stream": "streaming (toolplug chat --stream)",
    "stream_options": "stream_usage",
    "max_tokens": "max_output_tokens",
    "max_completion_tokens": "max_output_tokens",
    "max_output_tokens": "max_output_tokens",
}
"""Body fields toolplug writes itself, and the setting to use instead of an extra parameter."""


def managed_field_problem(key: str) -> str | None:
    """Why ``key`` cannot be an extra parameter or provider option (None when it can)."""
    instead = MANAGED_FIELDS.get(key)
    if instead is None:
        return None
    return f"{key!r} is a field toolplug manages and cannot be set as an extra parameter; use {instead} instead"


_PORTS: dict[int, ServerName] = {11434: "ollama", 1234: "lmstudio", 8080: "llama.cpp"}


def guess_server(base_url: str | None) -> ServerName:
    """The profile a base URL suggests: OpenAI's own host is ``official``; the default ports of Ollama
    (11434), LM Studio (1234) and llama-server (8080) name those; anything else is ``generic`` (vLLM and
    llama-cpp-python share port 8000, so it names neither)."""
    if base_url is None:
        return "official"
    parts = urlsplit(base_url)
    host = (parts.hostname or "").lower()
    if host == "api.openai.com":
        return "official"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and port in _PORTS:
        return _PORTS[port]
    if "ollama" in host:
        return "ollama"
    return "generic"


def server_profile(
    server: str | None, base_url: str | None, overrides: Mapping[str, Any] | None = None
) -> ServerProfile:
    """The profile of ``server`` (guessed from ``base_url`` when None), with ``overrides`` applied."""
    name = server if server is not None else guess_server(base_url)
    profile = PROFILES.get(name)
    if profile is None:
        raise InvalidArgumentError("server", f"unknown server {name!r}; use one of {', '.join(SERVERS)}")
    return profile.but(overrides) if overrides else profile


__all__ = [
    "ALL_TOOL_CHOICES",
    "MANAGED_FIELDS",
    "PROFILES",
    "SERVERS",
    "ServerName",
    "ServerProfile",
    "guess_server",
    "managed_field_problem",
    "server_profile",
]
