"""The chat behind the page: an AI SDK chat request in, the UI message stream of one host chat turn out.

:class:`WebChat` needs no web framework: :meth:`WebChat.prepare` reads and checks a request body,
:meth:`WebChat.stream` runs the turn with the host's rules (:func:`toolplug.chat.run_host_chat`: the
runnable tools of the component, one call at a time, the limits of ``[limits]``, the provider
confidence the chat requires) and yields the chunks. Besides the chunks of
:func:`toolplug.ui_stream.to_ui_message_stream` it writes:

- a transient ``data-tool-status`` chunk when a call starts running (``{"toolCallId", "status":
  "running"}``), so a UI can tell a running call from a queued one;
- a ``message-metadata`` chunk ``{"requiredProviderConfidence": "medium"}`` when a tool result raises
  the confidence the chat requires from its providers;
- a ``signature`` on each ``tool-approval-request`` (see :class:`~toolplug.webui.protocol.ApprovalSigner`).

Closing the stream early (the client stopped) cancels the run: the running call is cancelled and
queued calls never start.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from toolplug.definitions import ConfidenceLevel
from toolplug.errors import ProviderError, ToolplugError, UsageError
from toolplug.loop import StepFinishEvent, StepStartEvent, ToolFinishedEvent, ToolRunningEvent
from toolplug.messages import ToolUIApproval, ToolUIPart, UIMessage, convert_to_model_messages
from toolplug.ui_stream import UIMessageChunk, to_ui_message_stream
from toolplug.webui.protocol import ApprovalSigner, ChatRequest, parse_chat_request, sign_chunks

if TYPE_CHECKING:
    from toolplug.host import Host

logger = logging.getLogger("toolplug.webui")

CONFIDENCE_KEY = "requiredProviderConfidence"
"""The message-metadata key that carries the chat's required provider confidence (a level's label)."""

UNANSWERED_APPROVAL = "The user sent a new message without answering this approval request."
"""The denial reason of an approval request left open when the user wrote on."""

REDACTED = "[redacted]"

_END = object()


class WebChat:
    """Runs chat turns for a chat UI; see the module docstring.

    :param host: the host whose tools, settings and providers the chat uses.
    :param component: the host component the chat runs as.
    :param provider_id: a provider of the host config; the first configured one when None.
    :param system: the chat's own system prompt (the tools' instructions are appended).
    :param signer: signs approval requests; a random key per instance by default.
    :param max_chats: how many chats' required confidence is kept in memory.
    :raises ConfigError: the component or provider is unknown.
    """

    def __init__(
        self,
        host: Host,
        *,
        component: str = "chat",
        provider_id: str | None = None,
        system: str | None = None,
        signer: ApprovalSigner | None = None,
        max_chats: int = 1000,
    ) -> None:
        host.scope(component, provider_id)  # an unknown component or provider fails here, not per request
        self.host = host
        self.component = component
        self.provider_id = provider_id if provider_id is not None else next(iter(host.config.providers), None)
        self.system = system
        self.signer = signer if signer is not None else ApprovalSigner()
        self._max_chats = max_chats
        self._required: OrderedDict[str, ConfidenceLevel] = OrderedDict()
        self._active: dict[str, asyncio.Task[Any]] = {}
        self._secrets = self._known_secrets()

    # -- what the page shows besides the chat ------------------------------------------------------------

    def tools_payload(self) -> dict[str, Any]:
        """``GET /api/tools``: the provider, and every tool with its status and reasons.

        Names, titles, descriptions and reasons only: no setting values, no secrets.
        """
        host = self.host
        provider = host.config.providers.get(self.provider_id) if self.provider_id else None
        tools = []
        for status in host.tool_statuses(self.component, self.provider_id):
            entry: dict[str, Any] = status.as_dict()
            try:
                registered = host.registry.get(status.id)
            except ToolplugError:
                registered = None
            if registered is not None and status.status != "invalid":
                implementation = registered.implementation
                entry["title"] = getattr(implementation, "display_name", "") or registered.definition.title or status.id
                entry["description"] = getattr(implementation, "description", "")
                entry["needsApproval"] = implementation.needs_approval is not False
                entry["sensitiveArguments"] = sorted(implementation.sensitive_argument_names)
            tools.append(entry)
        return {
            "component": self.component,
            "provider": None
            if provider is None
            else {"id": self.provider_id, "model": provider.model, "confidence": provider.confidence.label},
            "tools": tools,
        }

    # -- a turn -------------------------------------------------------------------------------------------

    def prepare(self, body: Any) -> ChatRequest:
        """Read a request body and refuse approvals this server never asked for.

        :raises ChatRequestError: the body is malformed, or an approval's signature does not match.
        """
        request = parse_chat_request(body)
        self.signer.check(request)
        return request

    async def stream(self, request: ChatRequest) -> AsyncIterator[UIMessageChunk]:
        """The UI message stream of one turn; closing it early cancels the run."""
        previous = self._active.pop(request.chat_id, None)
        if previous is not None and not previous.done():
            previous.cancel()  # one run per chat: a new request replaces a run the client gave up
        required = self._required_confidence(request)
        queue: asyncio.Queue[Any] = asyncio.Queue()
        state = {"required": required}
        task = asyncio.ensure_future(self._run(request, queue, state))
        self._active[request.chat_id] = task
        calls: dict[str, tuple[str, Any]] = {}
        message_id = request.messages[-1].id if request.continues_assistant else f"msg-{uuid.uuid4().hex}"
        try:
            chunks = to_ui_message_stream(_drain(queue), on_error=_error_text, message_id=message_id)
            redact = self.redactor()
            async for chunk in chunks:
                for signed in sign_chunks([chunk], self.signer, request.chat_id, calls):
                    for safe in redact(signed):
                        yield safe
        finally:
            if not task.done():
                task.cancel()
            with contextlib.suppress(BaseException):
                await task
            if self._active.get(request.chat_id) is task:
                del self._active[request.chat_id]
            if state["required"] is not None:
                self._remember(request.chat_id, state["required"])

    async def _run(self, request: ChatRequest, queue: asyncio.Queue[Any], state: dict[str, Any]) -> None:
        from toolplug.chat import run_host_chat

        async def on_event(event: Any) -> None:
            if isinstance(event, ToolRunningEvent):
                call_id = event.tool_call.tool_call_id
                queue.put_nowait(
                    {
                        "type": "data-tool-status",
                        "id": f"status-{call_id}",
                        "data": {"toolCallId": call_id, "status": "running"},
                        "transient": True,
                    }
                )
            elif isinstance(event, ToolFinishedEvent):
                level = event.outcome.result.required_provider_confidence
                if level is not None and (state["required"] is None or level > state["required"]):
                    state["required"] = level
                    queue.put_nowait({"type": "message-metadata", "messageMetadata": {CONFIDENCE_KEY: level.label}})
            elif not isinstance(event, StepStartEvent | StepFinishEvent):
                queue.put_nowait(event)  # a stream part (the steps have their own parts)

        try:
            history = _close_open_approvals(request.messages)
            messages = convert_to_model_messages(history, ignore_incomplete_tool_calls=True)
            await run_host_chat(
                self.host,
                messages,
                provider_id=self.provider_id,
                component=self.component,
                stream=True,
                on_event=on_event,
                system=self.system,
                chat_required_confidence=state["required"],
            )
        except asyncio.CancelledError:
            queue.put_nowait({"type": "abort", "reason": "stopped"})
            raise
        except Exception as exc:
            queue.put_nowait(exc)
        finally:
            queue.put_nowait(_END)

    # -- the chat's required confidence ---------------------------------------------------------------------

    def _required_confidence(self, request: ChatRequest) -> ConfidenceLevel | None:
        """The highest of what this server remembers and what the chat's messages say: a client can
        raise the requirement, never lower it."""
        levels = [self._required[request.chat_id]] if request.chat_id in self._required else []
        for message in request.messages:
            metadata = message.metadata
            if message.role == "assistant" and isinstance(metadata, dict) and CONFIDENCE_KEY in metadata:
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    levels.append(ConfidenceLevel.parse(metadata[CONFIDENCE_KEY]))
        return max(levels) if levels else None

    def _remember(self, chat_id: str, level: ConfidenceLevel) -> None:
        self._required[chat_id] = level
        self._required.move_to_end(chat_id)
        while len(self._required) > self._max_chats:
            self._required.popitem(last=False)

    # -- secrets --------------------------------------------------------------------------------------------

    def _known_secrets(self) -> list[str]:
        """The provider's API key, wherever it lives, so no chunk can carry it to the page."""
        values: list[str] = []
        provider = self.host.config.providers.get(self.provider_id) if self.provider_id else None
        if provider is None:
            return values
        if provider.api_key_env and os.environ.get(provider.api_key_env):
            values.append(os.environ[provider.api_key_env])
        with contextlib.suppress(Exception):  # no keyring backend: nothing stored there to leak
            stored = self.host.settings.secrets.get("provider", f"{self.provider_id}.api_key")
            if stored:
                values.append(stored)
        return [value for value in values if len(value) >= 4]

    def redactor(self) -> StreamRedactor:
        """A redactor for one stream, holding the known secrets."""
        return StreamRedactor(self._secrets)


class StreamRedactor:
    """Replaces secrets in chunks, also where a secret is split across deltas.

    A delta's text is held back as far as it could be the start of a secret, and sent with the next
    delta of the same block (or when the block ends), so no split secret passes in pieces.
    """

    _DELTAS: ClassVar[dict[str, tuple[str, str]]] = {
        "text-delta": ("id", "delta"),
        "reasoning-delta": ("id", "delta"),
        "tool-input-delta": ("toolCallId", "inputTextDelta"),
    }
    _ENDS: ClassVar[dict[str, str]] = {"text-end": "id", "reasoning-end": "id", "tool-input-available": "toolCallId",
                                       "tool-input-error": "toolCallId"}

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = [secret for secret in secrets if secret]
        self._held: dict[tuple[str, str], tuple[UIMessageChunk, str]] = {}

    def __call__(self, chunk: UIMessageChunk) -> list[UIMessageChunk]:
        """The chunks to send for ``chunk`` (held text first)."""
        if not self.secrets:
            return [chunk]
        kind = str(chunk.get("type"))
        if kind in self._DELTAS:
            key_field, text_field = self._DELTAS[kind]
            key = (kind, str(chunk.get(key_field)))
            held = self._held.pop(key, (chunk, ""))[1]
            text = _redacted(held + str(chunk.get(text_field, "")), self.secrets)
            keep = self._unsafe_tail(text)
            if keep:
                self._held[key] = (chunk, text[-keep:])
                text = text[:-keep]
            return [{**chunk, text_field: text}] if text else []
        out = self._flush(kind, chunk)
        out.append(_redacted(chunk, self.secrets))
        return out

    def _flush(self, kind: str, chunk: UIMessageChunk) -> list[UIMessageChunk]:
        """The held text of the block ``chunk`` ends (all of it at the end of the stream)."""
        flushed: list[UIMessageChunk] = []
        for key in list(self._held):
            delta_kind, block = key
            key_field, text_field = self._DELTAS[delta_kind]
            ends_it = self._ENDS.get(kind) == key_field and str(chunk.get(key_field)) == block
            if ends_it or kind in ("finish", "error", "abort", "finish-step"):
                original, text = self._held.pop(key)
                flushed.append({**original, text_field: text})
        return flushed

    def _unsafe_tail(self, text: str) -> int:
        """How many trailing characters of ``text`` could begin a secret."""
        longest = 0
        for secret in self.secrets:
            for size in range(min(len(secret) - 1, len(text)), longest, -1):
                if secret.startswith(text[-size:]):
                    longest = size
                    break
        return longest


async def _drain(queue: asyncio.Queue[Any]) -> AsyncIterator[Any]:
    while True:
        item = await queue.get()
        if item is _END:
            return
        if isinstance(item, BaseException):
            raise item
        yield item


def _redacted(value: Any, secrets: Iterable[str]) -> Any:
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {key: _redacted(inner, secrets) for key, inner in value.items()}
    if isinstance(value, list):
        return [_redacted(inner, secrets) for inner in value]
    return value


def _close_open_approvals(messages: list[UIMessage]) -> list[UIMessage]:
    """An approval request the user left open and wrote past becomes a denial the model can read; only
    the last message may still wait for answers."""
    closed: list[UIMessage] = []
    for index, message in enumerate(messages):
        is_last = index == len(messages) - 1
        if is_last or message.role != "assistant":
            closed.append(message)
            continue
        parts: list[Any] = []
        for part in message.parts:
            if isinstance(part, ToolUIPart) and part.state == "approval-requested" and part.approval is not None:
                approval = ToolUIApproval(part.approval.id, False, UNANSWERED_APPROVAL, part.approval.is_automatic)
                part = ToolUIPart(
                    part.tool_call_id, part.tool_name, "output-denied", input=part.input, dynamic=part.dynamic,
                    title=part.title, approval=approval, call_provider_metadata=part.call_provider_metadata,
                    tool_metadata=part.tool_metadata,
                )
            parts.append(part)
        closed.append(UIMessage(message.id, message.role, parts, message.metadata))
    return closed


def _error_text(error: BaseException | str) -> str:
    """What the page shows for an error: toolplug's own messages (written for people), else a plain
    sentence; the details of anything else stay in the server's log."""
    if isinstance(error, str):
        return error  # the text the model read for a failed call
    if isinstance(error, ProviderError):
        return f"The model provider failed: {error}"
    if isinstance(error, UsageError | ToolplugError):
        return str(error)
    logger.error("the chat turn failed", exc_info=error)
    return "The chat turn failed on the server; its log has the details."


__all__ = ["CONFIDENCE_KEY", "UNANSWERED_APPROVAL", "WebChat"]
