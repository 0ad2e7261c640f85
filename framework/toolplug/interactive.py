"""``toolplug chat`` without a prompt: a conversation in the terminal, or driven line by line through a pipe.

Each line is a turn; the history is kept across turns (and the highest provider confidence the tool
results require). While a tool runs, a status line on stderr names it with the time it has taken. A
tool that needs approval is asked about on stderr: ``y`` runs it; ``n`` denies it, and a reason may
follow (``n not today``) or comes on the next line; the model reads the reason. The answer goes to
stdout, then the sources used by tools. ``/exit`` or end of input (Ctrl-D) ends the conversation,
``/reset`` forgets the history. A provider failure ends the turn, not the conversation.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from toolplug.errors import ProviderError, ToolChoiceViolationError

if TYPE_CHECKING:
    from toolplug.chat import ChatResult
    from toolplug.definitions import ConfidenceLevel
    from toolplug.host import Host
    from toolplug.loop import ToolApproval, ToolApprovalRequest
    from toolplug.messages import Message

EXIT_COMMANDS = frozenset({"/exit", "/quit"})
RESET_COMMAND = "/reset"
TICK_SECONDS = 0.2
"""How often the status line's elapsed time is redrawn on a terminal."""


class LineReader:
    """Reads the person's lines: ``input()`` (with line editing) on a terminal, plain lines from a pipe."""

    def __init__(self, stream: TextIO | None = None, err: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stdin
        self.err = err if err is not None else sys.stderr
        self.interactive = self.stream.isatty()
        self.ended = False

    def read(self, prompt: str) -> str | None:
        """The next line without its newline; None at the end of input."""
        if self.ended:
            return None
        if self.interactive:
            try:
                return input(prompt)
            except EOFError:
                self.ended = True
                self.err.write("\n")
                return None
        self.err.write(prompt)
        self.err.flush()
        line = self.stream.readline()
        if not line:
            self.ended = True
            return None
        return line.rstrip("\r\n")


@dataclass
class StatusLine:
    """The running tool and its elapsed time on stderr: redrawn in place on a terminal, one line otherwise."""

    err: TextIO
    live: bool
    clock: Callable[[], float] = time.monotonic
    _started: dict[str, tuple[str, float]] = field(default_factory=dict)
    _ticker: asyncio.Task[None] | None = None

    def started(self, call_id: str, tool_name: str) -> None:
        self._started[call_id] = (tool_name, self.clock())
        if self.live:
            self._draw()
            if self._ticker is None:
                self._ticker = asyncio.get_running_loop().create_task(self._tick())
        else:
            self._write(f"[running {tool_name}]\n")

    def finished(self, call_id: str, status: str) -> None:
        tool_name, began = self._started.pop(call_id, ("?", self.clock()))
        elapsed = self.clock() - began
        self._clear()
        self._write(f"[{tool_name} {status} after {elapsed:.1f} s]\n")
        if self._started:
            self._draw()
        else:
            self.stop()

    def stop(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None

    async def _tick(self) -> None:
        while self._started:
            await asyncio.sleep(TICK_SECONDS)
            self._draw()

    def _draw(self) -> None:
        if not self.live or not self._started:
            return
        now = self.clock()
        running = ", ".join(f"{name} {now - began:.1f} s" for name, began in self._started.values())
        self._write(f"\r\x1b[2K[running {running}]")

    def _clear(self) -> None:
        if self.live:
            self._write("\r\x1b[2K")

    def _write(self, text: str) -> None:
        self.err.write(text)
        self.err.flush()


class Conversation:
    """One interactive chat: the history, the confidence the chat now requires, and the terminal's streams."""

    def __init__(
        self,
        host: Host,
        *,
        provider_id: str | None = None,
        component: str = "chat",
        system: str | None = None,
        stream: bool = False,
        record_dir: str | None = None,
        reader: LineReader | None = None,
        out: TextIO | None = None,
        err: TextIO | None = None,
        chat_options: dict[str, Any] | None = None,
    ) -> None:
        self.host = host
        self.provider_id = provider_id
        self.component = component
        self.system = system
        self.stream = stream
        self.record_dir = record_dir
        self.out = out if out is not None else sys.stdout
        self.err = err if err is not None else sys.stderr
        self.reader = reader or LineReader(err=self.err)
        self.chat_options = dict(chat_options or {})
        self.history: list[Message] = []
        self.required_confidence: ConfidenceLevel | None = None
        self.status = StatusLine(self.err, live=self.reader.interactive and self.err.isatty())
        self._streamed: list[str] = []

    async def run(self) -> None:
        """Read turns until ``/exit`` or the end of input."""
        from toolplug.providers.http import new_http_client

        provider = self.provider_id or next(iter(self.host.config.providers), None) or "no provider"
        self._note(f"Chat with {provider}. /exit or Ctrl-D ends it, /reset forgets the conversation.")
        async with new_http_client() as client:
            while True:
                line = await asyncio.to_thread(self.reader.read, "you> " if self.reader.interactive else "")
                if line is None or line.strip() in EXIT_COMMANDS:
                    return
                if line.strip() == RESET_COMMAND:
                    self.history.clear()
                    self._note("The conversation is forgotten.")
                    continue
                if line.strip():
                    await self.turn(line, http_client=client)

    async def turn(self, prompt: str, *, http_client: Any = None) -> ChatResult | None:
        """One turn: the prompt with the history; a provider failure is reported and the turn dropped."""
        from toolplug.chat import run_host_chat
        from toolplug.messages import UserMessage

        messages = [*self.history, UserMessage(prompt)]
        self._streamed = []
        try:
            result = await run_host_chat(
                self.host, messages, provider_id=self.provider_id, component=self.component,
                stream=self.stream, on_event=self._on_event, record_dir=self.record_dir, system=self.system,
                chat_required_confidence=self.required_confidence, http_client=http_client,
                approve_tool=self._approve, **self.chat_options,
            )
        except (ProviderError, ToolChoiceViolationError) as exc:
            self.status.stop()
            self._note(f"Error: {type(exc).__name__}: {exc} (the turn is dropped; try again or /exit)")
            return None
        finally:
            self.status.stop()
        self.history = [*messages, *result.response_messages]
        self.required_confidence = result.required_provider_confidence
        self._print_answer(result)
        return result

    # -- events ---------------------------------------------------------------------------------------

    def _on_event(self, event: Any) -> None:
        from toolplug.loop import ToolFinishedEvent, ToolRunningEvent
        from toolplug.providers.base import TextDelta

        if isinstance(event, ToolRunningEvent):
            self.status.started(event.tool_call.tool_call_id, event.tool_call.tool_name)
        elif isinstance(event, ToolFinishedEvent):
            self.status.finished(event.tool_call.tool_call_id, event.outcome.status.value)
        elif isinstance(event, TextDelta) and self.stream:
            self._streamed.append(event.text)
            self.out.write(event.text)
            self.out.flush()

    async def _approve(self, request: ToolApprovalRequest) -> ToolApproval:
        from toolplug.execution import redact_arguments
        from toolplug.loop import ToolApproval

        self.status.stop()
        arguments = request.tool_call.input
        if isinstance(arguments, dict):
            arguments = redact_arguments(arguments, request.tool.implementation.sensitive_argument_names)
        shown = json.dumps(arguments, ensure_ascii=False) if not isinstance(arguments, str) else arguments
        self._note(f"{request.tool.id} wants to run with {shown}")
        while True:
            answer = await asyncio.to_thread(self.reader.read, "Allow? [y]es / [n]o (a reason may follow): ")
            if answer is None:
                return ToolApproval(False, "The user ended the chat before answering.")
            word, _, rest = answer.strip().partition(" ")
            if word.lower() in ("y", "yes"):
                return ToolApproval(True)
            if word.lower() in ("n", "no"):
                reason = rest.strip()
                if not reason:
                    reason = (await asyncio.to_thread(self.reader.read, "Reason (empty for none): ") or "").strip()
                return ToolApproval(False, f"The user denied this call: {reason}" if reason else None)
            self._note("Answer y or n.")

    # -- output ---------------------------------------------------------------------------------------

    def _print_answer(self, result: ChatResult) -> None:
        streamed = "".join(self._streamed)
        if streamed:
            if not streamed.endswith(result.text):
                self.out.write(f"\n{result.text}")
            self.out.write("\n")
        else:
            self.out.write(result.text.rstrip("\n") + "\n")
        if result.sources:
            self.out.write("\nSources used by tools:\n")
            for source in result.sources:
                self.out.write(f"  - {source.title or source.url}: {source.url}\n")
        from toolplug.guard import describe_findings

        findings = describe_findings(result.loop_result.guard_reports)
        if findings:
            self.out.write("\nPrompt-injection guard:\n" + "".join(f"  - {line}\n" for line in findings))
        self.out.write("\n")
        self.out.flush()
        notice = result.stop_notice()
        if notice is not None:
            self._note(notice)

    def _note(self, text: str) -> None:
        self.err.write(text + "\n")
        self.err.flush()


def run_interactive(host: Host, **options: Any) -> None:
    """Run a :class:`Conversation` until it ends (the ``toolplug chat`` command without a prompt)."""
    asyncio.run(Conversation(host, **options).run())


__all__ = ["Conversation", "LineReader", "StatusLine", "run_interactive"]
