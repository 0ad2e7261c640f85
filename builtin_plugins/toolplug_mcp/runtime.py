"""One event loop, in a daemon thread, that owns every MCP connection of the process.

A connection (a stdio subprocess, an HTTP session, an event stream) must live in one event loop,
but toolplug reaches MCP servers from several: the registry is built synchronously (maybe while a
host's loop is running), and each ``asyncio.run`` of the CLI makes a new loop. So connections live
here, callers submit coroutines and wait for them from any thread or loop, and a connection outlives
the loop of the call that opened it. At exit the connections are closed (bounded), so no server
process is left behind.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

SHUTDOWN_SECONDS = 10.0


class McpRuntime:
    """The MCP event loop thread. Use :func:`runtime` to get the process's one instance."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._closers: list[Callable[[], Awaitable[None]]] = []
        self._thread = threading.Thread(target=self._run, name="toolplug-mcp", daemon=True)
        self._thread.start()
        self._stopped = False

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_forever()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The runtime's event loop."""
        return self._loop

    def submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coroutine`` on the runtime loop."""
        if self._stopped:
            coroutine.close()
            raise RuntimeError("the MCP runtime has been shut down")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    def run(self, coroutine: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coroutine`` on the runtime loop and wait for it (from any thread but the runtime's)."""
        future = self.submit(coroutine)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise TimeoutError(f"the MCP operation did not finish within {timeout:g} seconds") from None

    async def run_async(self, coroutine: Coroutine[Any, Any, T]) -> T:
        """Run ``coroutine`` on the runtime loop and await it from the caller's loop; cancelling cancels it."""
        if _running_loop() is self._loop:
            return await coroutine
        return await asyncio.wrap_future(self.submit(coroutine))

    def on_shutdown(self, closer: Callable[[], Awaitable[None]]) -> None:
        """Run ``closer`` (on the runtime loop) when the process exits."""
        self._closers.append(closer)

    def shutdown(self) -> None:
        """Close every registered connection (bounded) and stop the loop."""
        if self._stopped:
            return
        closers, self._closers = self._closers, []

        async def close_all() -> None:
            await asyncio.gather(*(closer() for closer in closers), return_exceptions=True)

        if closers:
            with contextlib.suppress(Exception):  # exiting: nothing left to report to
                self.run(close_all(), SHUTDOWN_SECONDS)
        self._stopped = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(SHUTDOWN_SECONDS)
        if not self._thread.is_alive():
            self._loop.close()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


_lock = threading.Lock()
_runtime: McpRuntime | None = None


def runtime() -> McpRuntime:
    """The process's MCP runtime, started on first use."""
    global _runtime
    with _lock:
        if _runtime is None or _runtime._stopped:
            _runtime = McpRuntime()
            atexit.register(_runtime.shutdown)
        return _runtime


__all__ = ["McpRuntime", "runtime"]
