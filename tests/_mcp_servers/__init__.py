"""Real MCP servers for the MCP tests, run as subprocesses (stdio, or HTTP on 127.0.0.1 with a free port)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).parent
WEATHER_SERVER = str(HERE / "weather_server.py")
CHANGING_SERVER = str(HERE / "changing_server.py")
PYTHON = sys.executable
START_SECONDS = 20.0


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = START_SECONDS) -> None:
    """Wait until something accepts connections on 127.0.0.1:port (or fail when the process died)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stderr.read().decode(errors="replace") if process.stderr else ""
            raise RuntimeError(f"the test server exited with {process.returncode}: {output[-2000:]}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on 127.0.0.1:{port} after {seconds} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate, then kill; always reap, so no process outlives its test."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
    for stream in (process.stdout, process.stderr, process.stdin):
        if stream is not None:
            stream.close()


@contextlib.contextmanager
def running(command: list[str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    """Run ``command`` (an HTTP server on ``port``) for the duration of the block."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for_port(port, process)
        yield process
    finally:
        stop(process)


@contextlib.contextmanager
def weather_http(*, idle: float | None = None, variant: str = "original") -> Iterator[str]:
    """The weather server over HTTP; yields its base URL (``/mcp`` Streamable HTTP, ``/sse`` legacy SSE)."""
    port = free_port()
    command = [PYTHON, WEATHER_SERVER, "http", "--port", str(port), "--variant", variant]
    if idle is not None:
        command += ["--idle", str(idle)]
    with running(command, port):
        yield f"http://127.0.0.1:{port}"


class RestartableServer:
    """An HTTP MCP server process that a test can kill and start again on the same port."""

    def __init__(self, command: list[str], port: int, env: dict[str, str] | None = None) -> None:
        self.command = command
        self.port = port
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - a chatty server must never block on a full pipe

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        self.process = subprocess.Popen(self.command, stdout=subprocess.DEVNULL, stderr=self._log, env=self.env)
        self.starts += 1
        try:
            wait_for_port(self.port, self.process)
        except (RuntimeError, TimeoutError) as exc:
            raise RuntimeError(f"{exc}: {self.log_tail()}") from exc

    def log_tail(self, limit: int = 2000) -> str:
        """The end of what the server wrote to stderr."""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-limit:]

    def kill(self) -> None:
        """Kill the server at once (no goodbye to its clients), and reap it."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(5)
            stop(self.process)
            self.process = None

    def restart(self) -> None:
        """Kill the server and start a new one on the same port: every session it had is gone."""
        self.kill()
        self.start()

    def stop(self) -> None:
        """Stop the server if it runs."""
        if self.process is not None:
            stop(self.process)
            self.process = None
        self._log.close()


@contextlib.contextmanager
def restartable(script: str = CHANGING_SERVER, *extra: str) -> Iterator[RestartableServer]:
    """A restartable HTTP server running ``script`` (``/mcp`` Streamable HTTP, ``/sse`` legacy SSE)."""
    port = free_port()
    server = RestartableServer([PYTHON, script, "http", "--port", str(port), *extra], port)
    server.start()
    try:
        yield server
    finally:
        server.stop()
