"""How the ``toolplug`` command reports failures: one line a person can act on, ``--debug`` for the rest.

Without ``--debug`` a failure is one line on stderr (``Error: ...``) and toolplug's log records are
one line each, tracebacks left out. With ``--debug`` the traceback is printed first and the log
shows every record at DEBUG level with its traceback.
"""

from __future__ import annotations

import logging
import sys
import traceback
from collections.abc import Callable
from functools import wraps
from typing import Any, NoReturn, TypeVar

import click

from toolplug.errors import ToolplugError, UsageError

F = TypeVar("F", bound=Callable[..., Any])

DEBUG_HINT = "run with --debug for the traceback"
_DEBUG_KEY = "toolplug.debug"
_TRACEBACK_START = "Traceback (most recent call last):"


def set_debug(ctx: click.Context, debug: bool) -> None:
    """Remember ``--debug`` for this invocation and set up toolplug's log output to match."""
    ctx.find_root().meta[_DEBUG_KEY] = debug
    restore = configure_logging(debug)
    ctx.find_root().call_on_close(restore)


def debugging() -> bool:
    """Whether the running command was given ``--debug``."""
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.find_root().meta.get(_DEBUG_KEY))


def fail(message: str, code: int = 2) -> NoReturn:
    """Print ``Error: message`` on stderr and exit with ``code``."""
    click.echo(f"Error: {message}", err=True)
    sys.exit(code)


def handles_errors(function: F) -> F:
    """Turn every failure into one line on stderr and an exit code, never a traceback (unless ``--debug``).

    Usage and configuration errors exit 2; other toolplug errors (a provider, a plugin) exit 1; an
    unexpected exception exits 1 and names its type; Ctrl-C exits 130.
    """

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return reporting_errors(function, *args, **kwargs)

    return wrapper  # type: ignore[return-value]


def reporting_errors(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``function``; report any failure as :func:`handles_errors` describes."""
    try:
        return function(*args, **kwargs)
    except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
        raise
    except UsageError as exc:
        _report(exc, str(exc), 2)
    except ToolplugError as exc:
        _report(exc, f"{type(exc).__name__}: {exc}", 1)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:
        detail = str(exc) or "(no message)"
        hint = "" if debugging() else f" ({DEBUG_HINT})"
        _report(exc, f"unexpected {type(exc).__name__}: {detail}{hint}", 1)


def _report(exc: BaseException, message: str, code: int) -> NoReturn:
    if debugging():
        click.echo("".join(traceback.format_exception(exc)).rstrip(), err=True)
    fail(message, code)


class _CurrentStderrHandler(logging.Handler):
    """Writes to whatever ``sys.stderr`` is now (a test runner may swap it between commands)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
            sys.stderr.flush()
        except Exception:
            self.handleError(record)


class OneLineFormatter(logging.Formatter):
    """``toolplug: <level>: <message>`` on one line; an embedded traceback shrinks to its last line."""

    def format(self, record: logging.LogRecord) -> str:
        message = record.getMessage()
        head, marker, rest = message.partition(_TRACEBACK_START)
        if marker:
            lines = [line.strip() for line in rest.splitlines() if line.strip()]
            message = head.rstrip() + (" " + lines[-1] if lines else "")
        first = message.strip().splitlines()[0] if message.strip() else ""
        return f"toolplug: {record.levelname.lower()}: {first}"


def configure_logging(debug: bool) -> Callable[[], None]:
    """Send toolplug's log records to stderr, one line each (full, with tracebacks, when ``debug``).

    Returns a function that undoes it, so a process running several commands does not pile up handlers.
    """
    logger = logging.getLogger("toolplug")
    handler = _CurrentStderrHandler()
    if debug:
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s: %(message)s"))
    else:
        handler.setFormatter(OneLineFormatter())
    handler.setLevel(logging.DEBUG if debug else logging.WARNING)
    previous_level = logger.level
    logger.addHandler(handler)
    if debug:
        logger.setLevel(logging.DEBUG)

    def restore() -> None:
        logger.removeHandler(handler)
        logger.setLevel(previous_level)

    return restore


__all__ = [
    "DEBUG_HINT",
    "OneLineFormatter",
    "configure_logging",
    "debugging",
    "fail",
    "handles_errors",
    "reporting_errors",
    "set_debug",
]
