"""What the three HTTP adapters share: the factory, the adapter skeleton, and small wire helpers.

Each API module keeps its conversion (canonical ↔ wire) in pure functions and subclasses
:class:`HTTPProviderAdapter` for the state of one call: the wire conversation grows as turns and
results are recorded, so a round converts only what is new.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import os
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import httpx2

from toolplug.definitions import OutputType, ToolDefinition
from toolplug.errors import InvalidArgumentError, ProviderResponseError
from toolplug.messages import Message, ToolResultPart
from toolplug.providers.base import (
    FinishReason,
    ProviderAdapter,
    ProviderProfile,
    Round,
    RoundDelta,
    RoundRequest,
)
from toolplug.providers.http import ExchangeRecorder, ProviderHTTPClient, RetryPolicy, ServerSentEvent
from toolplug.providers.profiles import PROFILES, ServerProfile, managed_field_problem, server_profile

logger = logging.getLogger("toolplug.providers")

DENIED_TEXT = "Tool call execution denied."
"""What a model reads for a denied call without a reason."""


def dumps(value: Any) -> str:
    """Compact JSON, as the APIs take arguments and outputs."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def openai_tool_output(result: ToolResultPart) -> str:
    """A tool result as OpenAI reads it: errors as ``{"error": value}``, denied as its reason."""
    output = result.output
    output_type = result.output_type
    if output_type is OutputType.TEXT:
        return output if isinstance(output, str) else dumps(output)
    if output_type is OutputType.JSON:
        return dumps(output)
    if output_type is OutputType.ERROR_TEXT or output_type is OutputType.ERROR_JSON:
        return dumps({"error": output})
    if output_type is OutputType.EXECUTION_DENIED:
        return output if isinstance(output, str) and output else DENIED_TEXT
    return content_output_text(output)


def content_output_text(output: Any) -> str:
    """Content parts as text: the text parts joined, anything else as JSON; file data is never sent as text."""
    if isinstance(output, str):
        return output
    if isinstance(output, list) and all(isinstance(p, dict) and p.get("type") == "text" for p in output):
        return "\n".join(str(p.get("text", "")) for p in output)
    if isinstance(output, list):
        return dumps([file_placeholder(p) if is_file_part(p) else p for p in output])
    return dumps(output)


def is_file_part(part: Any) -> bool:
    """An image or file content part carrying data."""
    return isinstance(part, dict) and part.get("type") in ("image", "file") and bool(part.get("data"))


def part_media_type(part: Mapping[str, Any], default: str = "application/octet-stream") -> str:
    """The media type of a content part (``media_type`` or ``mediaType``)."""
    return str(part.get("media_type") or part.get("mediaType") or default)


def file_placeholder(part: dict[str, Any]) -> dict[str, Any]:
    """What a text-only API reads instead of a file's base64 data."""
    return {"type": part.get("type"), "media_type": part_media_type(part), "note": "binary content not shown in text"}


def is_url(data: str | bytes) -> bool:
    """Whether a file's data is an http(s) URL rather than its content."""
    return isinstance(data, str) and data.startswith(("http://", "https://"))


def data_url(data: str | bytes, media_type: str) -> str:
    """A file's data as a URL: URLs stay, base64 text and bytes become ``data:`` URLs."""
    if isinstance(data, bytes):
        return f"data:{media_type};base64,{base64.b64encode(data).decode('ascii')}"
    if is_url(data) or data.startswith("data:"):
        return data
    return f"data:{media_type};base64,{data}"


def base64_data(data: str | bytes) -> str:
    """A file's data as base64 text (a ``data:`` URL is unwrapped)."""
    if isinstance(data, bytes):
        return base64.b64encode(data).decode("ascii")
    if data.startswith("data:") and "," in data:
        return data.split(",", 1)[1]
    return data


def parse_arguments(raw: Any) -> Any:
    """Arguments as the loop takes them: parsed JSON where possible, else the raw text (the loop reports it)."""
    if not isinstance(raw, str):
        return raw if raw is not None else {}
    text = raw.strip()
    if not text:
        return {}
    try:
        return json.loads(text)
    except ValueError:
        return raw


def arguments_text(value: Any) -> str:
    """A call's input as the JSON text the OpenAI APIs replay."""
    if isinstance(value, str):
        return value
    return dumps({} if value is None else value)


def vendor_meta(part: Any, vendor: str) -> dict[str, Any]:
    """A part's provider metadata for ``vendor`` (empty when there is none)."""
    value = (part.provider_metadata or {}).get(vendor)
    return value if isinstance(value, dict) else {}


def map_settings(
    settings: Mapping[str, Any], renames: Mapping[str, str], passthrough: Iterable[str] = ()
) -> dict[str, Any]:
    """Generation settings in an API's names: ``renames`` maps a setting to its wire name, ``passthrough``
    names those sent as they are; anything else (and None values) is left out. Stop sequences go as a list."""
    kept = frozenset(passthrough)
    mapped: dict[str, Any] = {}
    for key, value in settings.items():
        name = renames.get(key) or (key if key in kept else None)
        if value is None or name is None:
            continue
        mapped[name] = list(value) if key == "stop_sequences" else value
    return mapped


def start_body(model: str, *sources: Mapping[str, Any] | None) -> dict[str, Any]:
    """A request body: the options of ``sources`` (see :func:`merge_options`), then the model."""
    body: dict[str, Any] = {}
    merge_options(body, *sources)
    body["model"] = model
    return body


def finish_with_calls(mapped: FinishReason, has_calls: bool) -> FinishReason:
    """A model that stopped normally but called tools finished with ``tool-calls``."""
    return "tool-calls" if has_calls and mapped == "stop" else mapped


def stream_error(detail: Any, code: Any = None) -> ProviderResponseError:
    """The error of an API's in-stream error event (the adapter adds provider and request id)."""
    suffix = f" ({code})" if code else ""
    return ProviderResponseError(f"the stream reported an error: {detail}{suffix}")


def merge_options(body: dict[str, Any], *sources: Mapping[str, Any] | None) -> None:
    """Copy extra parameters, mapped settings and provider options into ``body`` (the adapter has refused
    any field toolplug manages where they entered: :func:`check_option`). ``parallel_tool_calls`` applies
    only where toolplug does not set it (see :func:`toolplug.providers._openai_common.offer_tools`)."""
    for source in sources:
        if not source:
            continue
        for key, value in source.items():
            if key == "parallel_tool_calls":
                continue
            body[key] = copy.deepcopy(value)


def check_option(key: str) -> None:
    """Raise InvalidArgumentError for an extra parameter or provider option that toolplug manages."""
    problem = managed_field_problem(key)
    if problem:
        raise InvalidArgumentError("extra", problem)


def convert_tools(
    definitions: Sequence[ToolDefinition], convert: Callable[[ToolDefinition], dict[str, Any]], api: str
) -> list[dict[str, Any]]:
    """Every definition in ``api``'s shape; one the API cannot take is left out with a warning."""
    tools: list[dict[str, Any]] = []
    for definition in definitions:
        try:
            tools.append(convert(definition))
        except InvalidArgumentError as exc:
            logger.warning("%s: tool left out of the request: %s", api, exc)
    return tools


class ToolShapeCache:
    """Converts a request's tools once per distinct list of definitions (the loop reuses its lists)."""

    def __init__(self, convert: Callable[[ToolDefinition], dict[str, Any]], api: str) -> None:
        self._convert = convert
        self._api = api
        self._key: tuple[int, ...] | None = None
        self._keep: Sequence[ToolDefinition] = ()
        self._tools: list[dict[str, Any]] = []

    def __call__(self, definitions: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        key = tuple(id(d) for d in definitions)
        if key != self._key:
            self._tools = convert_tools(definitions, self._convert, self._api)
            self._key = key
            self._keep = tuple(definitions)  # holds the objects so their ids stay theirs
        return self._tools


_SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)
"""What reading an answer of the wrong shape raises."""


# --- the adapter skeleton ----------------------------------------------------------------------------


class HTTPProviderAdapter:
    """A provider adapter over HTTP, stateful for one call. Subclasses fill in the wire format."""

    path: ClassVar[str]
    """The request path under the base URL."""
    api_name: ClassVar[str]
    tool_shape: ClassVar[staticmethod[[ToolDefinition], dict[str, Any]]]
    """Converts one definition to the API's tool entry (a ``staticmethod`` of a :mod:`wire_tools` function)."""
    native_tool_search: str | None = None
    """The API whose own tool search this provider's model supports (``anthropic``, ``openai-responses``),
    or None: the loop then offers deferred tools through the client-side ``search_tools``."""

    def __init__(
        self,
        client: ProviderHTTPClient,
        *,
        provider_id: str,
        model_id: str,
        extra: Mapping[str, Any] | None = None,
        server: ServerProfile | None = None,
    ) -> None:
        self.client = client
        self.provider_id = provider_id
        self.model_id = model_id
        for key in extra or ():
            check_option(key)
        self.extra: dict[str, Any] = dict(extra or {})
        self.server: ServerProfile = server if server is not None else PROFILES["official"]
        """The dialect of the server (see :mod:`toolplug.providers.profiles`)."""
        self.last_request_body: dict[str, Any] | None = None
        """The body of the most recent request (for tests and debugging)."""
        self._tools = ToolShapeCache(self.tool_shape, self.api_name)
        """The request's tools in the API's shape (converted once per list of definitions)."""

    # -- the protocol -----------------------------------------------------------------------------------

    def begin(self, messages: Sequence[Message]) -> None:
        """Start the call with the conversation so far (without the leading instructions)."""
        raise NotImplementedError

    async def run_round(self, request: RoundRequest) -> Round:
        """Run one non-streamed round."""
        body = self.build_body(request, stream=False)
        self.last_request_body = body
        response = await self.client.post_json(self.path, body)
        try:
            round_ = self.parse_response(response.data, request)
        except ProviderResponseError:
            raise
        except _SHAPE_ERRORS as exc:
            subject = f"the {self.api_name} answer"
            raise self._shape_error(subject, exc, response.request_id, response.status) from exc
        return self._stamp(round_)

    async def stream_round(self, request: RoundRequest) -> AsyncIterator[RoundDelta | Round]:
        """Run one streamed round: deltas as they arrive, then the assembled round."""
        body = self.build_body(request, stream=True)
        self.last_request_body = body
        async with self.client.open_stream(self.path, body) as stream:
            assembler = self.stream_assembler(request)
            try:
                async for event in stream:
                    for delta in assembler.feed(event):
                        yield delta
                    if assembler.done:
                        break
                complete = assembler.done or assembler.complete_at_end()
                stream.completed = stream.completed or complete
                if not complete:
                    raise ProviderResponseError(
                        f"the {self.api_name} event stream ended before the answer was complete "
                        f"({assembler.progress()})",
                        provider=self.provider_id,
                        request_id=stream.request_id,
                    )
                round_ = assembler.finish()
            except ProviderResponseError as exc:
                exc.provider = exc.provider or self.provider_id
                if exc.request_id is None and stream.request_id is not None:
                    exc.request_id = stream.request_id
                raise
            except _SHAPE_ERRORS as exc:
                subject = f"an event of the {self.api_name} stream"
                raise self._shape_error(subject, exc, stream.request_id) from exc
            finally:
                stream.assembled = assembler.snapshot()
        yield self._stamp(round_)

    def _stamp(self, round_: Round) -> Round:
        round_.provider = self.provider_id
        if not round_.model:
            round_.model = self.model_id
        return round_

    def _shape_error(
        self, subject: str, exc: Exception, request_id: str | None, status: int | None = None
    ) -> ProviderResponseError:
        return ProviderResponseError(
            f"{subject} does not have the documented shape: {type(exc).__name__}: {exc}",
            provider=self.provider_id,
            status=status,
            request_id=request_id,
        )

    def record_model_turn(self, round: Round) -> None:
        """Remember the model's turn."""
        raise NotImplementedError

    def record_tool_result(self, call_id: str, result: ToolResultPart) -> None:
        """Remember one result."""
        raise NotImplementedError

    # -- for subclasses -----------------------------------------------------------------------------------

    def build_body(self, request: RoundRequest, *, stream: bool) -> dict[str, Any]:
        """The request body of one round."""
        raise NotImplementedError

    def parse_response(self, data: Any, request: RoundRequest) -> Round:
        """A non-streamed answer as a round."""
        raise NotImplementedError

    def stream_assembler(self, request: RoundRequest) -> StreamAssembler:
        """A fresh assembler for one streamed answer."""
        raise NotImplementedError

    def provider_options(self, request: RoundRequest, vendor: str) -> dict[str, Any]:
        """The request's provider options for the vendor and for this provider id, merged."""
        options: dict[str, Any] = {}
        for key in (vendor, self.provider_id):
            value = request.provider_options.get(key)
            if isinstance(value, Mapping):
                options.update(value)
        for key in options:
            check_option(key)
        return options


class StreamAssembler:
    """Turns one API's events into deltas and, at the end, the round."""

    done: bool = False

    def feed(self, event: ServerSentEvent) -> list[RoundDelta]:
        """The deltas of one event."""
        raise NotImplementedError

    def complete_at_end(self) -> bool:
        """Whether the answer is complete although the stream ended without its final event."""
        return False

    def finish(self) -> Round:
        """The complete round (call once :attr:`done`)."""
        raise NotImplementedError

    def progress(self) -> str:
        """What arrived so far, in words (for the error of a stream that broke off)."""
        raise NotImplementedError

    def snapshot(self) -> Any:
        """What was assembled, as JSON (for the recording)."""
        raise NotImplementedError


# --- the factory -------------------------------------------------------------------------------------


ANTHROPIC_TOOL_SEARCH_BETA = "advanced-tool-use-2025-11-20"
"""The beta that enables Anthropic's tool search (sent to models that use it)."""

_NATIVE_SEARCH_MODELS = {
    "anthropic": (re.compile(r"claude-(opus|sonnet)-(4-[5-9]|[5-9])"), "https://api.anthropic.com"),
    "openai-responses": (re.compile(r"gpt-(5\.([4-9]|[1-9][0-9])|[6-9])"), "https://api.openai.com"),
}


def native_search_api(api: str, profile: ProviderProfile) -> str | None:
    """``api`` when the profile's model has the API's own tool search, else None.

    ``native_tool_search`` in the profile decides when set; otherwise the official API's models known
    to have it (Claude Opus and Sonnet 4.5 and later; GPT-5.4 and later on Responses) use it.
    """
    known = _NATIVE_SEARCH_MODELS.get(api)
    if known is None:
        return None
    setting = getattr(profile, "native_tool_search", None)
    if setting is not None:
        return api if setting else None
    pattern, official = known
    base_url = (profile.base_url or official).rstrip("/")
    if not base_url.startswith(official):
        return None
    return api if pattern.search(profile.model) else None


@dataclass(frozen=True, slots=True)
class HTTPAdapterFactory:
    """Makes adapters of one API for the providers configured with it (``ADAPTER_FACTORY`` of each module).

    ``create`` options: ``recorder`` (an :class:`ExchangeRecorder`) or ``record_dir``; ``retry`` (a
    :class:`RetryPolicy`); ``timeout`` and ``max_retries`` override the profile's.
    """

    api: str
    adapter_type: type[HTTPProviderAdapter]
    default_base_url: str
    auth_headers: Callable[[str], dict[str, str]]
    static_headers: tuple[tuple[str, str], ...] = ()
    path_prefix: str = ""
    """The start of the API's path (``/v1``): a base URL that already ends with it (as other clients
    write it) is taken without it, so the path is not doubled."""

    def base_url(self, configured: str | None) -> str:
        """The base URL requests go to."""
        url = (configured or self.default_base_url).rstrip("/")
        if self.path_prefix and url.endswith(self.path_prefix):
            url = url[: -len(self.path_prefix)]
        return url

    def create(
        self,
        profile: ProviderProfile,
        *,
        provider_id: str,
        api_key: str | None = None,
        http_client: Any = None,
        **options: Any,
    ) -> ProviderAdapter:
        """A fresh adapter for one call."""
        headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        headers.update(dict(self.static_headers))
        native_search = native_search_api(self.api, profile)
        if native_search == "anthropic":
            headers["anthropic-beta"] = ANTHROPIC_TOOL_SEARCH_BETA
        if api_key:
            headers.update(self.auth_headers(api_key))
        timeout = float(options.get("timeout") or getattr(profile, "timeout", 120.0) or 120.0)
        retry = options.get("retry")
        if not isinstance(retry, RetryPolicy):
            max_retries = options.get("max_retries", getattr(profile, "max_retries", 2))
            retry = RetryPolicy(max_retries=int(max_retries))
        recorder = options.get("recorder")
        if recorder is None and options.get("record_dir"):
            recorder = ExchangeRecorder(os.fspath(options["record_dir"]))
        if http_client is not None and not isinstance(http_client, httpx2.AsyncClient):
            raise InvalidArgumentError(
                "http_client", f"expected an httpx2.AsyncClient, got {type(http_client).__name__}"
            )
        client = ProviderHTTPClient(
            provider=provider_id,
            base_url=self.base_url(profile.base_url),
            headers=headers,
            secrets=(api_key,) if api_key else (),
            timeout=timeout,
            retry=retry,
            http_client=http_client,
            recorder=recorder,
        )
        overrides = profile.server_overrides() if hasattr(profile, "server_overrides") else None
        server = server_profile(getattr(profile, "server", None), profile.base_url, overrides)
        adapter = self.adapter_type(
            client, provider_id=provider_id, model_id=profile.model, extra=profile.extra, server=server
        )
        adapter.native_tool_search = native_search
        return adapter


__all__ = [
    "DENIED_TEXT",
    "HTTPAdapterFactory",
    "HTTPProviderAdapter",
    "StreamAssembler",
    "ToolShapeCache",
    "arguments_text",
    "base64_data",
    "check_option",
    "content_output_text",
    "convert_tools",
    "data_url",
    "dumps",
    "merge_options",
    "openai_tool_output",
    "parse_arguments",
]
