"""The chat page's stream: time to first byte and chunks per second for a long answer.

One scripted model answer of ``--deltas`` text deltas (no network to a model), read three ways:

- the raw loop: ``ToolCallingLoop.stream`` parts, the floor;
- ``WebChat.stream``: the same turn as UI message stream chunks (the host's chat, approval signing,
  secret redaction), no HTTP;
- through the server: ``POST /api/chat`` to the real ASGI app under uvicorn on 127.0.0.1, read with an
  HTTP client as server-sent events.

Time to first byte is from the request to the first text delta (for the server: the first byte of the
body, and the first ``text-delta`` event). Best and median of ``--runs`` runs.

    python bench/bench_webui.py            # full run
    python bench/bench_webui.py --quick    # CI's quick mode
"""

from __future__ import annotations

import argparse
import asyncio
import json
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolplug import Host, hookimpl
from toolplug.loop import ToolCallingLoop
from toolplug.messages import UserMessage
from toolplug.providers.base import TextDelta
from toolplug.testing import ScriptedAdapter, text_round
from toolplug.webui import AccessPolicy, WebChat, create_app, parse_chat_request

TOKEN = "bench-token"
CONFIG = """
[host]
components = ["chat"]
[plugins]
deny = ["web", "mcp"]
[providers.bench]
api = "scripted-bench"
model = "scripted-model"
base_url = "http://127.0.0.1:9/unused"
"""


def answer_text(deltas: int) -> str:
    return "".join(f"word{i % 10} " for i in range(deltas))


class _Factory:
    api = "scripted-bench"

    def __init__(self, deltas: int) -> None:
        self.text = answer_text(deltas)

    def create(self, profile: Any, **options: Any) -> ScriptedAdapter:
        return ScriptedAdapter([text_round(self.text)], provider_id="bench", chunk_size=6)


class _Plugin:
    def __init__(self, factory: _Factory) -> None:
        self.factory = factory

    @hookimpl
    def register_provider_adapters(self) -> list[Any]:
        return [self.factory]


def body(run: int) -> dict[str, Any]:
    return {"id": f"bench-{run}", "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "go"}]}]}


async def raw_loop(deltas: int) -> tuple[float, float, int]:
    adapter = ScriptedAdapter([text_round(answer_text(deltas))], chunk_size=6)
    started = time.perf_counter()
    first = 0.0
    count = 0
    async for part in ToolCallingLoop(adapter).stream([UserMessage("go")]):
        count += 1
        if not first and isinstance(part, TextDelta):
            first = time.perf_counter() - started
    return first, time.perf_counter() - started, count


async def web_chat(chat: WebChat, run: int) -> tuple[float, float, int]:
    started = time.perf_counter()
    first = 0.0
    count = 0
    async for chunk in chat.stream(parse_chat_request(body(run))):
        count += 1
        if not first and chunk["type"] == "text-delta":
            first = time.perf_counter() - started
    return first, time.perf_counter() - started, count


def through_server(base: str, run: int) -> tuple[float, float, float, int]:
    """One POST over a plain socket (an HTTP client library's own cost would blur the server's)."""
    host, port = base.removeprefix("http://").split(":")
    payload = json.dumps(body(run)).encode()
    request = (
        f"POST /api/chat HTTP/1.1\r\nhost: {host}:{port}\r\nauthorization: Bearer {TOKEN}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(payload)}\r\nconnection: close\r\n\r\n"
    ).encode() + payload
    started = time.perf_counter()
    first_byte = first_delta = 0.0
    received = b""
    with socket.create_connection((host, int(port)), timeout=60) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(request)
        while data := sock.recv(1 << 16):
            if not first_byte:
                first_byte = time.perf_counter() - started
            received += data
            if not first_delta and b'"type":"text-delta"' in received:
                first_delta = time.perf_counter() - started
    total = time.perf_counter() - started
    assert received.startswith(b"HTTP/1.1 200"), received[:200]
    return first_byte, first_delta, total, received.count(b"data: {")


def serve(app: Any) -> tuple[str, Callable[[], None]]:
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=10)

    return f"http://127.0.0.1:{port}", stop


def report(name: str, firsts: list[float], totals: list[float], counts: list[int]) -> None:
    rates = [count / total for count, total in zip(counts, totals, strict=True)]
    print(
        f"{name:<22} first delta best {min(firsts) * 1000:7.2f} ms  median {statistics.median(firsts) * 1000:7.2f} ms"
        f"   {counts[0]:5d} items   {max(rates):9.0f}/s best  {statistics.median(rates):9.0f}/s median"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer, shorter runs")
    parser.add_argument("--deltas", type=int, default=None, help="text deltas of the answer")
    parser.add_argument("--runs", type=int, default=None)
    options = parser.parse_args()
    deltas = options.deltas or (200 if options.quick else 2000)
    runs = options.runs or (3 if options.quick else 10)
    folder = Path(tempfile.mkdtemp(prefix="bench-webui-"))
    (folder / "host.toml").write_text(CONFIG, encoding="utf-8")
    host = Host.from_config(folder / "host.toml", plugins=[("bench", _Plugin(_Factory(deltas)))],
                            load_entry_points=False, settings_dir=folder)
    print(f"an answer of {deltas} text deltas, {runs} runs")

    raw = [asyncio.run(raw_loop(deltas)) for _ in range(runs)]
    report("raw loop (parts)", [r[0] for r in raw], [r[1] for r in raw], [r[2] for r in raw])

    chat = WebChat(host, provider_id="bench")
    direct = [asyncio.run(web_chat(chat, run)) for run in range(runs)]
    report("WebChat.stream (chunks)", [r[0] for r in direct], [r[1] for r in direct], [r[2] for r in direct])

    base, stop = serve(create_app(WebChat(host, provider_id="bench"), policy=AccessPolicy(TOKEN)))
    try:
        through_server(base, -1)  # the first connection warms the server up
        served = [through_server(base, run) for run in range(runs)]
    finally:
        stop()
    report("server (SSE events)", [r[1] for r in served], [r[2] for r in served], [r[3] for r in served])
    print(f"{'server first byte':<22} best {min(r[0] for r in served) * 1000:7.2f} ms  "
          f"median {statistics.median(r[0] for r in served) * 1000:7.2f} ms")


if __name__ == "__main__":
    main()
