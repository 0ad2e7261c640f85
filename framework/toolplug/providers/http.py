"""The HTTP side of every provider adapter: one client, retries, error mapping, SSE, recording.

* :class:`ProviderHTTPClient` sends JSON to one provider's API over an ``httpx2.AsyncClient`` (the
  host's shared one, see :func:`shared_http_client`, or one opened per request), with a timeout and
  retries on connection failures, 429 and 5xx: bounded exponential backoff, honouring
  ``Retry-After`` (seconds or an HTTP date) and ``retry-after-ms``, at most ``max_retries`` times.
* Failures become :mod:`toolplug.errors` provider errors carrying the status, the provider, the
  request id and the message from the body (``{"error": {"message": ...}}`` in both vendors' APIs):
  401/403 → ProviderAuthenticationError, 429 → ProviderRateLimitError, other non-2xx →
  ProviderHTTPError, no answer → ProviderConnectionError, a body that is not the API's JSON →
  ProviderResponseError. The API key never appears in a message: every configured secret is
  replaced by ``[REDACTED]`` before a message is built.
* :class:`SSEDecoder` parses server-sent events incrementally, chunk by chunk.
* :class:`ExchangeRecorder` writes each exchange as a numbered JSON file for ``--record DIR``, with
  ``Authorization``, ``x-api-key`` and every secret value redacted.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import os
import random
import ssl
import threading
import time
import weakref
from collections.abc import AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx2

from toolplug.errors import (
    ModelRequestsDisabledError,
    ProviderAuthenticationError,
    ProviderConnectionError,
    ProviderError,
    ProviderHTTPError,
    ProviderRateLimitError,
    ProviderResponseError,
)
from toolplug.secrets import scrub

logger = logging.getLogger("toolplug.providers.http")

REDACTED = "[REDACTED]"
SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie", "set-cookie"}
)
"""Headers whose values never reach a recording or a message."""
REQUEST_ID_HEADERS = ("x-request-id", "request-id", "openai-request-id", "cf-ray")
"""Where the APIs put the id of a request (OpenAI: x-request-id; Anthropic: request-id)."""
RETRYABLE_STATUSES = frozenset({408, 409, 429}) | frozenset(range(500, 600))
_MIN_SECRET_LENGTH = 4


# --- the shared client ---------------------------------------------------------------------------------

_SHARED: weakref.WeakKeyDictionary[Any, weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, httpx2.AsyncClient]]
_SHARED = weakref.WeakKeyDictionary()
_SHARED_LOCK = threading.Lock()


def shared_http_client(owner: Any) -> httpx2.AsyncClient:
    """The one ``httpx2.AsyncClient`` of ``owner`` (a Host) in the running event loop.

    A client's connections belong to the event loop that opened them, so each loop gets its own.
    Close them with :func:`close_shared_http_clients` before the loop ends.
    """
    loop = asyncio.get_running_loop()
    with _SHARED_LOCK:
        per_loop = _SHARED.get(owner)
        if per_loop is None:
            per_loop = weakref.WeakKeyDictionary()
            _SHARED[owner] = per_loop
        client = per_loop.get(loop)
        if client is None or client.is_closed:
            client = new_http_client()
            per_loop[loop] = client
    return client


async def close_shared_http_clients(owner: Any) -> None:
    """Close ``owner``'s shared client of the running loop (the others belong to other loops)."""
    loop = asyncio.get_running_loop()
    with _SHARED_LOCK:
        per_loop = _SHARED.get(owner)
        client = None if per_loop is None else per_loop.pop(loop, None)
    if client is not None:
        await client.aclose()


def new_http_client() -> httpx2.AsyncClient:
    """A client configured for provider APIs (timeouts are set per request).

    The TLS context (loading the CA bundle costs about 0.1 s) is made once and shared, so a client for
    one request costs next to nothing.
    """
    return httpx2.AsyncClient(
        verify=_tls_context(),
        timeout=httpx2.Timeout(120.0, connect=10.0),
        limits=httpx2.Limits(max_connections=100, max_keepalive_connections=20),
        follow_redirects=False,
    )


_TLS_CONTEXT: list[ssl.SSLContext] = []
_TLS_LOCK = threading.Lock()


def _tls_context() -> ssl.SSLContext:
    with _TLS_LOCK:
        if not _TLS_CONTEXT:
            _TLS_CONTEXT.append(httpx2.create_ssl_context())
        return _TLS_CONTEXT[0]


# --- redaction ---------------------------------------------------------------------------------------


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every secret replaced by ``[REDACTED]``, then the process-wide secret scrubber applied
    (every secret toolplug has read, in all its encoded forms)."""
    for secret in secrets:
        if secret and len(secret) >= _MIN_SECRET_LENGTH and secret in text:
            text = text.replace(secret, REDACTED)
    return scrub(text)


def redact_headers(headers: Mapping[str, str], secrets: Iterable[str] = ()) -> dict[str, str]:
    """Headers with the secret ones (Authorization, x-api-key, cookies) and every secret value redacted."""
    secret_list = list(secrets)
    return {
        name: REDACTED if name.lower() in SECRET_HEADERS else redact(value, secret_list)
        for name, value in headers.items()
    }


# --- server-sent events ------------------------------------------------------------------------------


@dataclass(slots=True)
class ServerSentEvent:
    """One event of a ``text/event-stream``."""

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        """The data parsed as JSON (raises ValueError when it is not)."""
        return json.loads(self.data)


class SSEDecoder:
    """An incremental parser of server-sent events: feed it bytes as they arrive, get whole events back.

    Handles ``\\n``, ``\\r\\n`` and ``\\r`` line ends split anywhere across chunks, multi-line data,
    comments, and fields without a value, as the HTML standard describes the format.
    """

    def __init__(self) -> None:
        self._buffer = b""
        self._event = ""
        self._data: list[str] = []
        self._id: str | None = None
        self._retry: int | None = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Parse ``chunk``; returns the events it completed (possibly none)."""
        if not chunk:
            return []
        buffer = self._buffer + chunk
        events: list[ServerSentEvent] = []
        start = 0
        length = len(buffer)
        while start < length:
            newline = buffer.find(b"\n", start)
            carriage = buffer.find(b"\r", start, newline if newline >= 0 else length)
            if carriage >= 0:
                end = carriage
                # A lone \r at the end may be the first half of \r\n: wait for the next chunk.
                if carriage + 1 == length:
                    break
                step = 2 if buffer[carriage + 1 : carriage + 2] == b"\n" else 1
            elif newline >= 0:
                end, step = newline, 1
            else:
                break
            event = self._line(buffer[start:end])
            if event is not None:
                events.append(event)
            start = end + step
        self._buffer = buffer[start:]
        return events

    def flush(self) -> list[ServerSentEvent]:
        """The end of the stream: dispatch what is pending (a last event without a blank line)."""
        events: list[ServerSentEvent] = []
        if self._buffer:
            event = self._line(self._buffer.rstrip(b"\r"))
            self._buffer = b""
            if event is not None:
                events.append(event)
        event = self._line(b"")
        if event is not None:
            events.append(event)
        return events

    def _line(self, raw: bytes) -> ServerSentEvent | None:
        if not raw:
            if not self._data and not self._event:
                return None
            event = ServerSentEvent(self._event or "message", "\n".join(self._data), self._id, self._retry)
            self._event = ""
            self._data = []
            return event
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            return None
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._id = value
        elif name == "retry" and value.isdigit():
            self._retry = int(value)
        return None


# --- recording ---------------------------------------------------------------------------------------


class ExchangeRecorder:
    """Writes every HTTP exchange as ``NNNN-<provider>.json`` in ``directory`` (``--record DIR``).

    Each file holds the request (method, URL, headers, body) and the response (status, headers, body,
    or for a stream its events and the assembled result). Authorization and key headers and every
    registered secret are replaced by ``[REDACTED]`` before anything is written.
    """

    def __init__(self, directory: str | os.PathLike[str], secrets: Iterable[str] = ()) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._secrets: set[str] = {s for s in secrets if s}
        self._lock = threading.Lock()
        existing = [int(p.name[:4]) for p in self.directory.glob("[0-9][0-9][0-9][0-9]-*.json")]
        self._next = max(existing, default=0) + 1
        self.paths: list[Path] = []

    def add_secret(self, secret: str | None) -> None:
        """Redact ``secret`` from everything recorded from now on."""
        if secret:
            self._secrets.add(secret)

    def record(self, provider: str, exchange: Mapping[str, Any]) -> Path:
        """Write one exchange; returns the file."""
        text = json.dumps(exchange, indent=2, ensure_ascii=False, default=str)
        text = redact(text, sorted(self._secrets, key=len, reverse=True))
        safe_provider = "".join(c if c.isalnum() or c in "-_" else "_" for c in provider) or "provider"
        with self._lock:
            number = self._next
            self._next += 1
            path = self.directory / f"{number:04d}-{safe_provider}.json"
            path.write_text(text + "\n", encoding="utf-8")
            self.paths.append(path)
        return path


# --- retries -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class RetryPolicy:
    """How often and how long to wait before trying a request again."""

    max_retries: int = 2
    """Retries after the first attempt (0: never retry)."""
    backoff_base: float = 0.5
    """Seconds before the first retry; doubled for each further one (with up to 25 % jitter)."""
    backoff_max: float = 8.0
    """The longest computed backoff."""
    retry_after_max: float = 60.0
    """The longest Retry-After honoured; a server asking for more gets no further retry."""

    def delay(self, attempt: int, headers: Mapping[str, str] | None) -> float | None:
        """Seconds to wait before retry number ``attempt`` (1-based); None when no retry should follow."""
        if attempt > self.max_retries:
            return None
        asked = retry_after_seconds(headers) if headers is not None else None
        if asked is not None:
            return asked if asked <= self.retry_after_max else None
        backoff: float = min(self.backoff_base * (2.0 ** (attempt - 1)), self.backoff_max)
        return backoff * (1.0 + random.random() * 0.25)


def retry_after_seconds(headers: Mapping[str, str]) -> float | None:
    """The wait a server asked for: ``retry-after-ms``, or ``Retry-After`` in seconds or as an HTTP date."""
    lowered = {k.lower(): v for k, v in headers.items()}
    milliseconds = lowered.get("retry-after-ms")
    if milliseconds:
        try:
            return max(float(milliseconds) / 1000, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if not value:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - time.time(), 0.0)


# --- the client --------------------------------------------------------------------------------------


@dataclass(slots=True)
class JSONResponse:
    """A successful JSON answer."""

    data: Any
    status: int
    headers: dict[str, str]
    request_id: str | None


@dataclass(slots=True)
class ProviderHTTPClient:
    """Sends one provider's requests: base URL, auth headers, timeout, retries, errors, recording.

    :param provider: the host's name for the provider (errors and recordings name it).
    :param base_url: the API's base URL; request paths are appended to it.
    :param headers: headers of every request (auth included; they are redacted when recorded).
    :param secrets: values never to show (the API key).
    :param http_client: the host's shared client; None opens one per request and closes it after.
    """

    provider: str
    base_url: str
    headers: dict[str, str] = field(default_factory=dict)
    secrets: tuple[str, ...] = ()
    timeout: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    http_client: httpx2.AsyncClient | None = None
    recorder: ExchangeRecorder | None = None

    def url(self, path: str) -> str:
        """The full URL of ``path``."""
        return self.base_url.rstrip("/") + "/" + path.lstrip("/")

    async def post_json(self, path: str, body: Mapping[str, Any]) -> JSONResponse:
        """POST ``body`` and return the JSON answer, retrying as the policy allows."""
        url = self.url(path)
        started = time.monotonic()
        async with self._client() as client:
            response = await self._send(client, url, body, stream=False)
            try:
                raw = response.content
            except httpx2.HTTPError as exc:
                raise self._connection_error(exc, url) from exc
        request_id = request_id_of(response.headers)
        try:
            data = json.loads(raw)
        except ValueError as exc:
            self._record(url, body, response, {"raw_body": raw.decode("utf-8", errors="replace")}, started)
            raise ProviderResponseError(
                f"the answer is not JSON: {self._snippet(raw)}",
                provider=self.provider,
                status=response.status_code,
                request_id=request_id,
            ) from exc
        self._record(url, body, response, {"body": data}, started)
        return JSONResponse(data, response.status_code, dict(response.headers), request_id)

    def open_stream(self, path: str, body: Mapping[str, Any]) -> EventStream:
        """POST ``body`` and read the answer as server-sent events: ``async with client.open_stream(...) as s``."""
        return EventStream(self, self.url(path), body)

    # -- internals --------------------------------------------------------------------------------------

    def _client(self) -> _ClientScope:
        return _ClientScope(self.http_client)

    async def _send(self, client: httpx2.AsyncClient, url: str, body: Mapping[str, Any], *, stream: bool) -> Any:
        """Send with retries; returns a 2xx response (streamed responses still open)."""
        from toolplug.providers import model_requests_allowed

        if not model_requests_allowed():
            raise ModelRequestsDisabledError(
                f"A request to provider {self.provider!r} ({url}) was about to be sent, but model requests are "
                "switched off (toolplug.providers.ALLOW_MODEL_REQUESTS or TOOLPLUG_ALLOW_MODEL_REQUESTS=0). "
                "Use a test model from toolplug.testing."
            )
        attempt = 0
        timeout = httpx2.Timeout(self.timeout, connect=min(self.timeout, 10.0))
        while True:
            attempt += 1
            started = time.monotonic()
            try:
                request = client.build_request("POST", url, json=body, headers=self.headers, timeout=timeout)
                response = await client.send(request, stream=stream)
            except httpx2.TransportError as exc:
                wait = self.retry.delay(attempt, None)
                error = self._connection_error(exc, url)
                self._record(url, body, None, {"error": str(error)}, started, attempt)
                if wait is None:
                    raise error from exc
                logger.info("provider %s: %s, retry %d in %.2fs", self.provider, type(exc).__name__, attempt, wait)
                await asyncio.sleep(wait)
                continue
            if response.status_code < 300:
                return response
            try:
                error_body = await response.aread()
            except httpx2.HTTPError:
                error_body = b""
            finally:
                await response.aclose()
            self._record(
                url, body, response, {"raw_body": error_body.decode("utf-8", errors="replace")}, started, attempt
            )
            if response.status_code in RETRYABLE_STATUSES:
                wait = self.retry.delay(attempt, response.headers)
                if wait is not None:
                    logger.info(
                        "provider %s: HTTP %d, retry %d in %.2fs", self.provider, response.status_code, attempt, wait
                    )
                    await asyncio.sleep(wait)
                    continue
            raise self._status_error(response.status_code, response.headers, error_body)

    def _status_error(self, status: int, headers: Mapping[str, str], body: bytes) -> ProviderError:
        message = error_message(body) or f"HTTP {status} without an error message"
        message = redact(message, self.secrets)
        request_id = request_id_of(headers)
        error_type: type[ProviderHTTPError]
        if status in (401, 403):
            error_type = ProviderAuthenticationError
            message += " (check the provider's API key: the keyring entry or the environment variable)"
        elif status == 429:
            error_type = ProviderRateLimitError
        else:
            error_type = ProviderHTTPError
        return error_type(message, provider=self.provider, status=status, request_id=request_id)

    def _connection_error(self, exc: BaseException, url: str) -> ProviderConnectionError:
        kind = "timed out" if isinstance(exc, httpx2.TimeoutException) else "failed"
        detail = redact(str(exc) or type(exc).__name__, self.secrets)
        return ProviderConnectionError(
            f"the request to {url} {kind}: {detail}. Check the provider's base_url and that the server is reachable.",
            provider=self.provider,
        )

    def _snippet(self, raw: bytes) -> str:
        text = raw[:200].decode("utf-8", errors="replace")
        return redact(text, self.secrets) + ("…" if len(raw) > 200 else "")

    def _record(
        self,
        url: str,
        body: Mapping[str, Any],
        response: Any,
        answer: Mapping[str, Any],
        started: float | None,
        attempt: int | None = None,
    ) -> None:
        """Write one attempt (every retried one too): the request, the status (None when no answer came)
        and what came back, with its duration."""
        if self.recorder is None:
            return
        for secret in self.secrets:
            self.recorder.add_secret(secret)
        exchange: dict[str, Any] = {
            "provider": self.provider,
            "request": {
                "method": "POST",
                "url": url,
                "headers": redact_headers(self.headers, self.secrets),
                "body": body,
            },
            "response": {
                "status": None if response is None else response.status_code,
                "headers": {} if response is None else redact_headers(dict(response.headers), self.secrets),
                **answer,
            },
        }
        if attempt is not None:
            exchange["attempt"] = attempt
        if started is not None:
            exchange["duration_ms"] = round((time.monotonic() - started) * 1000, 1)
        self.recorder.record(self.provider, exchange)


class _ClientScope:
    """The shared client as is, or a client for one request that is closed afterwards."""

    def __init__(self, shared: httpx2.AsyncClient | None) -> None:
        self._shared = shared
        self._own: httpx2.AsyncClient | None = None

    async def __aenter__(self) -> httpx2.AsyncClient:
        if self._shared is not None and not self._shared.is_closed:
            return self._shared
        self._own = new_http_client()
        return self._own

    async def __aexit__(self, *exc_info: object) -> None:
        if self._own is not None:
            await self._own.aclose()


class EventStream:
    """An open server-sent-event answer. Iterate it for events; set :attr:`assembled` before it closes.

    The recording (with ``--record``) holds every event's data and the assembled result.
    """

    def __init__(self, owner: ProviderHTTPClient, url: str, body: Mapping[str, Any]) -> None:
        self._owner = owner
        self._url = url
        self._body = body
        self._scope = owner._client()
        self._response: Any = None
        self._started = time.monotonic()
        self.events: list[ServerSentEvent] = []
        self.assembled: Any = None
        """What the adapter made of the stream (recorded with the events)."""
        self.request_id: str | None = None
        self.completed = False
        """True when the stream ended normally (the body was read to its end)."""

    async def __aenter__(self) -> EventStream:
        client = await self._scope.__aenter__()
        try:
            self._response = await self._owner._send(client, self._url, self._body, stream=True)
        except BaseException:
            await self._scope.__aexit__(None, None, None)
            raise
        self.request_id = request_id_of(self._response.headers)
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        try:
            if self._response is not None:
                await self._response.aclose()
                record: dict[str, Any] = {
                    "stream": [{"event": e.event, "data": _json_or_text(e.data)} for e in self.events],
                    "assembled": self.assembled,
                }
                if not self.completed:
                    record["interrupted"] = True if exc is None else f"{type(exc).__name__}: {exc}"
                self._owner._record(self._url, self._body, self._response, record, self._started)
        finally:
            await self._scope.__aexit__(exc_type, exc, tb)

    def __aiter__(self) -> AsyncIterator[ServerSentEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[ServerSentEvent]:
        decoder = SSEDecoder()
        try:
            async for chunk in self._response.aiter_raw():
                for event in decoder.feed(chunk):
                    self.events.append(event)
                    yield event
        except httpx2.HTTPError as exc:
            detail = redact(str(exc) or type(exc).__name__, self._owner.secrets)
            raise ProviderConnectionError(
                f"the event stream from {self._url} broke off: {detail}",
                provider=self._owner.provider,
                request_id=self.request_id,
            ) from exc
        for event in decoder.flush():
            self.events.append(event)
            yield event
        self.completed = True


def _json_or_text(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data


def request_id_of(headers: Mapping[str, str]) -> str | None:
    """The request id a provider put in its answer's headers."""
    lowered = {k.lower(): v for k, v in headers.items()}
    for name in REQUEST_ID_HEADERS:
        value = lowered.get(name)
        if value:
            return value
    return None


def error_message(body: bytes | str) -> str | None:
    """The message of an error body: ``{"error": {"message": ...}}`` (OpenAI, Anthropic), else its text."""
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else body
    try:
        data = json.loads(text)
    except ValueError:
        stripped = text.strip()
        return stripped[:500] or None
    if isinstance(data, dict):
        error = data.get("error")
        if isinstance(error, dict):
            message = error.get("message")
            kind = error.get("type") or error.get("code")
            if isinstance(message, str) and message:
                return f"{message} ({kind})" if isinstance(kind, str) and kind else message
        if isinstance(error, str) and error:
            return error
        message = data.get("message") or data.get("detail")
        if isinstance(message, str) and message:
            return message
    return json.dumps(data)[:500]


__all__ = [
    "REDACTED",
    "EventStream",
    "ExchangeRecorder",
    "JSONResponse",
    "ProviderHTTPClient",
    "RetryPolicy",
    "SSEDecoder",
    "ServerSentEvent",
    "close_shared_http_clients",
    "error_message",
    "new_http_client",
    "redact",
    "redact_headers",
    "request_id_of",
    "retry_after_seconds",
    "shared_http_client",
]
