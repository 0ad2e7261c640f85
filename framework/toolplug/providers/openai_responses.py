"""The OpenAI Responses adapter (``api = "openai-responses"``).

The model's calls arrive as ``function_call`` output items; results go back as
``function_call_output`` input items correlated by ``call_id``. The id comes from the provider, so a
call without one cannot be answered: such a round ends the conversation (its calls are dropped, the
round finishes with ``error`` and the adapter refuses further rounds). The whole output of a round —
reasoning items included, exactly as received — is sent back with the next request.

Custom tools (free-form text, regex or lark grammar) are read from ``custom_tool_call`` items and
answered with ``custom_tool_call_output``; provider-executed items (web search, file search, code
interpreter, MCP) are kept in the round as provider-executed calls and results and replayed
unchanged, and so are ``mcp_list_tools`` items (kept as a provider-executed ``mcp_list_tools`` call and
its result). Errors reach the model as ``{"error": value}``, a denied call as its reason.

A function tool with an output schema (``metadata["output_schema"]``) is offered with ``output_schema``;
OpenAI then parses its string results as JSON, so its text and denied results go as JSON string
literals. The ``openai`` option ``promptCacheBreakpoint`` (on the tool message, the result part or,
winning, the result's output) sends a scalar result as an ``input_text`` array carrying
``prompt_cache_breakpoint: {"mode": "explicit"}``.

Conversion (the ``responses_*`` functions and :class:`ResponsesStreamAssembler`) is pure and apart
from HTTP.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolplug.calls import ToolChoice
from toolplug.definitions import OutputType, ToolDefinition, ToolKind
from toolplug.errors import ProviderResponseError
from toolplug.messages import (
    AssistantMessage,
    AssistantPart,
    FilePart,
    Message,
    ReasoningPart,
    SystemMessage,
    TextPart,
    ToolApprovalRequestPart,
    ToolApprovalResponsePart,
    ToolCallPart,
    ToolMessage,
    ToolResultPart,
    UserMessage,
)
from toolplug.providers._adapter_base import (
    HTTPProviderAdapter,
    StreamAssembler,
    arguments_text,
    base64_data,
    data_url,
    dumps,
    is_file_part,
    is_url,
    map_settings,
    openai_tool_output,
    parse_arguments,
    part_media_type,
    start_body,
    stream_error,
    vendor_meta,
)
from toolplug.providers._openai_common import (
    VENDOR,
    custom_call_part,
    custom_input_text,
    is_custom_call,
    offer_tools,
    openai_factory,
    openai_usage,
    system_items,
)
from toolplug.providers.base import (
    FinishReason,
    ReasoningDelta,
    Round,
    RoundDelta,
    RoundRequest,
    TextDelta,
    ToolInputDelta,
    ToolInputEndDelta,
    ToolInputStartDelta,
    Usage,
)
from toolplug.providers.http import ServerSentEvent
from toolplug.providers.profiles import ServerProfile
from toolplug.providers.wire_tools import output_schema_of, provider_tool_type, to_responses_tool

logger = logging.getLogger("toolplug.providers.openai_responses")

API = "openai-responses"
PATH = "/responses"
CALL_WITHOUT_ID = "function_call_without_call_id"
"""The raw finish reason of a round that ended the conversation because a call had no id."""

_PROVIDER_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "local_shell_call",
    }
)


_SCALAR_OUTPUTS = frozenset(
    {OutputType.TEXT, OutputType.JSON, OutputType.ERROR_TEXT, OutputType.ERROR_JSON, OutputType.EXECUTION_DENIED}
)
CACHE_BREAKPOINT_OPTION = "promptCacheBreakpoint"
"""The ``openai`` provider option that puts a prompt cache breakpoint on a scalar tool result."""


# --- canonical → wire --------------------------------------------------------------------------------


class ResponsesReplay:
    """Converts the canonical conversation to input items, remembering which calls were custom tool calls."""

    def __init__(self) -> None:
        self.custom_call_ids: set[str] = set()
        self.output_schema_tools: set[str] = set()
        """Names of the tools offered with an output schema (their string results are JSON)."""

    def note_tools(self, tools: Sequence[ToolDefinition]) -> None:
        """Remember which offered tools have an output schema (a tool once offered with one keeps it)."""
        self.output_schema_tools.update(d.function.name for d in tools if output_schema_of(d) is not None)

    def items(self, messages: Iterable[Message]) -> list[dict[str, Any]]:
        """The conversation as input items."""
        items: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, SystemMessage):
                items.append({"role": "system", "content": message.content})
            elif isinstance(message, UserMessage):
                items.append(responses_user_item(message))
            elif isinstance(message, AssistantMessage):
                items.extend(self.assistant_items(message.parts))
            elif isinstance(message, ToolMessage):
                for part in message.content:
                    item = self.tool_item(part, message.provider_metadata)
                    if item is not None:
                        items.append(item)
        return items

    def assistant_items(self, parts: Sequence[AssistantPart]) -> list[dict[str, Any]]:
        """The model's turn, replayed: every output item as received, calls as the loop parsed them."""
        items: list[dict[str, Any]] = []
        replayed: set[str] = set()
        for part in parts:
            meta = vendor_meta(part, VENDOR)
            raw = meta.get("item")
            if isinstance(part, ReasoningPart):
                # Reasoning from another provider cannot be sent; OpenAI's goes back exactly as received.
                if isinstance(raw, dict):
                    _append_once(items, replayed, raw)
            elif isinstance(part, TextPart):
                if isinstance(raw, dict) and _message_text(raw) == part.text:
                    _append_once(items, replayed, raw)
                elif part.text:
                    items.append({"role": "assistant", "content": part.text})
            elif isinstance(part, ToolCallPart):
                if part.provider_executed:
                    if isinstance(raw, dict):
                        _append_once(items, replayed, raw)
                    continue
                items.append(self._call_item(part, meta))
            elif isinstance(part, ToolResultPart) and part.provider_executed and isinstance(raw, dict):
                _append_once(items, replayed, raw)
        return items

    def _call_item(self, part: ToolCallPart, meta: Mapping[str, Any]) -> dict[str, Any]:
        item: dict[str, Any]
        if is_custom_call(part):
            self.custom_call_ids.add(part.tool_call_id)
            item = {
                "type": "custom_tool_call",
                "call_id": part.tool_call_id,
                "name": part.tool_name,
                "input": custom_input_text(part.input),
            }
        else:
            item = {
                "type": "function_call",
                "call_id": part.tool_call_id,
                "name": part.tool_name,
                "arguments": arguments_text(part.input),
            }
        item_id = meta.get("item_id")
        if isinstance(item_id, str) and item_id:
            item["id"] = item_id
        return item

    def tool_item(
        self, part: ToolResultPart | ToolApprovalResponsePart, message_metadata: Mapping[str, Any] | None = None
    ) -> dict[str, Any] | None:
        """One result (or a provider-executed approval response) as an input item.

        ``message_metadata`` is the provider metadata of the tool message holding it.
        """
        if isinstance(part, ToolApprovalResponsePart):
            if not part.provider_executed:
                return None  # the model never sees approvals of toolplug's own calls
            response: dict[str, Any] = {
                "type": "mcp_approval_response",
                "approval_request_id": part.approval_id,
                "approve": part.approved,
            }
            if part.reason:
                response["reason"] = part.reason
            return response
        if part.provider_executed:
            return None
        kind = "custom_tool_call_output" if part.tool_call_id in self.custom_call_ids else "function_call_output"
        output = responses_tool_output(
            part,
            json_strings=part.tool_name in self.output_schema_tools,
            breakpoint=cache_breakpoint(message_metadata, part.provider_metadata, part.output_provider_metadata),
        )
        return {"type": kind, "call_id": part.tool_call_id, "output": output}


def responses_tool_output(
    result: ToolResultPart, *, json_strings: bool = False, breakpoint: dict[str, Any] | None = None
) -> str | list[dict[str, Any]]:
    """A result's ``output``: a string (OpenAI's mapping of output types), content parts for files, or, with a
    cache breakpoint, a scalar result as one ``input_text`` carrying it.

    ``json_strings``: the tool has an output schema, so text and denied results go as JSON string literals.
    """
    output_type = result.output_type
    parts = result.output
    if output_type is OutputType.CONTENT and isinstance(parts, list) and any(map(is_file_part, parts)):
        return responses_content_output(parts)
    text = openai_tool_output(result)
    if json_strings and output_type in (OutputType.TEXT, OutputType.EXECUTION_DENIED):
        text = dumps(text)
    if breakpoint is not None and output_type in _SCALAR_OUTPUTS:
        return [{"type": "input_text", "text": text, "prompt_cache_breakpoint": breakpoint}]
    return text


def cache_breakpoint(*metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The prompt cache breakpoint the ``openai`` options ask for, later sources winning; None for none.

    ``true`` means ``{"mode": "explicit"}`` (the only mode); an object is sent as given; false clears.
    """
    value: Any = None
    for source in metadata:
        options = (source or {}).get(VENDOR)
        if isinstance(options, Mapping) and CACHE_BREAKPOINT_OPTION in options:
            value = options[CACHE_BREAKPOINT_OPTION]
    if isinstance(value, Mapping):
        return dict(value)
    return {"mode": "explicit"} if value else None


def responses_content_output(parts: list[Any]) -> list[dict[str, Any]]:
    """Content parts as Responses input content: text as input_text, images and files as themselves."""
    items: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text":
            items.append({"type": "input_text", "text": str(part.get("text", ""))})
        elif is_file_part(part):
            media_type = part_media_type(part)
            url = data_url(part["data"], media_type)
            if part.get("type") == "image" or media_type.startswith("image/"):
                items.append({"type": "input_image", "image_url": url})
            else:
                items.append({"type": "input_file", "file_data": url, "filename": str(part.get("filename") or "file")})
        else:
            items.append({"type": "input_text", "text": dumps(part)})
    return items


def _append_once(items: list[dict[str, Any]], replayed: set[str], raw: dict[str, Any]) -> None:
    item_id = raw.get("id")
    if isinstance(item_id, str):
        if item_id in replayed:
            return
        replayed.add(item_id)
    items.append(copy.deepcopy(raw))


def _message_text(item: Mapping[str, Any]) -> str:
    texts = []
    for content in item.get("content") or ():
        if content.get("type") == "output_text":
            texts.append(content.get("text", ""))
        elif content.get("type") == "refusal":
            texts.append(content.get("refusal", ""))
    return "".join(texts)


def responses_user_item(message: UserMessage) -> dict[str, Any]:
    """A user message as an input item: a string, or input_text, input_image and input_file parts."""
    if isinstance(message.content, str):
        return {"role": "user", "content": message.content}
    content: list[dict[str, Any]] = []
    for part in message.content:
        if isinstance(part, TextPart):
            content.append({"type": "input_text", "text": part.text})
        elif isinstance(part, FilePart):
            if part.media_type.startswith("image/"):
                image_url = data_url(part.data, part.media_type)
                content.append({"type": "input_image", "image_url": image_url, "detail": "auto"})
            else:
                file: dict[str, Any] = {"type": "input_file"}
                if is_url(part.data):
                    file["file_url"] = part.data
                else:
                    file["file_data"] = f"data:{part.media_type};base64,{base64_data(part.data)}"
                    file["filename"] = part.filename or "file"
                content.append(file)
    return {"role": "user", "content": content}


def responses_tool_choice(choice: ToolChoice, tools: Sequence[ToolDefinition]) -> Any:
    """The tool choice in the API's shape (a named custom tool is chosen as ``custom``)."""
    if choice.mode != "tool":
        return choice.mode
    for definition in tools:
        if definition.function.name == choice.tool_name and definition.kind is ToolKind.CUSTOM:
            return {"type": "custom", "name": choice.tool_name}
    return {"type": "function", "name": choice.tool_name}


def responses_request_body(
    *,
    model: str,
    instructions: Sequence[SystemMessage],
    items: Sequence[dict[str, Any]],
    request: RoundRequest,
    tools: Sequence[dict[str, Any]],
    extra: Mapping[str, Any] | None = None,
    provider_options: Mapping[str, Any] | None = None,
    stream: bool = False,
    server: ServerProfile | None = None,
) -> dict[str, Any]:
    """The body of one round. Extra parameters cannot set model, input, tools, tool choice or stream (an
    InvalidArgumentError); a tool choice ``server`` cannot honour is a UsageError before the request.

    With ``store: false`` the reasoning items must carry their encrypted content to be replayed, so
    ``reasoning.encrypted_content`` is then added to ``include``.
    """
    body = start_body(model, extra, map_settings(request.settings, {}, _SETTINGS_AS_IS), provider_options)
    body["input"] = system_items(instructions) + list(items)
    if tools and server is not None:
        server.check_tool_choice(request.tool_choice)
    choice = responses_tool_choice(request.tool_choice, request.tools)
    offer_tools(body, tools, choice if server is None or server.send_tool_choice else None, parallel=None, extra=extra)
    if body.get("store") is False:
        include = list(body.get("include") or [])
        if "reasoning.encrypted_content" not in include:
            include.append("reasoning.encrypted_content")
        body["include"] = include
    if stream:
        body["stream"] = True
    return body


_SETTINGS_AS_IS = ("max_output_tokens", "temperature", "top_p", "user")


# --- wire → canonical --------------------------------------------------------------------------------


def provider_tool_names(tools: Sequence[ToolDefinition]) -> dict[str, str]:
    """OpenAI tool type → the name the host gave its provider-defined tool (``web_search`` → ``search``)."""
    names: dict[str, str] = {}
    for definition in tools:
        identity = provider_tool_type(definition)
        if identity is not None and identity[0] == VENDOR:
            names[identity[1]] = definition.function.name
    return names


def parse_response_object(data: Mapping[str, Any], *, tool_names: Mapping[str, str] | None = None) -> Round:
    """A response object as a round; a function call without ``call_id`` ends the conversation."""
    names = tool_names or {}
    content: list[AssistantPart] = []
    without_id: list[str] = []
    for item in data.get("output") or ():
        kind = item.get("type")
        if kind == "message":
            text = _message_text(item)
            content.append(TextPart(text, {VENDOR: {"item": item}}))
        elif kind == "reasoning":
            summary = [s.get("text", "") for s in item.get("summary") or () if isinstance(s, Mapping)]
            if not summary:
                summary = [c.get("text", "") for c in item.get("content") or () if isinstance(c, Mapping)]
            content.append(ReasoningPart("\n\n".join(t for t in summary if t), {VENDOR: {"item": item}}))
        elif kind in ("function_call", "custom_tool_call"):
            call_id = item.get("call_id")
            if not call_id:
                without_id.append(str(item.get("name") or "?"))
                continue
            if kind == "custom_tool_call":
                content.append(custom_call_part(call_id, item["name"], item.get("input"), item.get("id")))
                continue
            meta = {"item_id": item["id"]} if item.get("id") else {}
            call_input = parse_arguments(item.get("arguments"))
            content.append(ToolCallPart(call_id, item["name"], call_input, provider_metadata={VENDOR: meta}))
        elif kind in _PROVIDER_ITEMS:
            content.extend(_provider_parts(item, names))
        elif kind == "mcp_list_tools":
            content.extend(_provider_parts(item, {}, name=kind, dynamic=True))
        elif kind in ("tool_search_call", "tool_search_output"):
            content.append(_tool_search_part(item))
        elif kind == "mcp_approval_request":
            item_id = item["id"]
            content.append(
                ToolCallPart(
                    item_id,
                    str(item.get("name") or "mcp"),
                    parse_arguments(item.get("arguments")),
                    provider_executed=True,
                    dynamic=True,
                    provider_metadata={VENDOR: {"item": item}},
                )
            )
            content.append(ToolApprovalRequestPart(item_id, item_id, provider_metadata={VENDOR: {"item_id": item_id}}))
        else:
            logger.debug("Responses output item of type %r is not used", kind)
    finish = _finish_reason(data, any(isinstance(p, ToolCallPart) and not p.provider_executed for p in content))
    raw_finish = str(data.get("status") or "")
    metadata: dict[str, Any] = {VENDOR: {"response_id": data.get("id")}}
    if without_id:
        # The provider owns the ids: an answer cannot be correlated, so the conversation ends here.
        message = f"the model called {', '.join(without_id)} without a call_id; the conversation cannot continue"
        logger.warning("Responses: %s", message)
        content = [p for p in content if not (isinstance(p, ToolCallPart) and not p.provider_executed)]
        finish, raw_finish = "error", CALL_WITHOUT_ID
        metadata["toolplug"] = {"ended": message}
    ended = metadata.get("toolplug", {}).get("ended")
    return Round(
        content,
        finish,
        responses_usage(data.get("usage")),
        model=str(data.get("model") or ""),
        response_id=data.get("id"),
        provider_metadata=metadata,
        raw_finish_reason=raw_finish,
        ends_conversation=ended,
    )


def _tool_search_part(item: Mapping[str, Any]) -> AssistantPart:
    """The provider's own tool search: its call, or its output (the tools it loaded), replayed unchanged."""
    call_id = str(item.get("call_id") or item.get("id") or "")
    meta = {VENDOR: {"item": item}}
    if item.get("type") == "tool_search_call":
        arguments = item.get("arguments")
        call_input = arguments if isinstance(arguments, dict) else parse_arguments(arguments) or {}
        return ToolCallPart(call_id, "tool_search", call_input, provider_executed=True, provider_metadata=meta)
    loaded = {"tools": list(item.get("tools") or ())}
    return ToolResultPart(
        call_id, "tool_search", loaded, OutputType.JSON, provider_executed=True, provider_metadata=meta
    )


def _provider_parts(
    item: Mapping[str, Any], names: Mapping[str, str], *, name: str | None = None, dynamic: bool = False
) -> list[AssistantPart]:
    """A provider-executed item as its call (carrying the item, replayed unchanged) and its result.

    ``dynamic`` marks a call no offered tool stands for (``mcp_list_tools``: the provider listing an MCP
    server's tools), so the loop keeps it without looking for a tool.
    """
    kind = str(item["type"])
    tool_type = kind.removesuffix("_call")
    name = name or names.get(tool_type) or names.get(f"{tool_type}_preview") or tool_type
    item_id = str(item.get("id") or "")
    call_input = item.get("action") or parse_arguments(item.get("arguments")) or {}
    failed = item.get("status") == "failed" or bool(item.get("error"))
    output = {k: v for k, v in item.items() if k not in ("id", "type", "action", "arguments")}
    return [
        ToolCallPart(
            item_id,
            name,
            call_input,
            provider_executed=True,
            dynamic=dynamic,
            provider_metadata={VENDOR: {"item": item}},
        ),
        ToolResultPart(
            item_id,
            name,
            output,
            OutputType.ERROR_JSON if failed else OutputType.JSON,
            provider_executed=True,
            dynamic=dynamic,
            provider_metadata={VENDOR: {"item_id": item_id}},
        ),
    ]


def _finish_reason(data: Mapping[str, Any], has_calls: bool) -> FinishReason:
    status = data.get("status")
    if status == "incomplete":
        reason = (data.get("incomplete_details") or {}).get("reason")
        return "content-filter" if reason == "content_filter" else "length"
    if status == "failed":
        return "error"
    return "tool-calls" if has_calls else "stop"


def responses_usage(usage: Any) -> Usage:
    """The token counts of a response."""
    return openai_usage(usage, "input", "output")


class ResponsesStreamAssembler(StreamAssembler):
    """Assembles a streamed response from its events; the output items come from ``output_item.done``."""

    def __init__(self, tool_names: Mapping[str, str] | None = None) -> None:
        self.done = False
        self._names = dict(tool_names or {})
        self._items: dict[int, dict[str, Any]] = {}
        self._call_ids: dict[str, str] = {}
        """item id or output index → call id (argument deltas name the item)."""
        self._response: dict[str, Any] = {}
        self._text = 0
        self._events = 0

    def feed(self, event: ServerSentEvent) -> list[RoundDelta]:
        """The deltas of one event."""
        if not event.data.strip() or event.data.strip() == "[DONE]":
            return []
        data = event.json()
        kind = data.get("type") or event.event
        self._events += 1
        if kind in ("response.created", "response.in_progress"):
            self._response = dict(data.get("response") or {})
            return []
        if kind == "response.output_text.delta":
            delta = str(data.get("delta") or "")
            self._text += len(delta)
            return [TextDelta(delta)] if delta else []
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            delta = str(data.get("delta") or "")
            return [ReasoningDelta(delta)] if delta else []
        if kind == "response.output_item.added":
            item = data.get("item") or {}
            if item.get("type") in ("function_call", "custom_tool_call") and item.get("call_id"):
                call_id = str(item["call_id"])
                self._remember_call(data, item, call_id)
                return [ToolInputStartDelta(call_id, str(item.get("name") or ""))]
            return []
        if kind in ("response.function_call_arguments.delta", "response.custom_tool_call_input.delta"):
            streamed_id = self._call_of(data)
            delta = str(data.get("delta") or "")
            return [ToolInputDelta(streamed_id, delta)] if streamed_id and delta else []
        if kind == "response.output_item.done":
            item = data.get("item") or {}
            self._items[int(data.get("output_index", len(self._items)))] = item
            done_id = item.get("call_id")
            if item.get("type") in ("function_call", "custom_tool_call") and done_id:
                return [ToolInputEndDelta(str(done_id))]
            return []
        if kind in ("response.completed", "response.incomplete"):
            self._response = dict(data.get("response") or {})
            self.done = True
            return []
        if kind == "response.failed":
            error = (data.get("response") or {}).get("error") or {}
            raise ProviderResponseError(f"the response failed: {error.get('message') or error or 'no reason given'}")
        if kind == "error":
            raise stream_error(data.get("message") or data.get("error") or data, data.get("code") or "no code")
        return []

    def _remember_call(self, data: Mapping[str, Any], item: Mapping[str, Any], call_id: str) -> None:
        if item.get("id"):
            self._call_ids[str(item["id"])] = call_id
        if "output_index" in data:
            self._call_ids[f"#{data['output_index']}"] = call_id

    def _call_of(self, data: Mapping[str, Any]) -> str | None:
        item_id = data.get("item_id")
        if item_id and str(item_id) in self._call_ids:
            return self._call_ids[str(item_id)]
        return self._call_ids.get(f"#{data.get('output_index')}")

    def finish(self) -> Round:
        """The round, from the final response (its output, else the items streamed)."""
        return parse_response_object(self.snapshot(), tool_names=self._names)

    def progress(self) -> str:
        """What arrived before the stream broke off."""
        return f"{self._events} events, {self._text} characters of text, {len(self._items)} complete output items"

    def snapshot(self) -> dict[str, Any]:
        """The response as assembled so far."""
        response = dict(self._response)
        if not response.get("output"):
            response["output"] = [self._items[i] for i in sorted(self._items)]
        return response


# --- the adapter -------------------------------------------------------------------------------------


class OpenAIResponsesAdapter(HTTPProviderAdapter):
    """Responses, stateful for one call: the input items grow with each round's whole output and results."""

    path = PATH
    api_name = "Responses"
    tool_shape = staticmethod(to_responses_tool)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.items: list[dict[str, Any]] = []
        self._replay = ResponsesReplay()
        self._history: Sequence[Message] | None = None
        self.ended: str | None = None
        """Why the conversation ended (a call without id); further rounds are refused."""

    def begin(self, messages: Sequence[Message]) -> None:
        """Start with the conversation so far (converted with the first round, once its tools are known)."""
        self._history = list(messages)
        self.items = []

    def build_body(self, request: RoundRequest, *, stream: bool) -> dict[str, Any]:
        """The body of one round."""
        if self.ended is not None:
            raise ProviderResponseError(f"the conversation has ended: {self.ended}", provider=self.provider_id)
        self._replay.note_tools(request.tools)
        if self._history is not None:
            # Results of tools with an output schema are written differently, so the history waits for them.
            self.items = self._replay.items(self._history)
            self._history = None
        return responses_request_body(
            model=self.model_id,
            instructions=request.instructions,
            items=self.items,
            request=request,
            tools=self._tools(request.tools),
            extra=self.extra,
            provider_options=self.provider_options(request, VENDOR),
            stream=stream,
            server=self.server,
        )

    def parse_response(self, data: Any, request: RoundRequest) -> Round:
        """A response object as a round."""
        return self._note_end(parse_response_object(data, tool_names=provider_tool_names(request.tools)))

    def stream_assembler(self, request: RoundRequest) -> StreamAssembler:
        """A fresh assembler."""
        return _EndNotingAssembler(self, provider_tool_names(request.tools))

    def _note_end(self, round_: Round) -> Round:
        if round_.raw_finish_reason == CALL_WITHOUT_ID and round_.provider_metadata:
            self.ended = str(round_.provider_metadata.get("toolplug", {}).get("ended"))
        return round_

    def record_model_turn(self, round: Round) -> None:
        """Append the whole output of the round (reasoning items included) as input items."""
        self.items.extend(self._replay.assistant_items(round.content))

    def record_tool_result(self, call_id: str, result: ToolResultPart) -> None:
        """Append one ``function_call_output`` (or ``custom_tool_call_output``) item."""
        item = self._replay.tool_item(result)
        if item is not None:
            item["call_id"] = call_id
            self.items.append(item)


class _EndNotingAssembler(ResponsesStreamAssembler):
    def __init__(self, adapter: OpenAIResponsesAdapter, tool_names: Mapping[str, str]) -> None:
        super().__init__(tool_names)
        self._adapter = adapter

    def finish(self) -> Round:
        return self._adapter._note_end(super().finish())


ADAPTER_FACTORY = openai_factory(API, OpenAIResponsesAdapter)
"""Makes Responses adapters (``api = "openai-responses"``)."""


__all__ = [
    "ADAPTER_FACTORY",
    "API",
    "CALL_WITHOUT_ID",
    "OpenAIResponsesAdapter",
    "ResponsesReplay",
    "ResponsesStreamAssembler",
    "cache_breakpoint",
    "parse_response_object",
    "provider_tool_names",
    "responses_request_body",
    "responses_tool_choice",
    "responses_tool_output",
    "responses_usage",
    "responses_user_item",
]
