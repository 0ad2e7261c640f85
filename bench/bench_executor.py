"""The executor's overhead per call: a no-op tool with two arguments (parse, validate, policy, run, trace).

python bench/bench_executor.py [--calls 50000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

import toolplug
from toolplug import CallScope, ConfidenceLevel, RegisteredTool, ToolExecutor


@toolplug.tool
async def noop(text: str, count: int = 1) -> str:
    """Do nothing."""
    return "ok"


async def measure(calls: int) -> float:
    registered = RegisteredTool.from_implementation(noop)
    executor = ToolExecutor()
    scope = CallScope(provider_id="bench", provider_confidence=ConfidenceLevel.HIGH)
    arguments = {"text": "hello", "count": 2}
    for _ in range(1000):  # warm up
        await executor.execute(registered, arguments, scope=scope, call_id="c")
    start = time.perf_counter()
    for _ in range(calls):
        await executor.execute(registered, arguments, scope=scope, call_id="c")
    return (time.perf_counter() - start) / calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=50_000)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    calls = 5_000 if args.quick else args.calls
    runs = [asyncio.run(measure(calls)) for _ in range(1 if args.quick else 5)]
    print(
        f"executor overhead per call: median {statistics.median(runs) * 1e6:.2f} us, "
        f"min {min(runs) * 1e6:.2f} us over {len(runs)} runs of {calls} calls (target <= 15 us)"
    )


if __name__ == "__main__":
    main()
