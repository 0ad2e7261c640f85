"""Secrets: the forms they take on their way out, and the one scrubber that removes them everywhere.

Every secret toolplug resolves (a tool's secret setting from the keyring or from
``TOOLPLUG_SECRET_<OWNER>_<FIELD>``, a provider's API key, an MCP server's secret header) is
registered here with :func:`register_secrets`. The process-wide :func:`scrubber` then replaces each
registered secret, in every form listed below, by ``[redacted]``: in tool results, traces, tool
statuses, exception chains, log records (every record created in the process, through the log record
factory) and everything the ``toolplug`` command prints.

The forms of a secret: the value itself; its URL-encoded forms (``quote`` with and without ``/`` kept,
``quote_plus``, upper- and lower-case hex); its JSON-escaped and ``repr`` forms; base64 and URL-safe
base64, with and without padding, and at each of the three byte alignments it can have inside a
longer encoded text (``user:secret`` in a Basic auth header). Each line of a multi-line secret (a
PEM key) is a secret of its own too.

A secret shorter than :data:`MIN_SECRET_LENGTH` characters cannot be scrubbed without mangling
ordinary text, so it is refused (:class:`~toolplug.errors.SecretTooShortError`) wherever it enters.
"""

from __future__ import annotations

import base64
import io
import json
import logging
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, TextIO
from urllib.parse import quote, quote_plus

from toolplug.errors import SecretTooShortError, ToolExecutionBlockedError, ToolExecutionFailedError, ToolFailedError

MIN_SECRET_LENGTH = 8
"""The shortest secret toolplug accepts: shorter values would be found inside ordinary words."""

ENVIRONMENT_PREFIX = "TOOLPLUG_SECRET_"
REDACTED = "[redacted]"

_NOT_NAME_CHARACTER = re.compile(r"[^A-Z0-9]")
_PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")
_UNESCAPED_RUN = re.compile(r"[A-Za-z0-9_.~-]+")
"""Characters that URL-encoding, JSON and repr all leave as they are."""
_MIN_ANCHOR = 6
_MAX_CHAIN = 64


def environment_variable(owner: str, field: str) -> str:
    """The environment variable that may hold the secret ``<owner>.<field>``.

    ``TOOLPLUG_SECRET_`` then ``<owner>_<field>`` in upper case, every character other than A-Z and
    0-9 written as ``_``: ``weather.api_key`` is ``TOOLPLUG_SECRET_WEATHER_API_KEY``.
    """
    return ENVIRONMENT_PREFIX + _NOT_NAME_CHARACTER.sub("_", f"{owner}_{field}".upper())


def check_secret(value: str, where: str) -> None:
    """Raise :class:`SecretTooShortError` unless ``value`` is long enough to be scrubbed safely."""
    if len(value) < MIN_SECRET_LENGTH:
        raise SecretTooShortError(where, len(value), MIN_SECRET_LENGTH)


# --- the forms of a secret ------------------------------------------------------------------------


def secret_forms(secret: str) -> set[str]:
    """Every form of ``secret`` the scrubber looks for (see the module docstring)."""
    forms = _single_forms(secret)
    if "\n" in secret or "\r" in secret:
        forms |= _single_forms(secret.replace("\r\n", "\n"))
        forms.update(line.strip() for line in secret.splitlines())
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


def _single_forms(secret: str) -> set[str]:
    forms = {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1], repr(secret)[1:-1]}
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret), quote_plus(secret, safe="/")):
        forms.add(encoded)
        forms.add(_PERCENT_ESCAPE.sub(lambda match: match.group().lower(), encoded))
    raw = secret.encode("utf-8")
    for encode in (base64.b64encode, base64.urlsafe_b64encode):
        whole = encode(raw).decode("ascii")
        forms.update((whole, whole.rstrip("=")))
        for offset in (0, 1, 2):
            # The characters that depend on the secret's bytes alone, whatever surrounds it.
            shifted = encode(b"\0" * offset + raw).decode("ascii")
            start = -(-8 * offset // 6)
            end = 8 * (offset + len(raw)) // 6
            forms.add(shifted[start:end])
    return forms


def _anchors(secret: str, forms: Iterable[str]) -> list[str]:
    """Short strings such that every form contains one: a text holding none of them holds no secret.

    Checking them with ``in`` is much faster than running the full pattern on every text.
    """
    runs = sorted(_UNESCAPED_RUN.findall(secret), key=len, reverse=True)[:1]
    anchors: list[str] = []
    for form in [*(run for run in runs if len(run) >= _MIN_ANCHOR), *sorted(forms, key=len)]:
        if not any(anchor in form for anchor in anchors):
            anchors.append(form)
    return anchors


# --- the scrubber ---------------------------------------------------------------------------------


class SecretScrubber:
    """Replaces known secrets, in all their forms, wherever they appear in text, JSON and exceptions.

    The pattern is compiled once per set of secrets; scrubbing is one regular-expression pass.
    Raises :class:`SecretTooShortError` for a secret shorter than :data:`MIN_SECRET_LENGTH`.
    """

    __slots__ = ("_anchors", "_by_first", "_forms", "_longest", "_pattern", "active", "secrets")

    def __init__(
        self, secrets: Iterable[str] = (), *, _forms: Mapping[str, tuple[frozenset[str], tuple[str, ...]]] | None = None
    ) -> None:
        forms = dict(_forms or {})
        for secret in secrets:
            if secret and secret not in forms:
                check_secret(secret, "a secret given to the scrubber")
                found = secret_forms(secret)
                forms[secret] = (frozenset(found), tuple(_anchors(secret, found)))
        self._forms = forms
        self.secrets = frozenset(forms)
        every = sorted({form for group, _ in forms.values() for form in group}, key=lambda f: (-len(f), f))
        self._pattern = re.compile("|".join(map(re.escape, every))) if every else None
        self.active = self._pattern is not None
        """Whether there is any secret to scrub (a plain attribute: hot paths check it on every call)."""
        self._anchors = tuple(dict.fromkeys(anchor for _, anchors in forms.values() for anchor in anchors))
        self._by_first: dict[str, list[str]] = {}
        for form in every:
            self._by_first.setdefault(form[0], []).append(form)
        self._longest = len(every[0]) if every else 0

    def __bool__(self) -> bool:
        return self._pattern is not None

    def extended(self, secrets: Iterable[str]) -> SecretScrubber:
        """A scrubber for these secrets and the ones this one knows (forms already computed are reused)."""
        return SecretScrubber(secrets, _forms=self._forms)

    def contains(self, value: str) -> bool:
        """Whether ``value`` holds a secret in any of its forms."""
        if self._pattern is not None:
            for anchor in self._anchors:
                if anchor in value:
                    return self._pattern.search(value) is not None
        return False

    def text(self, value: str) -> str:
        """``value`` with every secret replaced by ``[redacted]``."""
        if self._pattern is None:
            return value
        for anchor in self._anchors:
            if anchor in value:
                return self._pattern.sub(REDACTED, value)
        return value

    def held_tail(self, value: str) -> int:
        """The length of the longest end of ``value`` that could be the start of a secret.

        A stream holds that much back until more text shows whether a secret follows.
        """
        start = max(0, len(value) - self._longest + 1)
        for position in range(start, len(value)):
            candidates = self._by_first.get(value[position])
            if candidates is not None:
                tail = value[position:]
                if any(form.startswith(tail) for form in candidates):
                    return len(value) - position
        return 0

    def contains_json(self, value: Any) -> bool:
        """Whether any key or string inside a JSON value holds a secret."""
        if self._pattern is None:
            return False
        contains = self.contains
        pending = [value]
        while pending:
            current = pending.pop()
            if isinstance(current, str):
                if contains(current):
                    return True
            elif isinstance(current, Mapping):
                for key, item in current.items():
                    if contains(str(key)):
                        return True
                    if type(item) is str:
                        if contains(item):
                            return True
                    elif not isinstance(item, int | float | bool) and item is not None:
                        pending.append(item)
            elif isinstance(current, list | tuple):
                pending.extend(current)
        return False

    def json(self, value: Any) -> Any:
        """A copy of a JSON value with every secret replaced in keys and strings."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self.text(str(k)): self.json(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.json(v) for v in value]
        return value

    def exception(self, error: BaseException) -> BaseException:
        """``error`` itself when nothing in its ``__cause__``/``__context__`` chain holds a secret.

        Otherwise a copy of the whole chain in which each exception is a :class:`ToolFailedError`
        whose message is ``Type: scrubbed message`` (a :class:`ToolExecutionBlockedError` or
        :class:`ToolExecutionFailedError` stays one, with its message scrubbed).
        """
        if self._pattern is None or not any(self._leaks(link) for link in exception_chain(error)):
            return error
        return self._copy(error, {})

    def _leaks(self, error: BaseException) -> bool:
        return any(self.contains(text) for text in _texts_of(error))

    def _copy(self, error: BaseException, copies: dict[int, BaseException]) -> BaseException:
        done = copies.get(id(error))
        if done is not None:
            return done
        message = self.text(_describe(error))
        copy: BaseException
        if isinstance(error, ToolExecutionBlockedError):
            copy = ToolExecutionBlockedError(self.text(_safe_str(error)))
        elif isinstance(error, ToolExecutionFailedError):
            copy = ToolExecutionFailedError(self.text(_safe_str(error)))
        else:
            copy = ToolFailedError(message)
            copy.original_type = type(error).__qualname__
        copies[id(error)] = copy
        for note in getattr(error, "__notes__", None) or ():
            copy.add_note(self.text(str(note)))
        if error.__cause__ is not None:
            copy.__cause__ = self._copy(error.__cause__, copies)
        if error.__context__ is not None:
            copy.__context__ = self._copy(error.__context__, copies)
        copy.__suppress_context__ = error.__suppress_context__
        return copy


def exception_chain(error: BaseException) -> list[BaseException]:
    """``error`` and every exception reachable through ``__cause__`` and ``__context__`` (bounded)."""
    seen: dict[int, BaseException] = {}
    pending = [error]
    while pending and len(seen) < _MAX_CHAIN:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen[id(current)] = current
        pending.extend(link for link in (current.__cause__, current.__context__) if link is not None)
    return list(seen.values())


def _safe_str(error: BaseException) -> str:
    try:
        return str(error)
    except Exception:  # a hostile __str__ must not break the scrubbing of the call's failure
        return f"<{type(error).__name__} whose message cannot be read>"


def _describe(error: BaseException) -> str:
    text = _safe_str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _texts_of(error: BaseException) -> list[str]:
    texts = [_safe_str(error)]
    try:
        texts.append(repr(error.args))
        texts += [str(note) for note in getattr(error, "__notes__", None) or ()]
        texts += [repr(value) for value in vars(error).values()]
    except Exception:  # unreadable attributes count as holding a secret: the copy is the safe side
        texts.append(REDACTED)
        return texts
    return texts


# --- the process-wide registry ----------------------------------------------------------------------


_lock = threading.Lock()
_scrubber = SecretScrubber()
_log_scrubbing_installed = False


def register_secrets(secrets: Iterable[str]) -> None:
    """Add secrets to the process-wide scrubber; raises :class:`SecretTooShortError` for a short one.

    Cheap when every secret is already known, so callers register on every read.
    """
    global _scrubber
    known = _scrubber.secrets
    new = [secret for secret in secrets if secret and secret not in known]
    if not new:
        return
    for secret in new:
        check_secret(secret, "a secret")
    with _lock:
        _scrubber = _scrubber.extended(new)
        _install_log_scrubbing()


def scrubber() -> SecretScrubber:
    """The process-wide scrubber: every secret registered so far."""
    return _scrubber


def scrub(text: str) -> str:
    """``text`` with every registered secret replaced by ``[redacted]``."""
    return _scrubber.text(text)


def register_environment_secrets(environ: Mapping[str, str]) -> None:
    """Register the value of every ``TOOLPLUG_SECRET_*`` variable long enough to be scrubbed.

    A plugin that reads such a variable itself is covered too. A value that is too short is left to
    the resolver, which refuses it with a clear error when the secret is asked for.
    """
    register_secrets(
        value
        for name, value in environ.items()
        if name.startswith(ENVIRONMENT_PREFIX) and len(value) >= MIN_SECRET_LENGTH
    )


# --- output streams --------------------------------------------------------------------------------


class ScrubbingStream(io.TextIOBase):
    """A text stream that writes to ``target`` with every registered secret scrubbed.

    Text that could be the start of a secret is held back until the next write or :meth:`release`
    (not :meth:`flush`, which ``click.echo`` calls after every piece), so a secret written in pieces
    (a streamed answer) is caught whole.
    """

    def __init__(self, target: TextIO) -> None:
        super().__init__()
        self.target = target
        self._pending = ""

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        scrub_with = _scrubber
        if not scrub_with and not self._pending:
            self.target.write(text)
            return len(text)
        cleaned = scrub_with.text(self._pending + text)
        held = scrub_with.held_tail(cleaned)
        ready, self._pending = cleaned[: len(cleaned) - held], cleaned[len(cleaned) - held :]
        if ready:
            self.target.write(ready)
        return len(text)

    def flush(self) -> None:
        """Flush the target; text held back as a possible start of a secret stays held (see :meth:`release`)."""
        if not getattr(self.target, "closed", False):
            self.target.flush()

    def release(self) -> None:
        """Write out what is held back (scrubbed) and flush: the writer is done."""
        if getattr(self.target, "closed", False):
            return  # nowhere left to write (the stream is being collected after its target closed)
        if self._pending:
            pending, self._pending = self._pending, ""
            self.target.write(_scrubber.text(pending))
        self.target.flush()

    def close(self) -> None:
        self.release()
        super().close()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.target.isatty()

    def fileno(self) -> int:
        return self.target.fileno()

    @property
    def buffer(self) -> Any:
        """The target's binary stream, for protocols that write bytes (MCP over stdio); not scrubbed."""
        return self.target.buffer

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.target, "encoding", None) or "utf-8"

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return getattr(self.target, "errors", None)


# --- log records ------------------------------------------------------------------------------------


class SecretLogFilter(logging.Filter):
    """Scrubs registered secrets from a log record's message, exception text and stack.

    toolplug installs the same scrubbing in the log record factory as soon as the first secret is
    registered, so every record created in the process is covered. Attach this filter to a handler
    of your own when you replace the record factory.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        scrub_record(record, _scrubber)
        return True


def scrub_record(record: logging.LogRecord, scrub_with: SecretScrubber) -> None:
    """Replace the secrets in ``record`` in place (message, arguments, exception text, stack)."""
    if not scrub_with:
        return
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: keep what can be shown, without the secrets
        message = f"{record.msg!s} {record.args!r}"
        record.msg, record.args = scrub_with.text(message), ()
    else:
        if scrub_with.contains(message):
            record.msg, record.args = scrub_with.text(message), ()
    if record.exc_info and record.exc_info[1] is not None:
        formatted = logging.Formatter().formatException(record.exc_info)
        if scrub_with.contains(formatted):
            record.exc_text, record.exc_info = scrub_with.text(formatted), None
    if record.exc_text:
        record.exc_text = scrub_with.text(record.exc_text)
    if record.stack_info:
        record.stack_info = scrub_with.text(record.stack_info)


def _install_log_scrubbing() -> None:
    global _log_scrubbing_installed
    if _log_scrubbing_installed:
        return
    previous = logging.getLogRecordFactory()

    def scrubbing_factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        scrub_record(record, _scrubber)
        return record

    logging.setLogRecordFactory(scrubbing_factory)
    _log_scrubbing_installed = True


__all__ = [
    "ENVIRONMENT_PREFIX",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "ScrubbingStream",
    "SecretLogFilter",
    "SecretScrubber",
    "check_secret",
    "environment_variable",
    "exception_chain",
    "register_environment_secrets",
    "register_secrets",
    "scrub",
    "scrub_record",
    "scrubber",
    "secret_forms",
]
