"""MCP tool-call round trip: connect time and per-call latency over stdio, Streamable HTTP and legacy SSE.

python bench/bench_mcp.py [--calls 200] [--quick]

Uses the tests' SDK server (tests/_mcp_servers/weather_server.py) and toolplug's own client; each
call is ``tools/call echo`` and its answer, as a tool call from the registry would make it.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _mcp_servers import PYTHON, WEATHER_SERVER, weather_http

from toolplug_mcp.client import McpClient
from toolplug_mcp.transports import McpTransport, SseTransport, StdioTransport, StreamableHttpTransport


async def measure(transport: McpTransport, calls: int) -> tuple[float, list[float]]:
    client = McpClient(transport, server="bench", timeout=60)
    started = time.perf_counter()
    await client.connect()
    connect = time.perf_counter() - started
    try:
        for _ in range(10):  # warm up
            await client.call_tool("echo", {"text": "warm"})
        latencies = []
        for index in range(calls):
            started = time.perf_counter()
            await client.call_tool("echo", {"text": f"call {index}"})
            latencies.append(time.perf_counter() - started)
    finally:
        await client.close()
    return connect, latencies


def report(name: str, connect: float, latencies: list[float]) -> None:
    ordered = sorted(latencies)
    p95 = ordered[max(0, int(len(ordered) * 0.95) - 1)]
    print(
        f"{name:<16} connect {connect * 1000:8.1f} ms   call median {statistics.median(ordered) * 1000:6.2f} ms"
        f"   p95 {p95 * 1000:6.2f} ms   ({len(ordered)} calls)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="20 calls per transport (CI's quick mode)")
    args = parser.parse_args()
    calls = 20 if args.quick else args.calls
    report("stdio", *asyncio.run(measure(StdioTransport("bench", PYTHON, [WEATHER_SERVER, "stdio"]), calls)))
    with weather_http() as url:
        report("streamable http", *asyncio.run(measure(StreamableHttpTransport("bench", f"{url}/mcp"), calls)))
        report("legacy sse", *asyncio.run(measure(SseTransport("bench", f"{url}/sse"), calls)))


if __name__ == "__main__":
    main()
