"""The host's chat: one turn of a person's chat, run with the host's rules (one tool call at a time, its limits).

:func:`run_host_chat` picks the provider (``[providers.<id>]`` in the host config), asks the selector
for the runnable tools of (component, provider), appends their combined system-prompt instructions,
and runs the :class:`~toolplug.loop.ToolCallingLoop` with concurrency 1 (so Chat Completions requests
set ``parallel_tool_calls: false``) and the limits of ``[limits]``. The answer comes back with every
step, the sources used by tools (deduplicated), the traces, the usage and the highest provider
confidence the chat now requires.

API keys: the provider's ``api_key_env`` variable when it is set, else the OS keyring — service
``toolplug``, user name ``provider.<id>.api_key`` (``toolplug settings provider-key openai``) — else
``TOOLPLUG_SECRET_PROVIDER_<ID>_API_KEY``. Every key joins the one secret scrubber before it is used.
A provider with its own ``base_url`` (a local OpenAI-compatible server) may need no key at all.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolplug.calls import ToolChoice
from toolplug.config import ProviderSection
from toolplug.definitions import ConfidenceLevel, Source
from toolplug.errors import ConfigError, KeyringUnavailableError, ProviderError, ToolChoiceViolationError, UsageError
from toolplug.execution import ToolTrace
from toolplug.loop import ApproveTool, LoopOptions, LoopResult, StartStepPart, StepResult, ToolCallingLoop
from toolplug.messages import Message, UserMessage
from toolplug.providers.base import ProviderAdapter, TextDelta, Usage
from toolplug.providers.profiles import ServerProfile
from toolplug.registry import RegisteredTool
from toolplug.secrets import check_secret, environment_variable, register_secrets
from toolplug.selection import append_instructions, chat_may_continue
from toolplug.tool_search import ToolSearchOptions

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

    @property
    def answered(self) -> bool:
        """Whether the turn ended with the model's answer (after a limit too)."""
        return self.stop_reason in ANSWERED

    def stop_notice(self) -> str | None:
        """What a person should be told about how the turn ended (None for a plain answer)."""
        return stop_notice(self.loop_result, self.provider_id)

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``toolplug chat --json``."""
        shape = loop_result_dict(self.loop_result)
        shape.update(
            text=self.text,
            provider=self.provider_id,
            model=self.model,
            stop_reason=self.stop_reason,
            stop_notice=self.stop_notice(),
            required_provider_confidence=(
                None if self.required_provider_confidence is None else self.required_provider_confidence.label
            ),
        )
        return shape


ANSWERED = frozenset({"answered", "stop-condition", "limit"})
"""The stop reasons of a turn that ended with the model's answer."""

_STOPPED = {
    "limit-no-answer": "the model kept calling tools after the limit was reached and gave no answer",
    "no-execute": "the model called tools that only the caller can run",
    "approval-pending": "tool calls wait for an approval",
    "provider-approval": "the provider waits for an approval of its own tool",
    "provider-ended": "the provider's answer cannot be continued",
    "confidence-required": "a tool result may not be sent to this provider",
}


def stop_notice(result: LoopResult, provider_id: str | None = None) -> str | None:
    """A line saying why a run ended other than with a plain answer (None when it simply answered)."""
    reason = result.stop_reason
    detail = f": {result.stop_detail}" if result.stop_detail else ""
    if reason == "limit":
        return f"Note: {result.stop_detail or 'a limit was reached'}; the model answered without more tools."
    if reason in _STOPPED:
        text = f"Stopped ({reason}): {_STOPPED[reason]}{detail}"
        if result.pending_tool_calls:
            text += ". Waiting: " + ", ".join(call.tool_name for call in result.pending_tool_calls)
        return text + ("" if text.endswith(".") else ".")
    return None


def loop_result_dict(result: LoopResult) -> dict[str, Any]:
    """The JSON shape of a run's result (steps, traces, sources, usage), the answer's text included."""
    usage = result.usage
    return {
        "text": result.text,
        "stop_reason": result.stop_reason,
        "stop_detail": result.stop_detail,
        "steps": [
            {
                "step": step.step_number,
                "provider": step.provider,
                "model": step.model,
                "finish_reason": step.finish_reason,
                "text": step.text,
                "tool_calls": [
                    {"id": call.tool_call_id, "name": call.tool_name, "input": call.input} for call in step.tool_calls
                ],
            }
            for step in result.steps
        ],
        "sources": [source.model_dump() for source in result.sources],
        "tool_searches": [
            {"call_id": record.call_id, "query": record.query, "found": list(record.found), "native": record.native}
            for record in result.tool_searches
        ],
        "traces": [trace.as_dict() for trace in result.traces],
        "guard": [{"tool_id": tool_id, **report.as_dict()} for tool_id, report in result.guard_reports],
        "withheld_results": [
            {"tool_call_id": part.tool_call_id, "tool_name": part.tool_name} for part in result.withheld_results
        ],
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "reasoning_tokens": usage.reasoning_tokens,
            "cached_input_tokens": usage.cached_input_tokens,
            "total_tokens": usage.total_tokens,
        },
        "required_provider_confidence": (
            None if result.required_provider_confidence is None else result.required_provider_confidence.label
        ),
    }


def partial_chat_error(error: ProviderError | ToolChoiceViolationError) -> tuple[dict[str, Any], list[str]]:
    """A failed turn for a person and for ``--json``: the error, and what happened before it (the tools
    that already ran, with their status)."""
    partial = error.partial_result
    lines = [f"Error: {type(error).__name__}: {error}"]
    shape: dict[str, Any] = {"error": {"type": type(error).__name__, "message": str(error)}, "partial": None}
    if partial is not None:
        shape["partial"] = loop_result_dict(partial)
        if partial.traces:
            ran = ", ".join(f"{trace.tool_id} ({trace.status.value})" for trace in partial.traces)
            lines.append(f"Before the error, {len(partial.traces)} tool call(s) had run: {ran}.")
        elif partial.steps:
            lines.append(f"Before the error, {len(partial.steps)} step(s) ran; no tool had run.")
    return shape, lines


class ChatStreamPrinter:
    """Prints a streamed turn's text as it arrives, each step's text on its own line (never glued to
    the step before). Call it with every stream part."""

    def __init__(self, write: Callable[[str], None]) -> None:
        self._write = write
        self.printed = False
        """Whether any text was printed."""
        self.text_of_last_step = ""
        self._step = -1
        self._ends_line = True

    def __call__(self, event: Any) -> None:
        if isinstance(event, StartStepPart):
            self._step = event.step_number
            self.text_of_last_step = ""
        elif isinstance(event, TextDelta) and event.text:
            if self.printed and not self.text_of_last_step and not self._ends_line:
                self._write("\n")
            self._write(event.text)
            self.printed = True
            self.text_of_last_step += event.text
            self._ends_line = event.text.endswith("\n")


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
    tool_choice: str | None = None,
    approve_tool: ApproveTool | None = None,
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
    :param tool_choice: ``auto``, ``none``, ``required`` or a tool (its id or the name the model calls);
        the provider's ``tool_choice`` when None. A tool that is not offered, or a choice the provider's
        server cannot honour, is a UsageError before any request.
    :param approve_tool: asked before each call of a tool that needs approval (without it such a call
        ends the turn, awaiting approval).
    :raises ConfigError: no provider configured, an unknown provider or API, a missing API key.
    :raises UsageError: the provider may not receive this chat's data.
    :raises ProviderError: the provider failed (unreachable, refused the key, rate limits...).
    """
    provider_id, provider, factory = _checked_provider(host, provider_id, chat_required_confidence)
    api_key = _api_key(host, provider_id, provider)
    selection = host.select(
        component, provider_id, selected=selected, chat_required_confidence=chat_required_confidence
    )
    tools = selection.runnable
    choice = _tool_choice(tool_choice if tool_choice is not None else provider.tool_choice, tools)
    options = _loop_options(host, provider, tools, system, choice, selected, on_event, approve_tool)
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
        server = getattr(adapter, "server", None)
        if tools and isinstance(server, ServerProfile):
            server.check_tool_choice(choice, provider_id)
        result = await _run_loop(loop, messages, stream, on_event)
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


def _checked_provider(
    host: Host, provider_id: str | None, chat_required_confidence: ConfidenceLevel | None
) -> tuple[str, ProviderSection, Any]:
    """The provider to use, checked: it may receive this chat's data, and an adapter speaks its API."""
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
    return provider_id, provider, factory


def _loop_options(
    host: Host,
    provider: ProviderSection,
    tools: Sequence[RegisteredTool],
    system: str | None,
    choice: ToolChoice,
    selected: Sequence[str] | None,
    on_event: ChatEventHandler | None,
    approve_tool: ApproveTool | None,
) -> LoopOptions:
    """The loop's options from the host's limits and the provider's settings."""
    limits = host.config.limits
    options = LoopOptions(
        max_steps=limits.max_steps,
        max_tool_calls=limits.max_tool_calls,
        max_result_chars=limits.max_tool_result_characters,
        tool_call_concurrency=1,
        on_event=on_event,
        tool_search=_tool_search_options(host, selected),
        tool_choice=choice,
        settings={} if provider.max_output_tokens is None else {"max_output_tokens": provider.max_output_tokens},
        approve_tool=approve_tool,
    )
    instructions = append_instructions(system, tools)
    if instructions:
        options.instructions = instructions
    return options


async def _run_loop(
    loop: ToolCallingLoop, messages: list[Message], stream: bool, on_event: ChatEventHandler | None
) -> LoopResult:
    """Run the loop, streamed (every part to ``on_event``) or not; its LoopResult."""
    if not stream:
        return await loop.run(messages)
    streamed = loop.stream(messages)
    async for part in streamed:
        if on_event is not None:
            outcome = on_event(part)
            if inspect.isawaitable(outcome):
                await outcome
    return streamed.result


def _tool_search_options(host: Host, selected: Sequence[str] | None) -> ToolSearchOptions:
    """``[tool_search]``, with the user's own selection always offered up front."""
    options = host.config.tool_search.options()
    if not selected:
        return options
    return dataclasses.replace(options, always=(*options.always, *selected))


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
    from toolplug.config_paths import config_locations_hint

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
            # The key joins every other secret in the one scrubber, so no output can show it.
            check_secret(value, f"the API key in the environment variable {provider.api_key_env}")
            register_secrets((value,))
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
            f"toolplug settings provider-key {provider_id} — or set "
            f"{environment_variable('provider', f'{provider_id}.{PROVIDER_KEY_FIELD}')}, or set "
            f"providers.{provider_id}.api_key_env to the name of an environment variable holding it.",
            key=f"providers.{provider_id}",
        )
    return None  # a server at its own base_url (a local one) may need no key


def _tool_choice(value: str | None, tools: Sequence[RegisteredTool]) -> ToolChoice:
    """``auto``, ``none``, ``required``, or the tool with that id or name (by the name the model calls)."""
    if value is None or value == "auto":
        return ToolChoice.AUTO
    if value == "none":
        return ToolChoice.NONE
    if value == "required":
        return ToolChoice.REQUIRED
    for tool in tools:
        if value in (tool.id, tool.name):
            return ToolChoice.tool(tool.name)
    offered = ", ".join(tool.id for tool in tools) or "none"
    raise UsageError(
        f"tool choice {value!r} is not auto, none, required or an offered tool; the offered tools are: {offered}"
    )


def _highest(first: ConfidenceLevel | None, second: ConfidenceLevel | None) -> ConfidenceLevel | None:
    if first is None:
        return second
    if second is None:
        return first
    return max(first, second)


__all__ = [
    "ANSWERED",
    "PROVIDER_KEY_FIELD",
    "ChatEventHandler",
    "ChatResult",
    "ChatStreamPrinter",
    "loop_result_dict",
    "partial_chat_error",
    "provider_keyring_name",
    "run_host_chat",
    "stop_notice",
]
