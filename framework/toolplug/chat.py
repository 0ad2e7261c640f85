"""The host's chat: one turn of a person's chat, run with the host's rules (one tool call at a time, its limits).

:func:`run_host_chat` picks the provider (``[providers.<id>]`` in the host config), asks the selector
for the runnable tools of (component, provider), appends their combined system-prompt instructions,
and runs the :class:`~toolplug.loop.ToolCallingLoop` with concurrency 1 (so Chat Completions requests
set ``parallel_tool_calls: false``) and the limits of ``[limits]``. The answer comes back with every
step, the sources used by tools (deduplicated), the traces, the usage and the highest provider
confidence the chat now requires.

API keys: the provider's ``api_key_env`` variable when it is set, else the OS keyring — service
``toolplug``, user name ``provider.<id>.api_key`` (``toolplug settings provider-key openai``).
A provider with its own ``base_url`` (a local OpenAI-compatible server) may need no key at all.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolplug.config import ProviderSection
from toolplug.definitions import ConfidenceLevel, Source
from toolplug.errors import ConfigError, KeyringUnavailableError, UsageError
from toolplug.execution import ToolTrace
from toolplug.loop import LoopOptions, LoopResult, StepResult, ToolCallingLoop
from toolplug.messages import Message, UserMessage
from toolplug.providers.base import ProviderAdapter, Usage
from toolplug.selection import append_instructions, chat_may_continue

if TYPE_CHECKING:
    from toolplug.host import Host

PROVIDER_KEY_FIELD = "api_key"
"""The keyring entry of a provider's API key is ``provider.<id>.api_key`` in service ``toolplug``."""

ChatEventHandler = Callable[[Any], "Awaitable[None] | None"]
"""Receives the loop's events (step start and finish, tool running and finished) and, when streaming,
every stream part (text deltas first of all)."""


def provider_keyring_name(provider_id: str) -> str:
    """The keyring user name of a provider's API key (service ``toolplug``)."""
    return f"provider.{provider_id}.{PROVIDER_KEY_FIELD}"


@dataclass(slots=True)
class ChatResult:
    """What one chat turn produced."""

    text: str
    """The answer."""
    steps: list[StepResult]
    sources: list[Source]
    """Sources used by tools, each URL once, in the order the tools returned them."""
    traces: list[ToolTrace]
    usage: Usage
    required_provider_confidence: ConfidenceLevel | None
    """The highest confidence the tool results require; pass it to the next turn."""
    provider_id: str
    model: str
    stop_reason: str
    loop_result: LoopResult
    """Everything the loop returned (response messages, pending calls...)."""

    @property
    def response_messages(self) -> list[Message]:
        """The messages this turn added to the conversation."""
        return self.loop_result.response_messages

    @property
    def guard_findings(self) -> list[str]:
        """One line per source in which the prompt-injection guard neutralised something."""
        from toolplug.guard import describe_findings

        return describe_findings(self.loop_result.guard_reports)

    def text_with_sources(self) -> str:
        """The answer, then the sources under "Sources used by tools"."""
        if not self.sources:
            return self.text
        lines = [self.text.rstrip(), "", "Sources used by tools:"]
        lines += [
            f"- {source.title or source.url}: {source.url}" if source.title else f"- {source.url}"
            for source in self.sources
        ]
        return "\n".join(lines)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolplug chat --json``."""
        return {
            "text": self.text,
            "provider": self.provider_id,
            "model": self.model,
            "stop_reason": self.stop_reason,
            "steps": [
                {
                    "step": step.step_number,
                    "provider": step.provider,
                    "model": step.model,
                    "finish_reason": step.finish_reason,
                    "text": step.text,
                    "tool_calls": [
                        {"id": call.tool_call_id, "name": call.tool_name, "input": call.input}
                        for call in step.tool_calls
                    ],
                }
                for step in self.steps
            ],
            "sources": [source.model_dump() for source in self.sources],
            "traces": [trace.as_dict() for trace in self.traces],
            "guard": [
                {"tool_id": tool_id, **report.as_dict()} for tool_id, report in self.loop_result.guard_reports
            ],
            "usage": {
                "input_tokens": self.usage.input_tokens,
                "output_tokens": self.usage.output_tokens,
                "reasoning_tokens": self.usage.reasoning_tokens,
                "cached_input_tokens": self.usage.cached_input_tokens,
                "total_tokens": self.usage.total_tokens,
            },
            "required_provider_confidence": (
                None if self.required_provider_confidence is None else self.required_provider_confidence.label
            ),
        }


async def run_host_chat(
    host: Host,
    prompt_or_messages: str | Sequence[Message],
    *,
    provider_id: str | None = None,
    component: str = "chat",
    selected: Sequence[str] | None = None,
    stream: bool = False,
    on_event: ChatEventHandler | None = None,
    record_dir: str | os.PathLike[str] | None = None,
    system: str | None = None,
    chat_required_confidence: ConfidenceLevel | None = None,
    http_client: Any = None,
) -> ChatResult:
    """Run one chat turn with the host's rules; see the module docstring.

    :param prompt_or_messages: the user's prompt, or the conversation so far (without system messages).
    :param provider_id: a provider of ``[providers]``; the first one configured when None.
    :param selected: the tool ids the user selected (None: the host's defaults).
    :param stream: stream the rounds; ``on_event`` then also receives every stream part.
    :param record_dir: write every HTTP exchange there as numbered JSON files (keys redacted).
    :param chat_required_confidence: what earlier tool results of this chat require; a
        provider below it that is not trusted is refused before anything is sent.
    :param http_client: an ``httpx2.AsyncClient`` to share; by default ``host.http_client`` when the
        host has one, else one client for the whole turn.
    :raises ConfigError: no provider configured, an unknown provider or API, a missing API key.
    :raises UsageError: the provider may not receive this chat's data.
    :raises ProviderError: the provider failed (unreachable, refused the key, rate limits...).
    """
    provider_id, provider = _provider(host, provider_id)
    trusted = host.config.is_trusted(provider_id)
    if not chat_may_continue(chat_required_confidence, provider.confidence, trusted):
        assert chat_required_confidence is not None
        raise UsageError(
            f"This chat holds tool results that may only go to a provider with confidence "
            f"{chat_required_confidence.label} or higher; provider {provider_id!r} has {provider.confidence.label} "
            f"and is not trusted. Choose another provider, or list {provider_id!r} in trusted_provider_ids."
        )
    factory = host.adapter_factories.get(provider.api)
    if factory is None:
        known = ", ".join(sorted(host.adapter_factories)) or "none"
        raise ConfigError(
            f"Provider {provider_id!r} uses the API {provider.api!r}, which no adapter provides "
            f"(available: {known}). Fix providers.{provider_id}.api or install the plugin that adds it.",
            key=f"providers.{provider_id}.api",
        )
    api_key = _api_key(host, provider_id, provider)
    selection = host.select(
        component, provider_id, selected=selected, chat_required_confidence=chat_required_confidence
    )
    tools = selection.runnable
    instructions = append_instructions(system, tools)
    limits = host.config.limits
    options = LoopOptions(
        max_steps=limits.max_steps,
        max_tool_calls=limits.max_tool_calls,
        max_result_chars=limits.max_tool_result_characters,
        tool_call_concurrency=1,
        on_event=on_event,
    )
    if instructions:
        options.instructions = instructions
    messages: list[Message] = (
        [UserMessage(prompt_or_messages)] if isinstance(prompt_or_messages, str) else list(prompt_or_messages)
    )
    client = http_client if http_client is not None else getattr(host, "http_client", None)
    own_client = None
    if client is None:
        from toolplug.providers.http import new_http_client

        own_client = client = new_http_client()
    try:
        create_options: dict[str, Any] = {}
        if record_dir is not None:
            create_options["record_dir"] = record_dir
        adapter: ProviderAdapter = factory.create(
            provider, provider_id=provider_id, api_key=api_key, http_client=client, **create_options
        )
        loop = ToolCallingLoop(
            adapter, tools, executor=host.executor, options=options, scope=host.scope(component, provider_id)
        )
        if stream:
            streamed = loop.stream(messages)
            async for part in streamed:
                if on_event is not None:
                    outcome = on_event(part)
                    if inspect.isawaitable(outcome):
                        await outcome
            result = streamed.result
        else:
            result = await loop.run(messages)
    finally:
        if own_client is not None:
            await own_client.aclose()
    return ChatResult(
        text=result.text,
        steps=result.steps,
        sources=list(result.sources),
        traces=result.traces,
        usage=result.usage,
        required_provider_confidence=_highest(chat_required_confidence, result.required_provider_confidence),
        provider_id=provider_id,
        model=result.model or provider.model,
        stop_reason=result.stop_reason,
        loop_result=result,
    )


def _provider(host: Host, provider_id: str | None) -> tuple[str, ProviderSection]:
    providers = host.config.providers
    if not providers:
        raise ConfigError(_no_provider_message(host), key="providers")
    if provider_id is None:
        provider_id = next(iter(providers))
    provider = providers.get(provider_id)
    if provider is None:
        raise ConfigError(
            f"Unknown provider {provider_id!r}; the configured providers are: {', '.join(providers)}.",
            key=f"providers.{provider_id}",
        )
    return provider_id, provider


def _no_provider_message(host: Host) -> str:
    from toolplug.config import config_locations_hint

    where = f" in {host.config.source}" if host.config.source else ""
    return (
        f"No model provider is configured{where}. {config_locations_hint(host.config.source)}\n"
        "Add one to the config, for example:\n"
        '  [providers.openai]\n  api = "openai-chat"\n  model = "gpt-4o-mini"\n'
        "then store its API key: toolplug settings provider-key openai "
        '(or set api_key_env = "OPENAI_API_KEY"; a local server at base_url may need none).'
    )


def _api_key(host: Host, provider_id: str, provider: ProviderSection) -> str | None:
    if provider.api_key_env:
        value = os.environ.get(provider.api_key_env)
        if value:
            return value
        if provider.base_url is None:
            raise ConfigError(
                f"Provider {provider_id!r} reads its API key from the environment variable "
                f"{provider.api_key_env}, which is not set. Set it, or remove api_key_env and store the key "
                f"in the keyring: toolplug settings provider-key {provider_id}",
                key=f"providers.{provider_id}.api_key_env",
            )
        return None
    try:
        value = host.settings.secrets.get("provider", f"{provider_id}.{PROVIDER_KEY_FIELD}")
    except KeyringUnavailableError:
        value = None
        keyring_problem = True
    else:
        keyring_problem = False
    if value:
        return value
    if provider.base_url is None:
        hint = " (no OS keyring backend is available)" if keyring_problem else ""
        raise ConfigError(
            f"No API key for provider {provider_id!r}{hint}. Store it in the keyring: "
            f"toolplug settings provider-key {provider_id} — or set providers.{provider_id}.api_key_env "
            "to the name of an environment variable holding it.",
            key=f"providers.{provider_id}",
        )
    return None  # a server at its own base_url (a local one) may need no key


def _highest(first: ConfidenceLevel | None, second: ConfidenceLevel | None) -> ConfidenceLevel | None:
    if first is None:
        return second
    if second is None:
        return first
    return max(first, second)


__all__ = ["PROVIDER_KEY_FIELD", "ChatEventHandler", "ChatResult", "provider_keyring_name", "run_host_chat"]
