"""The executor's overhead per call: a no-op tool with two arguments (parse, validate, policy, run, trace).

python bench/bench_executor.py [--calls 50000] [--quick] [--with-secret]

``--with-secret`` registers a secret first, so every call also pays for scrubbing its result, trace and
arguments (the patterns are compiled once per set of secrets, never per call).
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
    parser.add_argument("--with-secret", action="store_true", help="Scrub every call (one secret is known).")
    args = parser.parse_args()
    if args.with_secret:
        from toolplug.secrets import register_secrets

        register_secrets(["sk-bench-secret-0123456789abcdef"])
    calls = 5_000 if args.quick else args.calls
    runs = [asyncio.run(measure(calls)) for _ in range(1 if args.quick else 5)]
    print(
        f"executor overhead per call: median {statistics.median(runs) * 1e6:.2f} us, "
        f"min {min(runs) * 1e6:.2f} us over {len(runs)} runs of {calls} calls (target <= 15 us)"
        + (" with one secret known" if args.with_secret else "")
    )


if __name__ == "__main__":
    main()
