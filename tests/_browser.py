"""A real headless browser for end-to-end tests: Debian's chromium, driven over the DevTools protocol.

The protocol runs over ``--remote-debugging-pipe`` (file descriptors 3 and 4, NUL-separated JSON), so
no debugging port is opened and no websocket library is needed. :func:`find_chromium` says where the
browser is or why there is none; :class:`Browser` starts one with a fresh profile and drives one page.
Every wait is bounded. :func:`decode_png` reads a screenshot with zlib alone.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable
from typing import Any

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-default-apps",
    "--disable-extensions",
    "--hide-scrollbars",
    "--mute-audio",
    "--no-default-browser-check",
    "--remote-debugging-pipe",
)


def find_chromium() -> str | None:
    """The chromium executable: ``$TOOLPLUG_TEST_CHROMIUM``, else ``chromium`` on PATH."""
    explicit = os.environ.get("TOOLPLUG_TEST_CHROMIUM")
    if explicit:
        return explicit if os.path.exists(explicit) else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


class BrowserError(RuntimeError):
    """The browser failed, or a wait ran out."""


class Browser:
    """One chromium process and one page in it.

    Use as a context manager. ``console`` collects console messages and ``exceptions`` uncaught page
    errors (both as text), so a test can assert that nothing ran that should not have.
    """

    def __init__(self, executable: str, *, width: int = 1100, height: int = 900) -> None:
        self.executable = executable
        self.width = width
        self.height = height
        self.profile = tempfile.mkdtemp(prefix="toolplug-chromium-")
        self.console: list[str] = []
        self.exceptions: list[str] = []
        self.log_entries: list[str] = []
        self._responses: dict[int, dict[str, Any]] = {}
        self._condition = threading.Condition()
        self._next_id = 0
        self._session: str | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._closed = False
        self._commands = self._replies = -1

    # -- life cycle --------------------------------------------------------------------------------------

    def __enter__(self) -> Browser:
        try:
            return self._start()
        except BaseException:
            self.__exit__(None, None, None)
            raise

    def _start(self) -> Browser:
        commands_read, self._commands = os.pipe()
        self._replies, replies_write = os.pipe()
        # above 9, so moving them onto 3 and 4 in the child cannot overwrite one with the other
        commands_read, replies_write = (_high(fd) for fd in (commands_read, replies_write))
        arguments = [*CHROMIUM_FLAGS, f"--user-data-dir={self.profile}", f"--window-size={self.width},{self.height}"]
        # fds 3 and 4 of the browser are the protocol's pipes; a tiny Python trampoline moves ours there
        trampoline = (
            "import os, sys; a, b = int(sys.argv[1]), int(sys.argv[2]); os.dup2(a, 3); os.dup2(b, 4);"
            " os.close(a); os.close(b); os.execv(sys.argv[3], sys.argv[3:])"
        )
        self._process = subprocess.Popen(
            [sys.executable, "-c", trampoline, str(commands_read), str(replies_write), self.executable,
             *arguments, "about:blank"],
            pass_fds=(commands_read, replies_write),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_read)
        os.close(replies_write)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable")
        self.set_viewport(self.width, self.height)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closed = True
        if self._process is not None:
            self._process.terminate()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)
        for fd in (self._commands, self._replies):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        shutil.rmtree(self.profile, ignore_errors=True)

    # -- the protocol -----------------------------------------------------------------------------------------

    def _read(self) -> None:
        buffer = b""
        while not self._closed:
            ready, _, _ = select.select([self._replies], [], [], 0.2)
            if not ready:
                continue
            try:
                data = os.read(self._replies, 1 << 20)
            except OSError:
                return
            if not data:
                return
            buffer += data
            while b"\0" in buffer:
                raw, buffer = buffer.split(b"\0", 1)
                self._dispatch(json.loads(raw))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if "id" in message:
            with self._condition:
                self._responses[message["id"]] = message
                self._condition.notify_all()
            return
        method = message.get("method")
        params = message.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.console.append(" ".join(str(arg.get("value", arg.get("description", ""))) for arg in params["args"]))
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.exceptions.append(str(details.get("exception", {}).get("description") or details.get("text")))
        elif method == "Log.entryAdded":
            self.log_entries.append(str(params["entry"].get("text")))

    def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float = 30) -> dict[str, Any]:
        """Send one command and wait for its result."""
        with self._condition:
            self._next_id += 1
            number = self._next_id
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if self._session is not None and not method.startswith("Target."):
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        with self._condition:
            while number not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise BrowserError(f"{method} got no answer in {timeout} s")
                self._condition.wait(left)
            reply = self._responses.pop(number)
        if "error" in reply:
            raise BrowserError(f"{method}: {reply['error']}")
        return reply.get("result", {})  # type: ignore[no-any-return]

    # -- the page -------------------------------------------------------------------------------------------

    def set_viewport(self, width: int, height: int, *, mobile: bool = False) -> None:
        """Emulate a window of this size (CSS pixels, device scale 1)."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )

    def goto(self, url: str, *, ready: str = "document.readyState === 'complete'") -> None:
        """Open ``url`` and wait until ``ready`` holds."""
        self.call("Page.navigate", {"url": url})
        self.wait_for(ready)

    def evaluate(self, expression: str) -> Any:
        """The JSON value of a JavaScript expression in the page (promises awaited)."""
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression!r} threw: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def wait_for(self, expression: str, *, timeout: float = 20, message: str = "") -> Any:
        """Poll ``expression`` until it is truthy; its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.evaluate(expression)
            if value:
                return value
            if time.monotonic() > deadline:
                raise BrowserError(message or f"timed out waiting for {expression!r}")
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """Click the centre of the first element matching ``selector``, as a mouse does."""
        box = self.evaluate(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)}); if (!e) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " return [r.left + r.width / 2, r.top + r.height / 2]; })()"
        )
        if box is None:
            raise BrowserError(f"nothing matches {selector!r}")
        x, y = box
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params: dict[str, Any] = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", clickCount=1)
            self.call("Input.dispatchMouseEvent", params)

    def type_text(self, text: str) -> None:
        """Type ``text`` into the focused element."""
        self.call("Input.insertText", {"text": text})

    def press(self, key: str) -> None:
        """Press and release a key (``Enter``, ``Escape``, ``Tab``) on the focused element."""
        codes = {"Enter": 13, "Escape": 27, "Tab": 9}
        base: dict[str, Any] = {"key": key, "code": key, "windowsVirtualKeyCode": codes.get(key, 0)}
        text = {"Enter": "\r"}.get(key)
        down = {**base, "type": "keyDown", **({"text": text} if text else {})}
        self.call("Input.dispatchKeyEvent", down)
        self.call("Input.dispatchKeyEvent", {**base, "type": "keyUp"})

    def screenshot(self) -> bytes:
        """A PNG of the viewport."""
        return base64.b64decode(self.call("Page.captureScreenshot", {"format": "png"})["data"])


def _high(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


def wait_until(condition: Callable[[], bool], *, timeout: float = 20, message: str = "condition") -> None:
    """Poll ``condition`` until it holds (bounded)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise BrowserError(f"timed out waiting for {message}")
        time.sleep(0.05)


# --- PNG ------------------------------------------------------------------------------------------------


def decode_png(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the rows of an 8-bit RGB or RGBA PNG as RGBA bytes."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    position = 8
    idat = b""
    width = height = 0
    color_type = 0
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        body = data[position + 8 : position + 8 + length]
        position += 12 + length
        if kind == b"IHDR":
            width, height, depth, color_type, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color_type not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth}, color type {color_type}, interlace {interlace}")
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    channels = 4 if color_type == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows: list[bytes] = []
    previous = bytearray(stride)
    offset = 0
    for _ in range(height):
        kind = raw[offset]
        line = bytearray(raw[offset + 1 : offset + 1 + stride])
        offset += 1 + stride
        _unfilter(kind, line, previous, channels)
        rows.append(bytes(line) if channels == 4 else _rgba(line))
        previous = line
    return width, height, rows


def _unfilter(kind: int, line: bytearray, previous: bytearray, bpp: int) -> None:
    for i in range(len(line)):
        left = line[i - bpp] if i >= bpp else 0
        up = previous[i]
        if kind == 1:
            line[i] = (line[i] + left) & 0xFF
        elif kind == 2:
            line[i] = (line[i] + up) & 0xFF
        elif kind == 3:
            line[i] = (line[i] + ((left + up) >> 1)) & 0xFF
        elif kind == 4:
            corner = previous[i - bpp] if i >= bpp else 0
            estimate = left + up - corner
            pa, pb, pc = abs(estimate - left), abs(estimate - up), abs(estimate - corner)
            predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
            line[i] = (line[i] + predictor) & 0xFF


def _rgba(line: bytearray) -> bytes:
    out = bytearray()
    for i in range(0, len(line), 3):
        out += line[i : i + 3] + b"\xff"
    return bytes(out)


def pixel(rows: list[bytes], x: int, y: int) -> tuple[int, int, int]:
    """The RGB colour at (x, y)."""
    row = rows[y]
    return row[4 * x], row[4 * x + 1], row[4 * x + 2]
