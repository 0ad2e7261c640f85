"""The provider adapter protocol and the round types every adapter returns.

One loop drives every provider. An adapter translates between the canonical conversation
(:mod:`toolplug.messages`) and one provider API's wire format, and is stateful for a single call: it
accumulates the conversation the next round has to see. The loop asks it three things:

1. :meth:`ProviderAdapter.run_round` (or :meth:`ProviderAdapter.stream_round`): send the conversation
   with the request's tools and options, and report what the model said as a :class:`Round`.
2. :meth:`ProviderAdapter.record_model_turn`: remember the model's turn, so the next round sees it.
   The round handed back may differ from the one returned: calls the loop repaired or refined replace
   the model's calls, and approval requests may be added. Build the replay from the round's parts;
   whatever must come back unchanged (reasoning items, thinking signatures) is in their
   ``provider_metadata``.
3. :meth:`ProviderAdapter.record_tool_result`: remember one tool result, correlated by call id. The
   loop records the results of a round in model order and only then runs the next round, so an
   adapter whose API wants all results of a round in one message (Anthropic) buffers them until then.

Everything else (limits, validation, approval, concurrency, events, sources) is the loop's business.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol, TypeAlias, runtime_checkable

from toolplug.definitions import ToolDefinition
from toolplug.messages import (
    AssistantPart,
    Message,
    ProviderMetadata,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolApprovalRequestPart,
    ToolCallPart,
    ToolResultPart,
)

if TYPE_CHECKING:
    from toolplug.calls import ToolChoice

FinishReason: TypeAlias = Literal["stop", "length", "content-filter", "tool-calls", "error", "other"]
"""Why the model stopped: answered, ran out of tokens, was filtered, called tools, failed, other."""


@dataclass(slots=True)
class Usage:
    """Token counts of one round, or summed over a run. None where a provider does not report it."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    cached_input_tokens: int | None = None

    @property
    def total_tokens(self) -> int | None:
        """Input plus output tokens, when either is known."""
        if self.input_tokens is None and self.output_tokens is None:
            return None
        return (self.input_tokens or 0) + (self.output_tokens or 0)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            _add(self.input_tokens, other.input_tokens),
            _add(self.output_tokens, other.output_tokens),
            _add(self.reasoning_tokens, other.reasoning_tokens),
            _add(self.cached_input_tokens, other.cached_input_tokens),
        )


def _add(first: int | None, second: int | None) -> int | None:
    if first is None:
        return second
    if second is None:
        return first
    return first + second


@dataclass(slots=True)
class RoundRequest:
    """What the loop asks of one round. Adapters map it to their wire format.

    The conversation itself is the adapter's state (seeded by :meth:`ProviderAdapter.begin`,
    grown by the two ``record_*`` methods); a request carries only what may change per step.
    """

    step_number: int
    """0 for the first round of a call."""
    instructions: Sequence[SystemMessage]
    """The system messages leading the conversation this step, in order (may be empty)."""
    tools: Sequence[ToolDefinition]
    """The tools offered this step, in a stable order; empty when none are offered."""
    tool_choice: ToolChoice
    """auto, required, none, or one named tool."""
    tool_call_concurrency: int | None = None
    """How many of the model's calls toolplug runs at once (None: all). See :attr:`parallel_tool_calls`."""
    final_answer: bool = False
    """A limit was reached: this round offers no tools and asks the model for its final answer.
    An API that needs the tool definitions to read earlier tool calls may resend the previous ones
    with tool choice none."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Generation settings: ``max_output_tokens``, ``temperature``, ``top_p``, ``stop_sequences``..."""
    provider_options: Mapping[str, Any] = field(default_factory=dict)
    """Provider-specific options keyed by provider name; passed through untouched."""

    @property
    def parallel_tool_calls(self) -> bool | None:
        """False when tools are offered and calls run one at a time; None to omit the parameter.

        Chat Completions sends it as ``parallel_tool_calls`` and extra parameters cannot override it.
        """
        if self.tools and self.tool_call_concurrency == 1:
            return False
        return None


@dataclass(slots=True)
class Round:
    """What the model said in one round, in the order it said it.

    ``content`` mixes text, reasoning, files, the model's tool calls (``input`` as the raw JSON text
    or an already parsed object), and, for provider-executed tools, the provider's calls, results and
    approval requests. Each part carries the provider metadata that must be replayed unchanged.
    """

    content: list[AssistantPart]
    finish_reason: FinishReason = "stop"
    usage: Usage = field(default_factory=Usage)
    provider: str = ""
    """The provider id that answered (the host's name for it, e.g. ``openai``)."""
    model: str = ""
    """The model id that answered, as the provider reports it."""
    response_id: str | None = None
    provider_metadata: ProviderMetadata | None = None
    """Raw data of the whole response an adapter needs later (response id, output items, stop details)."""
    raw_finish_reason: str | None = None
    """The provider's own finish reason, unmapped."""
    ends_conversation: str | None = None
    """Set when this answer cannot be continued (e.g. a Responses call without a call id): why. The loop
    stops with stop reason ``provider-ended`` and the adapter refuses further rounds."""

    def but(
        self, *, content: list[AssistantPart] | None = None, provider: str | None = None, model: str | None = None
    ) -> Round:
        """A copy with other content, provider or model (written out: ``dataclasses.replace`` costs ~10 µs,
        and the loop copies every round)."""
        return Round(
            self.content if content is None else content,
            self.finish_reason,
            self.usage,
            self.provider if provider is None else provider,
            self.model if model is None else model,
            self.response_id,
            self.provider_metadata,
            self.raw_finish_reason,
            self.ends_conversation,
        )

    @property
    def text(self) -> str:
        """The text parts joined."""
        return "".join(part.text for part in self.content if isinstance(part, TextPart))

    @property
    def reasoning_text(self) -> str:
        """The reasoning parts joined."""
        return "".join(part.text for part in self.content if isinstance(part, ReasoningPart))

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The calls toolplug has to run (not provider-executed), in model order."""
        return [
            part for part in self.content if isinstance(part, ToolCallPart) and not part.provider_executed
        ]

    @property
    def provider_executed_calls(self) -> list[ToolCallPart]:
        """The calls the provider ran itself."""
        return [part for part in self.content if isinstance(part, ToolCallPart) and part.provider_executed]

    @property
    def provider_results(self) -> list[ToolResultPart]:
        """The results of provider-executed calls."""
        return [part for part in self.content if isinstance(part, ToolResultPart)]

    @property
    def approval_requests(self) -> list[ToolApprovalRequestPart]:
        """Approval requests (a provider's, or those the loop added for calls awaiting approval)."""
        return [part for part in self.content if isinstance(part, ToolApprovalRequestPart)]


# --- streaming --------------------------------------------------------------------------------------


@dataclass(slots=True)
class TextDelta:
    """A piece of text."""

    text: str
    type: ClassVar[str] = "text-delta"


@dataclass(slots=True)
class ReasoningDelta:
    """A piece of reasoning."""

    text: str
    type: ClassVar[str] = "reasoning-delta"


@dataclass(slots=True)
class ToolInputStartDelta:
    """The model started a tool call.

    An adapter sets only the id, the name and ``provider_executed``; the loop adds the offered tool's
    ``title``, ``tool_metadata`` and ``dynamic`` (True for a dynamic tool or an unknown name) before it
    emits the delta.
    """

    tool_call_id: str
    tool_name: str
    provider_executed: bool = False
    title: str | None = None
    tool_metadata: dict[str, Any] | None = None
    dynamic: bool = False
    type: ClassVar[str] = "tool-input-start"


@dataclass(slots=True)
class ToolInputDelta:
    """A piece of a tool call's JSON arguments."""

    tool_call_id: str
    delta: str
    type: ClassVar[str] = "tool-input-delta"


@dataclass(slots=True)
class ToolInputEndDelta:
    """A tool call's arguments are complete."""

    tool_call_id: str
    type: ClassVar[str] = "tool-input-end"


RoundDelta: TypeAlias = TextDelta | ReasoningDelta | ToolInputStartDelta | ToolInputDelta | ToolInputEndDelta


# --- the protocol ------------------------------------------------------------------------------------


@runtime_checkable
class ProviderAdapter(Protocol):
    """A provider API adapter, stateful for one call. See the module docstring."""

    provider_id: str
    """The host's name for the provider (steps and traces name it)."""
    model_id: str
    """The model requested."""

    def begin(self, messages: Sequence[Message]) -> None:
        """Start the call with the conversation so far (without the leading instructions)."""
        ...

    async def run_round(self, request: RoundRequest) -> Round:
        """Run one non-streamed round and report what the model said."""
        ...

    def stream_round(self, request: RoundRequest) -> AsyncIterator[RoundDelta | Round]:
        """Run one streamed round: yield deltas as they arrive, then the complete :class:`Round` last."""
        ...

    def record_model_turn(self, round: Round) -> None:
        """Remember the model's turn (calls replaced by their repaired or refined versions)."""
        ...

    def record_tool_result(self, call_id: str, result: ToolResultPart) -> None:
        """Remember the result of the call ``call_id``."""
        ...


@runtime_checkable
class ProviderProfile(Protocol):
    """What a factory reads from a provider's configuration (``[providers.<id>]`` in the host config)."""

    @property
    def api(self) -> str:
        """The API name (``openai-chat``, ``openai-responses``, ``anthropic`` or a plugin's)."""
        ...

    @property
    def model(self) -> str:
        """The model id."""
        ...

    @property
    def base_url(self) -> str | None:
        """The API's base URL; the vendor's when None."""
        ...

    @property
    def extra(self) -> dict[str, Any]:
        """Extra request-body parameters."""
        ...


@runtime_checkable
class ProviderAdapterFactory(Protocol):
    """Makes adapters for one API; plugins return these from ``register_provider_adapters``."""

    api: str
    """The API name a provider's ``api`` setting selects."""

    def create(
        self,
        profile: ProviderProfile,
        *,
        provider_id: str,
        api_key: str | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> ProviderAdapter:
        """A fresh adapter for one call.

        :param profile: the provider's configuration.
        :param provider_id: the host's name for the provider.
        :param api_key: the key from the keyring or the named environment variable; never logged.
        :param http_client: the host's shared HTTP client (one per host).
        """
        ...


__all__ = [
    "FinishReason",
    "ProviderAdapter",
    "ProviderAdapterFactory",
    "ProviderProfile",
    "ReasoningDelta",
    "Round",
    "RoundDelta",
    "RoundRequest",
    "TextDelta",
    "ToolInputDelta",
    "ToolInputEndDelta",
    "ToolInputStartDelta",
    "Usage",
]
