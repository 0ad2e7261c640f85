"""The tool-calling loop: one harness for every provider.

:class:`ToolCallingLoop` asks the model through a provider adapter, runs what the model asked for, and
asks again, until the model answers, a stop condition holds, a call cannot be answered here (a tool
without execute, an approval nobody can give), or a limit is reached (then one more round without
tools asks for the final answer). ``generate_text``, ``stream_text`` and :class:`Agent` are the
SDK-style entry points over the same loop.

The loop never re-reads the history: each step appends its messages and results, so the cost of a
step does not grow with the length of the conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import enum
import inspect
import json
import logging
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias, TypedDict, Unpack

from toolplug.calls import (
    RefineToolInput,
    RepairToolCall,
    ToolChoice,
    ToolChoiceLike,
    check_tool_call,
    format_tool_error,
    parse_tool_call,
)
from toolplug.definitions import (
    ConfidenceLevel,
    OutputType,
    Source,
    ToolDefinition,
    ToolExecutionResult,
    ToolKind,
)
from toolplug.errors import (
    InvalidArgumentError,
    InvalidToolInputError,
    NoSuchToolError,
    ProviderError,
    ToolCallError,
    UsageError,
)
from toolplug.execution import (
    CallScope,
    CallStatus,
    ToolCallOutcome,
    ToolExecutor,
    ToolTrace,
    denied_outcome,
    redact_arguments,
)
from toolplug.messages import (
    AssistantMessage,
    AssistantPart,
    Message,
    SystemMessage,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from toolplug.providers.base import (
    FinishReason,
    ProviderAdapter,
    Round,
    RoundDelta,
    RoundRequest,
    ToolInputStartDelta,
    Usage,
)
from toolplug.registry import RegisteredTool
from toolplug.tool_search import (
    DeferredToolNotFoundError,
    ToolSearchOptions,
    ToolSearchRecord,
    ToolSearchState,
    offered_names,
    prepare_search,
    searches_in,
)
from toolplug.tools import ToolImplementation

logger = logging.getLogger("toolplug.loop")

# --- options ----------------------------------------------------------------------------------------


class _Unset(enum.Enum):
    UNSET = "UNSET"


UNSET = _Unset.UNSET
"""Marks an option that was not given (``instructions=None`` is an error, leaving it out is not)."""

Instructions: TypeAlias = str | SystemMessage | Sequence[SystemMessage]
"""A string, one system message, or several system messages in order."""

StopCondition: TypeAlias = Callable[[Sequence["StepResult"]], "bool | Awaitable[bool]"]
"""Decides after a step whose tool calls all ran whether the loop stops before the next model call."""

ToolsLike: TypeAlias = Sequence[ToolImplementation | RegisteredTool] | Mapping[str, ToolImplementation | RegisteredTool]


def step_count_is(count: int) -> StopCondition:
    """Stop once ``count`` steps have run."""
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise InvalidArgumentError("count", f"must be a positive integer, got {count!r}")

    def stop_after_steps(steps: Sequence[StepResult]) -> bool:
        return len(steps) >= count

    return stop_after_steps


def has_tool_call(*tool_names: str) -> StopCondition:
    """Stop after a step that called one of ``tool_names`` (any tool when none are named)."""
    names = frozenset(tool_names)

    def stop_on_tool_call(steps: Sequence[StepResult]) -> bool:
        if not steps:
            return False
        return any(not names or call.tool_name in names for call in steps[-1].tool_calls)

    return stop_on_tool_call


def loop_finished() -> StopCondition:
    """Never stop early: run until the model answers without calling a tool (or a limit is reached)."""

    def never_stop(steps: Sequence[StepResult]) -> bool:
        return False

    return never_stop


@dataclass(slots=True)
class ToolApproval:
    """An approval callback's decision, with an optional reason the model reads when denied."""

    approved: bool
    reason: str | None = None


@dataclass(slots=True)
class ToolApprovalRequest:
    """What an approval callback is asked about."""

    tool_call: ToolCallPart
    tool: RegisteredTool
    messages: Sequence[Message]


ApproveTool: TypeAlias = Callable[[ToolApprovalRequest], "bool | ToolApproval | Awaitable[bool | ToolApproval]"]
"""Returns True or ToolApproval(approved=True) to run the call; anything else denies it."""


@dataclass(slots=True)
class PrepareStepContext:
    """What ``prepare_step`` sees before a step."""

    step_number: int
    steps: Sequence[StepResult]
    messages: Sequence[Message]
    tool_choice: ToolChoice
    active_tools: Sequence[str] | None
    instructions: Sequence[SystemMessage]
    deferred_tools: Sequence[str] = ()
    """Names of the deferred tools (see tool search); they are sent once found."""
    found_tools: Sequence[str] = ()
    """Names of the deferred tools a search has found so far, in the order found."""


@dataclass(slots=True)
class PrepareStep:
    """Replacements for one step; None keeps the loop's value."""

    tool_choice: ToolChoiceLike | None = None
    active_tools: Sequence[str] | None = None
    instructions: Instructions | None = None


PrepareStepFunction: TypeAlias = Callable[[PrepareStepContext], "PrepareStep | Awaitable[PrepareStep | None] | None"]


@dataclass(slots=True)
class StepStartEvent:
    """A step is about to ask the model."""

    step_number: int
    request: RoundRequest
    type: ClassVar[str] = "step-start"


@dataclass(slots=True)
class ToolRunningEvent:
    """A tool call starts running (for a UI's running-tool status)."""

    step_number: int
    tool_call: ToolCallPart
    type: ClassVar[str] = "tool-running"


@dataclass(slots=True)
class ToolFinishedEvent:
    """A tool call finished; ``outcome`` has its status and trace."""

    step_number: int
    tool_call: ToolCallPart
    result: ToolResultPart
    outcome: ToolCallOutcome
    type: ClassVar[str] = "tool-finished"


@dataclass(slots=True)
class StepFinishEvent:
    """A step finished."""

    step: StepResult
    type: ClassVar[str] = "step-finish"


LoopEvent: TypeAlias = StepStartEvent | ToolRunningEvent | ToolFinishedEvent | StepFinishEvent
EventHandler: TypeAlias = Callable[[LoopEvent], "Awaitable[None] | None"]


@dataclass(slots=True, kw_only=True)
class LoopOptions:
    """How the loop runs. The defaults run every call of a step at once with no limits; the host's chat
    sets one call at a time and the limits of ``[limits]``."""

    stop_when: StopCondition | Sequence[StopCondition] | None = None
    """Stop conditions; any one holding stops the loop. None: run until the model answers."""
    max_tool_calls: int | None = None
    """Calls the loop runs in total; at the limit it asks for a final answer without tools."""
    max_result_chars: int | None = None
    """Characters of tool results in total; at the limit it asks for a final answer without tools."""
    max_steps: int | None = None
    """Rounds with tools offered; when the model is still calling tools after that many, one more round
    without tools asks for its final answer (a ``step_count_is`` stop condition just stops instead)."""
    tool_choice: ToolChoiceLike = "auto"
    active_tools: Sequence[str] | None = None
    """Names of the tools offered (all when None)."""
    tool_call_concurrency: int | None = None
    """How many calls of one step run at once; None: all of them."""
    tool_timeouts: Mapping[str, float] = field(default_factory=dict)
    """Seconds per tool name, overriding the tool's own timeout."""
    approve_tool: ApproveTool | None = None
    repair_tool_call: RepairToolCall | None = None
    experimental_repair_tool_call: RepairToolCall | None = None
    """Deprecated alias of repair_tool_call, which wins when both are set."""
    refine_tool_input: Mapping[str, RefineToolInput] = field(default_factory=dict)
    prepare_step: PrepareStepFunction | None = None
    instructions: Instructions | _Unset = UNSET
    """Wins over ``system``; None is rejected (leave it unset instead)."""
    system: str | None = None
    on_event: EventHandler | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Generation settings passed to the adapter (``max_output_tokens``, ``temperature``...)."""
    provider_options: Mapping[str, Any] = field(default_factory=dict)
    tool_search: ToolSearchOptions | None = None
    """Which tools are deferred until the model searches for them (tools their author marked deferred
    are deferred even without it)."""

    def validate(self) -> None:
        """Raise InvalidArgumentError for an option that cannot work (before any model call)."""
        concurrency = self.tool_call_concurrency
        if concurrency is not None and (
            isinstance(concurrency, bool) or not isinstance(concurrency, int) or concurrency < 1
        ):
            raise InvalidArgumentError(
                "tool_call_concurrency", f"must be a positive integer or None, got {concurrency!r}"
            )
        for name in ("max_tool_calls", "max_result_chars", "max_steps"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise InvalidArgumentError(name, f"must be a positive integer or None, got {value!r}")
        if self.instructions is None:
            raise InvalidArgumentError("instructions", "None is not instructions; leave the option unset instead")
        for tool_name, seconds in self.tool_timeouts.items():
            if not isinstance(seconds, int | float) or seconds <= 0:
                raise InvalidArgumentError("tool_timeouts", f"{tool_name!r}: must be positive seconds, got {seconds!r}")
        ToolChoice.parse(self.tool_choice)
        if self.tool_search is not None and not isinstance(self.tool_search, ToolSearchOptions):
            raise InvalidArgumentError("tool_search", f"must be ToolSearchOptions or None, got {self.tool_search!r}")


class LoopOptionsArgs(TypedDict, total=False):
    """The fields of :class:`LoopOptions` as keyword arguments of the entry points."""

    stop_when: StopCondition | Sequence[StopCondition] | None
    max_tool_calls: int | None
    max_result_chars: int | None
    max_steps: int | None
    tool_choice: ToolChoiceLike
    active_tools: Sequence[str] | None
    tool_call_concurrency: int | None
    tool_timeouts: Mapping[str, float]
    approve_tool: ApproveTool | None
    repair_tool_call: RepairToolCall | None
    experimental_repair_tool_call: RepairToolCall | None
    refine_tool_input: Mapping[str, RefineToolInput]
    prepare_step: PrepareStepFunction | None
    instructions: Instructions | _Unset
    system: str | None
    on_event: EventHandler | None
    settings: Mapping[str, Any]
    provider_options: Mapping[str, Any]
    tool_search: ToolSearchOptions | None


# --- results ----------------------------------------------------------------------------------------

StopReason: TypeAlias = Literal[
    "answered",
    "stop-condition",
    "limit",
    "no-execute",
    "approval-pending",
    "provider-approval",
    "provider-ended",
    "limit-no-answer",
    "confidence-required",
    "provider-error",
]
"""Why a run ended; ``provider-error`` only on the partial result an error carries.

``limit``: a limit was reached and the model answered in the final-answer round. ``limit-no-answer``:
it kept calling tools in two final-answer rounds (each call was answered with an error).
``confidence-required``: a tool result requires more confidence than the provider has (and the
provider is not trusted), so it was not sent; it is in :attr:`LoopResult.withheld_results`.
"""


@dataclass(slots=True)
class StepResult:
    """One round and what the loop did with it."""

    step_number: int
    content: list[AssistantPart]
    """The model's parts in order (calls as parsed), then the results of the calls toolplug ran."""
    tool_calls: list[ToolCallPart]
    """The calls toolplug had to answer (parsed; invalid ones included)."""
    tool_results: list[ToolResultPart]
    """Results of those calls, then the provider's successful results."""
    finish_reason: FinishReason
    usage: Usage
    provider: str
    """Who produced this step."""
    model: str
    request: RoundRequest
    response_messages: list[Message]
    """The messages this step added to the conversation."""
    traces: list[ToolTrace]
    response_id: str | None = None
    provider_metadata: dict[str, Any] | None = None
    final_answer: bool = False
    """This was the round without tools after a limit."""

    @property
    def text(self) -> str:
        """The model's text."""
        return "".join(part.text for part in self.content if part.type == "text")  # type: ignore[union-attr]

    @property
    def reasoning_text(self) -> str:
        """The model's reasoning."""
        return "".join(part.text for part in self.content if part.type == "reasoning")  # type: ignore[union-attr]


@dataclass(slots=True)
class LoopResult:
    """Everything a run produced. ``text``, ``content`` and ``finish_reason`` are the last step's."""

    steps: list[StepResult]
    response_messages: list[Message]
    """The messages the run added (assistant and tool messages, in order)."""
    usage: Usage
    """Summed over every step."""
    sources: list[Source]
    """Sources used by tools, first occurrence of each URL, in call order."""
    traces: list[ToolTrace]
    required_provider_confidence: ConfidenceLevel | None
    """The highest confidence any result required; later messages may only go to such providers."""
    stop_reason: StopReason
    pending_tool_calls: list[ToolCallPart]
    """Calls left for the caller: tools without execute, and calls awaiting approval."""
    pending_approvals: list[ToolApprovalRequestPart]
    """Approval requests nobody answered (the run ended with them)."""
    withheld_results: list[ToolResultPart] = field(default_factory=list)
    """Results the provider may not see (stop reason ``confidence-required``): they are in
    ``response_messages`` for the host, and were never sent."""
    stop_detail: str | None = None
    """Why the run stopped, in words, when it did not simply answer (the limit, the provider's reason...)."""

    @property
    def tool_searches(self) -> list[ToolSearchRecord]:
        """Every tool search of the run (client or provider-native): the call, the query, what it found."""
        return searches_in(part for step in self.steps for part in step.content)

    @property
    def last_step(self) -> StepResult:
        """The final step."""
        return self.steps[-1]

    @property
    def guard_reports(self) -> list[tuple[str, Any]]:
        """What the prompt-injection guard neutralised, as ``(tool id, GuardReport)`` pairs in call order."""
        return [(trace.tool_id, report) for trace in self.traces for report in trace.guard_reports]

    @property
    def text(self) -> str:
        """The final step's text: the answer."""
        return self.steps[-1].text if self.steps else ""

    @property
    def reasoning_text(self) -> str:
        """The final step's reasoning."""
        return self.steps[-1].reasoning_text if self.steps else ""

    @property
    def content(self) -> list[AssistantPart]:
        """The final step's content."""
        return self.steps[-1].content if self.steps else []

    @property
    def tool_calls(self) -> list[ToolCallPart]:
        """The final step's calls."""
        return self.steps[-1].tool_calls if self.steps else []

    @property
    def tool_results(self) -> list[ToolResultPart]:
        """The final step's results."""
        return self.steps[-1].tool_results if self.steps else []

    @property
    def finish_reason(self) -> FinishReason:
        """The final step's finish reason."""
        return self.steps[-1].finish_reason if self.steps else "other"

    @property
    def provider(self) -> str:
        """The provider of the final step."""
        return self.steps[-1].provider if self.steps else ""

    @property
    def model(self) -> str:
        """The model of the final step."""
        return self.steps[-1].model if self.steps else ""


# --- stream parts -----------------------------------------------------------------------------------


@dataclass(slots=True)
class StartStepPart:
    """A step starts."""

    step_number: int
    type: ClassVar[str] = "start-step"


@dataclass(slots=True)
class ToolCallStreamPart:
    """A parsed tool call (a valid one, or a provider-executed one)."""

    tool_call: ToolCallPart
    type: ClassVar[str] = "tool-call"


@dataclass(slots=True)
class ToolResultStreamPart:
    """A tool result (toolplug's or the provider's).

    ``sources`` are those the tool returned with this result (empty for the provider's results), so a
    UI can show them as the result arrives; the run's result lists them all again.
    """

    result: ToolResultPart
    sources: Sequence[Source] = ()
    type: ClassVar[str] = "tool-result"


@dataclass(slots=True)
class ToolErrorStreamPart:
    """A call that is invalid or failed; ``error_text`` is what the model reads."""

    tool_call: ToolCallPart
    error_text: str
    type: ClassVar[str] = "tool-error"


@dataclass(slots=True)
class ToolApprovalRequestStreamPart:
    """A call waits for an approval."""

    approval_request: ToolApprovalRequestPart
    tool_call: ToolCallPart | None
    type: ClassVar[str] = "tool-approval-request"


@dataclass(slots=True)
class FinishStepPart:
    """A step finished."""

    step: StepResult
    type: ClassVar[str] = "finish-step"


@dataclass(slots=True)
class FinishPart:
    """The run finished."""

    result: LoopResult
    type: ClassVar[str] = "finish"


StreamPart: TypeAlias = (
    RoundDelta
    | StartStepPart
    | ToolCallStreamPart
    | ToolResultStreamPart
    | ToolErrorStreamPart
    | ToolApprovalRequestStreamPart
    | FinishStepPart
    | FinishPart
)


# --- the loop ---------------------------------------------------------------------------------------

_DEFAULT_EXECUTOR = ToolExecutor()
_REGISTERED_CACHE: weakref.WeakKeyDictionary[ToolImplementation, tuple[ToolDefinition, RegisteredTool]] = (
    weakref.WeakKeyDictionary()
)


def index_tools(tools: ToolsLike) -> dict[str, RegisteredTool]:
    """The tools by the name the model calls, each validated and compiled once (cached per object)."""
    items: list[tuple[str | None, ToolImplementation | RegisteredTool]]
    items = list(tools.items()) if isinstance(tools, Mapping) else [(None, item) for item in tools]
    registered: dict[str, RegisteredTool] = {}
    for key, item in items:
        if isinstance(item, RegisteredTool):
            entry = item
        elif isinstance(item, ToolImplementation):
            entry = _register_implementation(item)
        else:
            raise InvalidArgumentError("tools", f"{item!r} is neither a ToolImplementation nor a RegisteredTool")
        if key is not None and key != entry.name:
            raise InvalidArgumentError("tools", f"key {key!r} differs from the tool's function name {entry.name!r}")
        if entry.name in registered:
            raise InvalidArgumentError("tools", f"two tools are called {entry.name!r}")
        registered[entry.name] = entry
    return registered


def _register_implementation(implementation: ToolImplementation) -> RegisteredTool:
    definition = implementation.definition()
    cached = _REGISTERED_CACHE.get(implementation)
    if cached is not None and (cached[0] is definition or cached[0] == definition):
        return cached[1]
    entry = RegisteredTool.from_implementation(implementation)
    _REGISTERED_CACHE[implementation] = (entry.definition, entry)
    return entry


def normalize_instructions(value: Instructions) -> list[SystemMessage]:
    """Instructions as system messages, in order; None is rejected."""
    if value is None:
        raise InvalidArgumentError("instructions", "None is not instructions; leave the option unset instead")
    if isinstance(value, str):
        return [SystemMessage(value)]
    if isinstance(value, SystemMessage):
        return [value]
    messages = list(value)
    for message in messages:
        if not isinstance(message, SystemMessage):
            raise InvalidArgumentError("instructions", f"a list of instructions holds SystemMessage, not {message!r}")
    return messages


@dataclass(slots=True)
class _Job:
    """One client call of a step and what happens to it."""

    call: ToolCallPart
    tool: RegisteredTool | None
    action: Literal["run", "error", "denied", "pending", "approval-pending"]
    error_text: str = ""
    denial_reason: str | None = None
    result: ToolResultPart | None = None
    outcome: ToolCallOutcome | None = None


@dataclass(slots=True)
class _RunState:
    """What one run has gathered so far."""

    conversation: list[Message]
    first_response: int
    """Where the messages this run adds begin."""
    emit: Callable[[StreamPart], None] | None
    steps: list[StepResult] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    sources: dict[str, Source] = field(default_factory=dict)
    traces: list[ToolTrace] = field(default_factory=list)
    required: ConfidenceLevel | None = None
    calls_run: int = 0
    result_chars: int = 0
    limit_reason: str | None = None
    """Set when a limit was reached (in words, for the model): the next rounds ask for the final answer."""
    final_rounds: int = 0
    """Final-answer rounds that still brought tool calls."""
    pending_calls: list[ToolCallPart] = field(default_factory=list)
    pending_approvals: list[ToolApprovalRequestPart] = field(default_factory=list)
    withheld: list[ToolResultPart] = field(default_factory=list)
    stop_reason: StopReason | None = None
    """Set before the first step when the run cannot ask the model at all."""
    stop_detail: str | None = None

    def result(self, stop_reason: StopReason) -> LoopResult:
        """What the run has produced so far, as a result ending with ``stop_reason``."""
        return LoopResult(
            self.steps,
            self.conversation[self.first_response :],
            self.usage,
            list(self.sources.values()),
            self.traces,
            self.required,
            stop_reason,
            self.pending_calls,
            self.pending_approvals,
            self.withheld,
            self.stop_detail,
        )


@dataclass(slots=True)
class _StepPlan:
    """What one step offers the model."""

    step_number: int
    final_answer: bool
    tool_choice: ToolChoice
    instructions: Sequence[SystemMessage]
    offered: dict[str, RegisteredTool]
    request: RoundRequest


@dataclass(slots=True)
class _CheckedRound:
    """A round's parts as the loop keeps them, and what happens to each client call."""

    content: list[AssistantPart]
    jobs: list[_Job]
    provider_results: list[ToolResultPart]
    provider_approval: bool


def _sentence(text: str | None) -> str:
    text = text or "a limit was reached"
    return f"{text[0].upper()}{text[1:]}."


def _final_answer_instruction(reason: str | None) -> str:
    return (
        f"{_sentence(reason)} No tools are available any more. "
        "Do not call tools: answer the user now with the information you have."
    )


def _no_more_tools(call: ToolCallPart, run: _RunState) -> str:
    return format_tool_error(
        ToolCallError(
            f"{_sentence(run.limit_reason)} This call was not run and no tools can be "
            "called any more. Answer with the information you have.",
            tool_name=call.tool_name,
            tool_call_id=call.tool_call_id,
        )
    )


def _looks_cut_off(text: str) -> bool:
    """Whether ``text`` is the beginning of a JSON value that ends too soon (open strings or brackets)."""
    stack: list[str] = []
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
        elif char in "}]" and (not stack or stack.pop() != char):
            return False
    return in_string or bool(stack)


CUT_OFF_HINT = (
    "The arguments end before the JSON does: the answer probably reached its output-token limit "
    "(max_output_tokens) in the middle of the call. Call the tool again with complete arguments."
)
"""What the model (and the trace) reads after a call whose arguments were cut short."""


def _invalid_call_text(call: ToolCallPart, finish_reason: FinishReason) -> str:
    """The error result of an invalid call; a call cut short by the token limit says so."""
    text = format_tool_error(call.error or ValueError("invalid call"))
    cut_off = isinstance(call.error, InvalidToolInputError) and isinstance(call.input, str)
    if cut_off and (finish_reason == "length" or _looks_cut_off(str(call.input))):
        logger.warning(
            "the arguments of %s call %s were cut short; the output-token limit (max_output_tokens) "
            "is probably too low",
            call.tool_name,
            call.tool_call_id,
        )
        return f"{text} {CUT_OFF_HINT}"
    return text


def _error_outcome(job: _Job) -> ToolCallOutcome:
    """The outcome of a call answered with an error without running (invalid, or over a limit): it has
    a trace like every other call."""
    call = job.call
    tool = job.tool
    arguments = call.input if isinstance(call.input, Mapping) else {}
    sensitive = tool.implementation.sensitive_argument_names if tool is not None else frozenset()
    text = job.error_text
    trace = ToolTrace(
        tool_id=tool.id if tool is not None else call.tool_name,
        call_id=call.tool_call_id,
        plugin=tool.plugin if tool is not None else "",
        arguments=redact_arguments(arguments, sensitive),
        status=CallStatus.ERROR,
        duration_ms=0.0,
        result_chars=len(text),
        error=text,
    )
    result = ToolExecutionResult(text_content=text, output_type=OutputType.ERROR_TEXT)
    return ToolCallOutcome(result=result, status=CallStatus.ERROR, trace=trace, error=call.error)


def _emit_model_parts(emit: Callable[[StreamPart], None], content: Sequence[AssistantPart]) -> None:
    """The stream parts of the model's calls, the provider's results and approval requests."""
    for part in content:
        if isinstance(part, ToolCallPart):
            # an invalid call of ours shows up once, as the error result below
            if not (part.invalid and not part.provider_executed):
                emit(ToolCallStreamPart(part))
        elif isinstance(part, ToolResultPart):
            emit(ToolResultStreamPart(part))
        elif isinstance(part, ToolApprovalRequestPart):
            emit(ToolApprovalRequestStreamPart(part, _call_of(content, part.tool_call_id)))


class ToolCallingLoop:
    """Drives one call of a provider adapter with tools until the model answers or the loop stops.

    :param adapter: a fresh provider adapter (stateful for this call).
    :param tools: ToolImplementation or RegisteredTool objects, as a list or a mapping by name.
    :param executor: runs the calls (the host's, with its settings lookup and guard).
    :param options: see :class:`LoopOptions`; validated here, before any model call.
    :param scope: who is calling (component and provider), passed to every tool call.

    A loop runs once; make a new one (with a new adapter) for the next call.
    """

    def __init__(
        self,
        adapter: ProviderAdapter,
        tools: ToolsLike = (),
        *,
        executor: ToolExecutor | None = None,
        options: LoopOptions | None = None,
        scope: CallScope | None = None,
    ) -> None:
        self.options = options if options is not None else LoopOptions()
        self.options.validate()
        self.adapter = adapter
        self.tools = index_tools(tools)
        self._search: ToolSearchState | None = prepare_search(
            self.tools, self.options.tool_search, getattr(adapter, "native_tool_search", None)
        )
        self.executor = executor if executor is not None else _DEFAULT_EXECUTOR
        self.scope = scope if scope is not None else CallScope(provider_id=adapter.provider_id, model=adapter.model_id)
        options = self.options
        conditions = options.stop_when
        if conditions is None:
            self._stop_conditions: tuple[StopCondition, ...] = ()
        elif callable(conditions):
            self._stop_conditions = (conditions,)
        else:
            self._stop_conditions = tuple(conditions)
        self._tool_choice = ToolChoice.parse(options.tool_choice)
        self._repair = options.repair_tool_call or options.experimental_repair_tool_call
        self._refine = dict(options.refine_tool_input)
        if options.instructions is not UNSET:
            self._instructions = normalize_instructions(options.instructions)
        elif options.system:
            self._instructions = [SystemMessage(options.system)]
        else:
            self._instructions = []
        self._offer_cache: dict[
            tuple[tuple[str, ...] | None, int], tuple[dict[str, RegisteredTool], list[ToolDefinition]]
        ] = {}
        self._check_active_tools(options.active_tools)
        self._check_tool_choice(self._tool_choice, options.active_tools)
        self._ran = False
        self._stopped_by_condition = False

    # -- public ---------------------------------------------------------------------------------------

    async def run(self, messages: Sequence[Message]) -> LoopResult:
        """Run the loop over ``messages`` (the conversation without instructions)."""
        return await self._run(messages, None)

    def stream(self, messages: Sequence[Message]) -> StreamTextResult:
        """Run the loop streamed: iterate the result for typed parts (text deltas, tool calls, results)."""
        return StreamTextResult(lambda emit: self._run(messages, emit))

    @property
    def stopped_by_condition(self) -> bool:
        """True when a stop condition (not the model, a limit or a pending call) ended the run."""
        return self._stopped_by_condition

    # -- the run --------------------------------------------------------------------------------------

    async def _run(self, initial: Sequence[Message], emit: Callable[[StreamPart], None] | None) -> LoopResult:
        """The run, step by step: prepare the step, ask the model, check and plan its calls, run them,
        collect the results, and decide how to go on."""
        if self._ran:
            raise UsageError("a ToolCallingLoop runs once: its adapter holds one call; build a new loop and adapter")
        self._ran = True
        run = await self._start(initial, emit)
        stop_reason = run.stop_reason
        options = self.options
        on_event = options.on_event
        while stop_reason is None:
            # (the phases that need no await are plain calls: a step costs a few µs less)
            prepared = None
            if options.prepare_step is not None and run.limit_reason is None:
                prepared = await self._ask_prepare_step(run)
            plan = self._prepare_step(run, prepared)
            round_ = await self._ask_model(run, plan)
            checked = await self._check_calls(run, plan, round_)
            await self._execute(
                checked.jobs, options.tool_call_concurrency, plan.step_number, run.conversation, on_event
            )
            step = self._collect_results(run, plan, round_, checked)
            if self._search is not None:
                self._search.learn_from(step.content)
            if on_event is not None:
                await _notify(on_event, StepFinishEvent(step))
            if emit is not None:
                emit(FinishStepPart(step))
            stop_reason = self._decide(run, plan, round_, checked)
            if stop_reason is None and not plan.final_answer:
                if self._stop_conditions and await self._should_stop(run.steps):
                    self._stopped_by_condition = True
                    stop_reason = "stop-condition"
                else:
                    self._note_limit(run)
            if stop_reason is None and plan.final_answer:
                run.final_rounds += 1
        return self._finish(run, stop_reason)

    async def _start(self, initial: Sequence[Message], emit: Callable[[StreamPart], None] | None) -> _RunState:
        """The run's state, after answering the approvals the conversation brings (their results go
        first; a result the provider may not see ends the run before the model is asked)."""
        run = _RunState(list(initial), len(initial), emit)
        if self._search is not None:
            self._search.learn_from_messages(run.conversation)
        resumed = await self._answer_approvals(run.conversation)
        if resumed:
            run.conversation.append(ToolMessage([job.result for job in resumed if job.result is not None]))
            if emit is not None:
                # The outputs of the answered calls come before the first start-step, denied calls first,
                # as the AI SDK's UI protocol orders them.
                for job in resumed:
                    if job.action == "denied" and job.result is not None:
                        emit(_result_stream_part(job, job.result))
                for job in resumed:
                    if job.action != "denied" and job.result is not None:
                        emit(_result_stream_part(job, job.result))
            for job in resumed:
                if job.outcome is not None and job.result is not None:
                    run.traces.append(job.outcome.trace)
                    self._note_outcome(run, job.outcome, job.result)
            if run.withheld:
                run.stop_reason = "confidence-required"
        self.adapter.begin(run.conversation)
        return run

    async def _ask_prepare_step(self, run: _RunState) -> PrepareStep | None:
        """The replacements ``prepare_step`` gives for this step."""
        assert self.options.prepare_step is not None
        search = self._search
        context = PrepareStepContext(
            len(run.steps),
            run.steps,
            run.conversation,
            self._tool_choice,
            self.options.active_tools,
            self._instructions,
            () if search is None else tuple(search.deferred),
            () if search is None else tuple(search.found),
        )
        prepared = self.options.prepare_step(context)
        if inspect.isawaitable(prepared):
            prepared = await prepared
        return prepared

    def _prepare_step(self, run: _RunState, prepared: PrepareStep | None) -> _StepPlan:
        """What this step offers: prepare_step's replacements, or no tools in a final-answer round."""
        options = self.options
        step_number = len(run.steps)
        tool_choice = self._tool_choice
        active = options.active_tools
        instructions = self._instructions
        final_answer = run.limit_reason is not None
        if not final_answer and prepared is not None:
            if prepared.tool_choice is not None:
                tool_choice = ToolChoice.parse(prepared.tool_choice)
            if prepared.active_tools is not None:
                active = prepared.active_tools
                self._check_active_tools(active)
            if prepared.instructions is not None:
                instructions = normalize_instructions(prepared.instructions)
            self._check_tool_choice(tool_choice, active)
        offered, definitions = self._offer(active)
        concurrency = options.tool_call_concurrency
        if final_answer:
            instructions = [*instructions, SystemMessage(_final_answer_instruction(run.limit_reason))]
            request = RoundRequest(
                step_number,
                instructions,
                (),
                ToolChoice.NONE,
                concurrency,
                True,
                options.settings,
                options.provider_options,
            )
        else:
            request = RoundRequest(
                step_number,
                instructions,
                definitions,
                tool_choice,
                concurrency,
                False,
                options.settings,
                options.provider_options,
            )
        return _StepPlan(step_number, final_answer, tool_choice, instructions, offered, request)

    async def _ask_model(self, run: _RunState, plan: _StepPlan) -> Round:
        """One round of the model; a provider error carries the steps taken before it."""
        if self.options.on_event is not None:
            await _notify(self.options.on_event, StepStartEvent(plan.step_number, plan.request))
        emit = run.emit
        try:
            if emit is not None:
                emit(StartStepPart(plan.step_number))
                round_ = await self._stream_round(
                    plan.request, emit, plan.offered, withhold_tools=plan.tool_choice.mode == "none"
                )
            else:
                round_ = await self.adapter.run_round(plan.request)
        except ProviderError as exc:
            exc.partial_result = run.result("provider-error")
            raise
        run.usage = run.usage + round_.usage
        return round_

    async def _check_calls(self, run: _RunState, plan: _StepPlan, round_: Round) -> _CheckedRound:
        """Parse and check every call, and plan what happens to each (run, error, denied, pending).

        A repaired or refined call replaces the model's from here on. In a final-answer round no call
        runs: each is answered with an error that says the limit was reached.
        """
        tool_choice = plan.tool_choice
        if not plan.final_answer and (tool_choice.mode == "none" or tool_choice.mode == "tool"):
            for part in round_.content:
                if isinstance(part, ToolCallPart):
                    violation = tool_choice.violation(part)
                    if violation is not None:
                        violation.partial_result = run.result("provider-error")
                        raise violation
        offered = plan.offered
        max_calls = self.options.max_tool_calls
        checked = _CheckedRound([], [], [], False)
        content = checked.content
        for part in round_.content:
            if not isinstance(part, ToolCallPart):
                if isinstance(part, ToolResultPart) and part.provider_executed:
                    checked.provider_results.append(part)
                elif isinstance(part, ToolApprovalRequestPart):
                    checked.provider_approval = True
                content.append(part)
                continue
            if part.provider_executed:
                content.append(check_tool_call(part, offered))
                continue
            if plan.final_answer:
                content.append(part)
                checked.jobs.append(_Job(part, offered.get(part.tool_name), "error", _no_more_tools(part, run)))
                continue
            if self._repair is None and not self._refine and self._search is None:
                parsed = check_tool_call(part, offered)
            else:
                parsed = await self._parse(part, offered, run, plan)
            content.append(parsed)
            tool = offered.get(parsed.tool_name)
            if (
                tool is not None
                and not parsed.invalid
                and tool.implementation.needs_approval is False
                and tool.implementation.has_execute
            ):
                job = _Job(parsed, tool, "run")
            else:
                job = await self._plan(parsed, tool, run.conversation, round_)
            if job.action == "run":
                if max_calls is not None and run.calls_run >= max_calls:
                    job.action = "error"
                    job.error_text = format_tool_error(
                        ToolCallError(
                            f"Tool call limit of {max_calls} reached; this call was not run. "
                            "Answer with the information you have.",
                            tool_name=parsed.tool_name,
                            tool_call_id=parsed.tool_call_id,
                        )
                    )
                else:
                    run.calls_run += 1
            elif job.action == "approval-pending":
                approval = ToolApprovalRequestPart(f"approval-{parsed.tool_call_id}", parsed.tool_call_id)
                content.append(approval)
                run.pending_approvals.append(approval)
            checked.jobs.append(job)
        self.adapter.record_model_turn(round_.but(content=content))
        if run.emit is not None:
            _emit_model_parts(run.emit, content)
        return checked

    async def _parse(
        self, part: ToolCallPart, offered: Mapping[str, RegisteredTool], run: _RunState, plan: _StepPlan
    ) -> ToolCallPart:
        search = self._search
        if search is not None and search.is_hidden(part.tool_name):
            error = DeferredToolNotFoundError(part.tool_name, tool_call_id=part.tool_call_id)
            return dataclasses.replace(part, invalid=True, dynamic=True, error=error)
        if self._repair is None and not self._refine:
            return check_tool_call(part, offered)
        return await parse_tool_call(
            part,
            offered,
            repair_tool_call=self._repair,
            refine_tool_input=self._refine,
            messages=run.conversation,
            instructions=plan.instructions,
        )

    def _collect_results(self, run: _RunState, plan: _StepPlan, round_: Round, checked: _CheckedRound) -> StepResult:
        """The step's results in model order (the character limit cuts in the same order), recorded for
        the model unless the provider may not see them; then the step itself."""
        results: list[ToolResultPart] = []
        step_traces: list[ToolTrace] = []
        max_chars = self.options.max_result_chars
        emit = run.emit
        adapter = self.adapter
        for job in checked.jobs:
            result = job.result
            if result is None:
                if job.action == "pending" or job.action == "approval-pending":
                    run.pending_calls.append(job.call)
                continue
            if max_chars is not None:
                result, run.result_chars = _apply_char_limit(result, run.result_chars, max_chars)
            results.append(result)
            outcome = job.outcome
            if outcome is not None:
                step_traces.append(outcome.trace)
                if not self._note_outcome(run, outcome, result):
                    adapter.record_tool_result(result.tool_call_id, result)
            else:
                adapter.record_tool_result(result.tool_call_id, result)
            if emit is not None:
                emit(_result_stream_part(job, result))
        run.traces.extend(step_traces)
        content = checked.content
        response: list[Message] = [AssistantMessage(content)]
        if results:
            response.append(ToolMessage(list(results)))
        run.conversation.extend(response)
        provider_results = checked.provider_results
        step = StepResult(
            plan.step_number,
            [*content, *results] if results else content,
            [job.call for job in checked.jobs],
            results + [r for r in provider_results if not r.is_error] if provider_results else results,
            round_.finish_reason,
            round_.usage,
            round_.provider,
            round_.model,
            plan.request,
            response,
            step_traces,
            round_.response_id,
            round_.provider_metadata,
            plan.final_answer,
        )
        run.steps.append(step)
        return step

    def _note_outcome(self, run: _RunState, outcome: ToolCallOutcome, result: ToolResultPart) -> bool:
        """Keep a call's sources and the confidence its result requires; True when the result may not
        reach this provider (it is withheld, and the run ends)."""
        tool_result = outcome.result
        for source in tool_result.sources:
            run.sources.setdefault(source.url, source)
        level = tool_result.required_provider_confidence
        if level is None:
            return False
        if run.required is None or level > run.required:
            run.required = level
        scope = self.scope
        confidence = scope.provider_confidence
        if confidence is None or scope.provider_trusted or confidence >= level:
            return False
        run.withheld.append(result)
        if run.stop_detail is None:
            run.stop_detail = (
                f"the result of {result.tool_name} requires provider confidence {level.label}; provider "
                f"{scope.provider_id or self.adapter.provider_id!r} has {confidence.label} and is not trusted, "
                "so the result was not sent"
            )
        return True

    def _decide(self, run: _RunState, plan: _StepPlan, round_: Round, checked: _CheckedRound) -> StopReason | None:
        """Why the run ends after this step, or None to go on (the stop conditions are asked next)."""
        if round_.ends_conversation:
            run.stop_detail = round_.ends_conversation
            return "provider-ended"
        if run.withheld:
            return "confidence-required"
        if plan.final_answer:
            run.stop_detail = run.limit_reason
            if not checked.jobs:
                return "limit"
            # The model called tools although none were offered: one more round, then give up.
            return "limit-no-answer" if run.final_rounds >= 1 else None
        if not checked.jobs:
            return "provider-approval" if checked.provider_approval else "answered"
        if run.pending_calls:
            return "approval-pending" if run.pending_approvals else "no-execute"
        return None

    def _note_limit(self, run: _RunState) -> None:
        """After a step that goes on: a limit reached makes the next rounds ask for the final answer."""
        options = self.options
        if options.max_tool_calls is not None and run.calls_run >= options.max_tool_calls:
            run.limit_reason = f"the limit of {options.max_tool_calls} tool calls was reached"
        elif options.max_result_chars is not None and run.result_chars >= options.max_result_chars:
            run.limit_reason = f"the limit of {options.max_result_chars} characters of tool results was reached"
        elif options.max_steps is not None and len(run.steps) >= options.max_steps:
            run.limit_reason = f"the limit of {options.max_steps} steps with tools was reached"

    def _finish(self, run: _RunState, stop_reason: StopReason) -> LoopResult:
        result = run.result(stop_reason)
        if run.emit is not None:
            run.emit(FinishPart(result))
        return result

    # -- helpers --------------------------------------------------------------------------------------

    async def _answer_approvals(self, conversation: Sequence[Message]) -> list[_Job]:
        """Run (or deny) the calls of the last assistant turn that the user has answered approval for.

        A run that ended with calls awaiting approval is continued by sending the history back with
        a tool message of ToolApprovalResponseParts: approved calls run now, denied ones get an
        execution-denied result, before the model is asked again.
        """
        last_assistant = next(
            (i for i in range(len(conversation) - 1, -1, -1) if isinstance(conversation[i], AssistantMessage)), None
        )
        if last_assistant is None:
            return []
        assistant = conversation[last_assistant]
        assert isinstance(assistant, AssistantMessage)
        calls = {
            part.tool_call_id: part
            for part in assistant.content
            if isinstance(part, ToolCallPart) and not part.provider_executed
        }
        requests = {
            part.approval_id: part.tool_call_id
            for part in assistant.content
            if isinstance(part, ToolApprovalRequestPart) and part.tool_call_id in calls
        }
        answered: set[str] = set()
        responses: list[ToolApprovalResponsePart] = []
        for message in conversation[last_assistant + 1 :]:
            if isinstance(message, ToolMessage):
                for part in message.content:
                    if isinstance(part, ToolResultPart):
                        answered.add(part.tool_call_id)
                    elif isinstance(part, ToolApprovalResponsePart) and not part.provider_executed:
                        responses.append(part)
        jobs: list[_Job] = []
        for response in responses:
            call_id = requests.get(response.approval_id)
            if call_id is None or call_id in answered:
                continue
            answered.add(call_id)
            call = calls[call_id]
            tool = self.tools.get(call.tool_name)
            if tool is None:
                error = format_tool_error(NoSuchToolError(call.tool_name, list(self.tools), tool_call_id=call_id))
                jobs.append(_Job(call, tool, "error", error))
            elif not tool.implementation.has_execute:
                continue  # the caller runs it and sends its result
            elif response.approved:
                jobs.append(_Job(call, tool, "run"))
            else:
                jobs.append(_Job(call, tool, "denied", denial_reason=response.reason))
        if jobs:
            await self._execute(jobs, self.options.tool_call_concurrency, 0, conversation, self.options.on_event)
        return jobs

    def _check_tool_choice(self, choice: ToolChoice, active: Sequence[str] | None) -> None:
        """A named tool choice must name a tool that is offered (checked before any request)."""
        if choice.mode != "tool":
            return
        offered = list(self.tools) if active is None else list(active)
        if choice.tool_name not in offered:
            raise UsageError(
                f"tool choice {choice.tool_name!r} names a tool that is not offered; "
                f"the offered tools are: {', '.join(offered) or 'none'}"
            )

    def _check_active_tools(self, active: Sequence[str] | None) -> None:
        if active is None:
            return
        unknown = [name for name in active if name not in self.tools]
        if unknown:
            known = ", ".join(self.tools) or "none"
            raise InvalidArgumentError("active_tools", f"unknown tools {unknown}; the tools are: {known}")

    def _offer(self, active: Sequence[str] | None) -> tuple[dict[str, RegisteredTool], list[ToolDefinition]]:
        search = self._search
        names = None if active is None else tuple(active)
        key = (names, 0 if search is None else len(search.found))  # found tools only ever grow
        cached = self._offer_cache.get(key)
        if cached is None:
            if search is not None:
                offered = {name: self.tools[name] for name in offered_names(search, self.tools, active)}
            else:
                offered = self.tools if names is None else {name: self.tools[name] for name in names}
            cached = (offered, [tool.definition for tool in offered.values()])
            self._offer_cache[key] = cached
        return cached

    async def _plan(
        self, call: ToolCallPart, tool: RegisteredTool | None, conversation: Sequence[Message], round_: Round
    ) -> _Job:
        if call.invalid or tool is None:
            return _Job(call, tool, "error", _invalid_call_text(call, round_.finish_reason))
        implementation = tool.implementation
        if not implementation.has_execute:
            return _Job(call, tool, "pending")
        needs_approval = implementation.needs_approval
        if needs_approval is not False:
            if callable(needs_approval):
                decided = needs_approval(call.input)
                if inspect.isawaitable(decided):
                    decided = await decided
                needs_approval = bool(decided)
            if needs_approval:
                approve = self.options.approve_tool
                if approve is None:
                    return _Job(call, tool, "approval-pending")
                decision = approve(ToolApprovalRequest(call, tool, conversation))
                if inspect.isawaitable(decision):
                    decision = await decision
                if isinstance(decision, ToolApproval):
                    if not decision.approved:
                        return _Job(call, tool, "denied", denial_reason=decision.reason)
                elif decision is not True:
                    return _Job(call, tool, "denied")
        return _Job(call, tool, "run")

    async def _execute(
        self,
        jobs: list[_Job],
        concurrency: int | None,
        step_number: int,
        conversation: Sequence[Message],
        on_event: EventHandler | None,
    ) -> None:
        runnable: list[_Job] = []
        for job in jobs:
            if job.action == "run":
                runnable.append(job)
            elif job.action == "error":
                job.outcome = _error_outcome(job)
                job.result = ToolResultPart(
                    job.call.tool_call_id,
                    job.call.tool_name,
                    job.error_text,
                    OutputType.ERROR_TEXT,
                    dynamic=job.call.dynamic,
                    title=job.call.title,
                    tool_metadata=job.call.tool_metadata,
                )
            elif job.action == "denied":
                assert job.tool is not None
                outcome = denied_outcome(
                    job.tool.id,
                    job.call.tool_call_id,
                    job.tool.plugin,
                    job.call.input,
                    job.denial_reason,
                    job.tool.implementation.sensitive_argument_names,
                )
                job.outcome = outcome
                job.result = _result_part(job.call, outcome)
        if not runnable:
            return
        if len(runnable) == 1 or concurrency == 1:
            for job in runnable:
                await self._run_job(job, step_number, conversation, on_event)
            return
        workers = len(runnable) if concurrency is None else min(concurrency, len(runnable))
        queue = iter(runnable)

        async def worker() -> None:
            # Taking the next job only when free means queued calls never start once cancelled.
            for job in queue:
                await self._run_job(job, step_number, conversation, on_event)

        async with asyncio.TaskGroup() as group:
            for _ in range(workers):
                group.create_task(worker())

    async def _run_job(
        self, job: _Job, step_number: int, conversation: Sequence[Message], on_event: EventHandler | None
    ) -> None:
        call = job.call
        tool = job.tool
        assert tool is not None
        if on_event is not None:
            await _notify(on_event, ToolRunningEvent(step_number, call))
        outcome = await self.executor.execute(
            tool,
            call.input,
            scope=self.scope,
            call_id=call.tool_call_id,
            messages=conversation,
            validated=True,
            timeout=self.options.tool_timeouts.get(call.tool_name),
        )
        job.outcome = outcome
        job.result = result = _result_part(call, outcome)
        if on_event is not None:
            await _notify(on_event, ToolFinishedEvent(step_number, call, result, outcome))

    async def _should_stop(self, steps: Sequence[StepResult]) -> bool:
        for condition in self._stop_conditions:
            decided = condition(steps)
            if inspect.isawaitable(decided):
                decided = await decided
            if decided:
                return True
        return False

    async def _stream_round(
        self,
        request: RoundRequest,
        emit: Callable[[StreamPart], None],
        offered: Mapping[str, RegisteredTool],
        *,
        withhold_tools: bool,
    ) -> Round:
        final: Round | None = None
        async for item in self.adapter.stream_round(request):
            if isinstance(item, Round):
                final = item
            elif withhold_tools and item.type.startswith("tool-input"):
                continue
            else:
                if isinstance(item, ToolInputStartDelta):
                    # The adapter knows only the name: add the offered tool's title, metadata and
                    # dynamic flag (an unknown name is dynamic, as its invalid call will be).
                    tool = offered.get(item.tool_name)
                    if tool is None:
                        item.dynamic = True
                    else:
                        definition = tool.definition
                        item.title = definition.title
                        if definition.metadata:
                            item.tool_metadata = definition.metadata
                        if definition.kind is ToolKind.DYNAMIC:
                            item.dynamic = True
                emit(item)
        if final is None:
            from toolplug.errors import ProviderResponseError

            raise ProviderResponseError(
                "the streamed round ended without its result", provider=self.adapter.provider_id
            )
        return final


async def _notify(handler: EventHandler, event: LoopEvent) -> None:
    outcome = handler(event)
    if outcome is not None and inspect.isawaitable(outcome):
        await outcome


def _call_of(content: Sequence[AssistantPart], call_id: str) -> ToolCallPart | None:
    for part in content:
        if isinstance(part, ToolCallPart) and part.tool_call_id == call_id:
            return part
    return None


def _result_stream_part(job: _Job, result: ToolResultPart) -> ToolResultStreamPart | ToolErrorStreamPart:
    """The stream part of a client call's result: an error part for an error, else the result with the
    sources the tool returned."""
    if result.output_type is OutputType.ERROR_TEXT or result.output_type is OutputType.ERROR_JSON:
        return ToolErrorStreamPart(job.call, _output_text(result))
    outcome = job.outcome
    return ToolResultStreamPart(result, outcome.result.sources if outcome is not None else ())


def _result_part(call: ToolCallPart, outcome: ToolCallOutcome) -> ToolResultPart:
    result = outcome.result
    output_type = result.output_type
    text = result.text_content
    output: Any
    if output_type is None and result.content is None:
        output_type, output = _infer_output(text, result.json_content, outcome.status is not CallStatus.OK)
    else:
        if output_type is None:
            output_type = OutputType.CONTENT
        if output_type is OutputType.JSON or output_type is OutputType.ERROR_JSON:
            if result.json_content is not None or text is None:
                output = result.json_content
            else:
                try:
                    output = json.loads(text)
                except ValueError:
                    output = text
                    output_type = OutputType.ERROR_TEXT if output_type is OutputType.ERROR_JSON else OutputType.TEXT
        elif output_type is OutputType.CONTENT:
            output = result.content
        elif output_type is OutputType.EXECUTION_DENIED:
            output = text
        else:
            output = result.model_text()
    return ToolResultPart(
        call.tool_call_id,
        call.tool_name,
        output,
        output_type,
        dynamic=call.dynamic,
        title=call.title,
        tool_metadata=call.tool_metadata,
    )


# Characters a JSON text can start with (json.loads also reads NaN, Infinity and -Infinity).
_JSON_START = frozenset('{["-0123456789tfnNI')


def _infer_output(text: str | None, json_value: Any, is_error: bool) -> tuple[OutputType, Any]:
    """The output type and value when the tool set none: JSON when the output is JSON.

    Same answer as :func:`toolplug.definitions.infer_output_type`, without parsing text that cannot be
    JSON (a failed parse costs more than the rest of a call), and keeping the parsed value.
    """
    if json_value is not None or text is None:
        return (OutputType.ERROR_JSON if is_error else OutputType.JSON), json_value
    stripped = text.lstrip()
    if stripped and stripped[0] in _JSON_START:
        try:
            parsed = json.loads(text)
        except ValueError:
            pass
        else:
            return (OutputType.ERROR_JSON if is_error else OutputType.JSON), parsed
    return (OutputType.ERROR_TEXT if is_error else OutputType.TEXT), text


def _output_text(result: ToolResultPart) -> str:
    output = result.output
    if isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False)


def _apply_char_limit(result: ToolResultPart, used: int, limit: int) -> tuple[ToolResultPart, int]:
    """Count ``result`` against the limit; cut it at the limit, drop it past the limit."""
    text = _output_text(result) if result.output is not None else ""
    remaining = limit - used
    if len(text) <= remaining:
        return result, used + len(text)
    if remaining > 0:
        cut = text[:remaining] + f"\n[truncated: tool results reached the limit of {limit} characters]"
        output_type = OutputType.ERROR_TEXT if result.is_error else OutputType.TEXT
        return dataclasses.replace(result, output=cut, output_type=output_type), limit
    dropped = format_tool_error(
        ToolCallError(
            f"Tool results reached the limit of {limit} characters; this result was dropped. "
            "Answer with the information you have.",
            tool_name=result.tool_name,
            tool_call_id=result.tool_call_id,
        )
    )
    return dataclasses.replace(result, output=dropped, output_type=OutputType.ERROR_TEXT), limit


# --- streaming result -------------------------------------------------------------------------------


_END = object()


class StreamTextResult:
    """A streamed run: ``async for part in stream`` yields typed parts; :attr:`result` after the end.

    The run starts when iteration starts. Leaving the iteration early cancels the run (queued tool
    calls never start). :meth:`final` consumes the rest and returns the :class:`LoopResult`.
    """

    def __init__(self, runner: Callable[[Callable[[StreamPart], None]], Awaitable[LoopResult]]) -> None:
        self._runner = runner
        self._result: LoopResult | None = None
        self._started = False

    @property
    def result(self) -> LoopResult:
        """The run's result; available once the stream has been consumed."""
        if self._result is None:
            raise UsageError("the stream has not finished yet; iterate it or await final() first")
        return self._result

    async def final(self) -> LoopResult:
        """Consume whatever is left of the stream and return the result."""
        if self._result is None:
            async for _ in self:
                pass
        return self.result

    @property
    def text_stream(self) -> AsyncIterator[str]:
        """Only the text deltas."""
        return self._text_stream()

    async def _text_stream(self) -> AsyncIterator[str]:
        async for part in self:
            if part.type == "text-delta":
                yield part.text  # type: ignore[union-attr]

    def __aiter__(self) -> AsyncIterator[StreamPart]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[StreamPart]:
        if self._started:
            raise UsageError("a stream can be iterated once")
        self._started = True
        queue: asyncio.Queue[Any] = asyncio.Queue()

        async def produce() -> None:
            try:
                self._result = await self._runner(queue.put_nowait)
            except BaseException as exc:
                queue.put_nowait(exc)
                raise
            finally:
                queue.put_nowait(_END)

        task = asyncio.ensure_future(produce())
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            if not task.done():
                task.cancel()
            # its error already reached the consumer above, or we cancelled it
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


# --- entry points -----------------------------------------------------------------------------------


def _prompt_messages(prompt: str | None, messages: Sequence[Message] | None) -> list[Message]:
    if prompt is not None and messages is not None:
        raise InvalidArgumentError("prompt", "give prompt or messages, not both")
    if prompt is not None:
        return [UserMessage(prompt)]
    if messages is None:
        raise InvalidArgumentError("messages", "give a prompt or messages")
    return list(messages)


async def generate_text(
    model: ProviderAdapter,
    *,
    prompt: str | None = None,
    messages: Sequence[Message] | None = None,
    tools: ToolsLike = (),
    executor: ToolExecutor | None = None,
    scope: CallScope | None = None,
    **options: Unpack[LoopOptionsArgs],
) -> LoopResult:
    """Ask the model, running the tools it calls; stops after one step unless ``stop_when`` says otherwise.

    ``model`` is a fresh provider adapter. The options are those of :class:`LoopOptions`.
    """
    loop_options = LoopOptions(**options)
    if loop_options.stop_when is None:
        loop_options.stop_when = step_count_is(1)
    loop = ToolCallingLoop(model, tools, executor=executor, options=loop_options, scope=scope)
    return await loop.run(_prompt_messages(prompt, messages))


def stream_text(
    model: ProviderAdapter,
    *,
    prompt: str | None = None,
    messages: Sequence[Message] | None = None,
    tools: ToolsLike = (),
    executor: ToolExecutor | None = None,
    scope: CallScope | None = None,
    **options: Unpack[LoopOptionsArgs],
) -> StreamTextResult:
    """Like :func:`generate_text`, streamed. Invalid options raise here, before the stream is returned.

    Under tool choice none, tool parts are withheld from the stream.
    """
    loop_options = LoopOptions(**options)
    if loop_options.stop_when is None:
        loop_options.stop_when = step_count_is(1)
    loop = ToolCallingLoop(model, tools, executor=executor, options=loop_options, scope=scope)
    return loop.stream(_prompt_messages(prompt, messages))


AGENT_DEFAULT_MAX_STEPS = 10
_AGENT_DEFAULT_STOP = step_count_is(AGENT_DEFAULT_MAX_STEPS)

PrepareCall: TypeAlias = Callable[[LoopOptions], "LoopOptions | Awaitable[LoopOptions | None] | None"]
"""Gets the options the agent would use (default stop condition included); returns replacements or None."""


class Agent:
    """A reusable model-with-tools that loops until the model answers, at most 10 steps by default.

    When the default limit stopped a run, one warning is logged (with the provider and model of the
    last step); an explicit ``stop_when`` or ``log_warnings=False`` silences it.

    :param model: a function returning a fresh provider adapter for each call (or one adapter, for
        a single call).
    :param prepare_call: changes the options of each call.
    """

    def __init__(
        self,
        model: ProviderAdapter | Callable[[], ProviderAdapter],
        *,
        tools: ToolsLike = (),
        executor: ToolExecutor | None = None,
        scope: CallScope | None = None,
        prepare_call: PrepareCall | None = None,
        log_warnings: bool = True,
        **options: Unpack[LoopOptionsArgs],
    ) -> None:
        self._model = model
        self.tools = index_tools(tools)
        self.executor = executor
        self.scope = scope
        self.prepare_call = prepare_call
        self.log_warnings = log_warnings
        self.options = LoopOptions(**options)
        if self.options.stop_when is None:
            self.options.stop_when = _AGENT_DEFAULT_STOP
        self.options.validate()

    async def generate(self, *, prompt: str | None = None, messages: Sequence[Message] | None = None) -> LoopResult:
        """Run one call to its end."""
        loop = await self._loop()
        result = await loop.run(_prompt_messages(prompt, messages))
        self._warn_default_limit(loop, result)
        return result

    def stream(self, *, prompt: str | None = None, messages: Sequence[Message] | None = None) -> StreamTextResult:
        """Run one call streamed."""
        conversation = _prompt_messages(prompt, messages)

        async def run(emit: Callable[[StreamPart], None]) -> LoopResult:
            loop = await self._loop()
            result = await loop._run(conversation, emit)
            self._warn_default_limit(loop, result)
            return result

        return StreamTextResult(run)

    async def _loop(self) -> ToolCallingLoop:
        options = dataclasses.replace(self.options)
        if self.prepare_call is not None:
            prepared = self.prepare_call(options)
            if inspect.isawaitable(prepared):
                prepared = await prepared
            if prepared is not None:
                options = prepared
        if options.stop_when is None:
            options.stop_when = _AGENT_DEFAULT_STOP
        model = self._model
        adapter = model if isinstance(model, ProviderAdapter) else model()
        return ToolCallingLoop(adapter, self.tools, executor=self.executor, options=options, scope=self.scope)

    def _warn_default_limit(self, loop: ToolCallingLoop, result: LoopResult) -> None:
        if self.log_warnings and loop.stopped_by_condition and loop.options.stop_when is _AGENT_DEFAULT_STOP:
            logger.warning(
                "Agent stopped after the default limit of %d steps (provider %s, model %s); "
                "set stop_when to raise the limit and silence this warning.",
                AGENT_DEFAULT_MAX_STEPS,
                result.provider,
                result.model,
            )


__all__ = [
    "AGENT_DEFAULT_MAX_STEPS",
    "CUT_OFF_HINT",
    "UNSET",
    "Agent",
    "ApproveTool",
    "EventHandler",
    "FinishPart",
    "FinishStepPart",
    "Instructions",
    "LoopEvent",
    "LoopOptions",
    "LoopOptionsArgs",
    "LoopResult",
    "PrepareCall",
    "PrepareStep",
    "PrepareStepContext",
    "PrepareStepFunction",
    "StartStepPart",
    "StepFinishEvent",
    "StepResult",
    "StepStartEvent",
    "StopCondition",
    "StopReason",
    "StreamPart",
    "StreamTextResult",
    "ToolApproval",
    "ToolApprovalRequest",
    "ToolApprovalRequestStreamPart",
    "ToolCallStreamPart",
    "ToolCallingLoop",
    "ToolErrorStreamPart",
    "ToolFinishedEvent",
    "ToolResultStreamPart",
    "ToolRunningEvent",
    "ToolsLike",
    "generate_text",
    "has_tool_call",
    "index_tools",
    "loop_finished",
    "normalize_instructions",
    "step_count_is",
    "stream_text",
]
