"""Loop overhead per step and per tool call, with a zero-latency scripted adapter and a no-op tool.

Runs of 10 and 100 tool calls, one call per round and all calls in one round; validation and traces are
on (they always are). Targets: at most 100 µs per round-trip step and 20 µs per call, the same
at 100 calls as at 10. They are judged on the best of many runs, the loop's own cost; the median is
printed too and shows how noisy the machine is.

    python bench/bench_loop.py            # full run
    python bench/bench_loop.py --quick    # CI's quick mode
    python bench/bench_loop.py --profile  # where the time goes (cProfile, 100 one-call rounds)
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import statistics
import time

from toolplug.loop import LoopOptions, ToolCallingLoop, index_tools
from toolplug.messages import UserMessage
from toolplug.providers.base import Round
from toolplug.testing import ScriptedAdapter, text_round, tool_call, tool_calls_round
from toolplug.tools import function_tool

STEP_TARGET_US = 100.0
CALL_TARGET_US = 20.0


async def _noop(arguments: dict[str, object]) -> str:
    return "ok"


NOOP = function_tool(
    "noop",
    "Does nothing.",
    {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    _noop,
)
TOOLS = index_tools([NOOP])


def one_call_per_round(calls: int) -> list[Round]:
    """``calls`` rounds of one call each, then the answer."""
    rounds = [tool_calls_round(tool_call("noop", {"n": i}, call_id=f"c{i}")) for i in range(calls)]
    return [*rounds, text_round("done")]


def all_calls_in_one_round(calls: int) -> list[Round]:
    """One round with every call, then the answer."""
    round_ = tool_calls_round(*(tool_call("noop", {"n": i}, call_id=f"c{i}") for i in range(calls)))
    return [round_, text_round("done")]


async def run_once(script: list[Round]) -> float:
    adapter = ScriptedAdapter(script)
    loop = ToolCallingLoop(adapter, TOOLS, options=LoopOptions())
    started = time.perf_counter()
    result = await loop.run([UserMessage("go")])
    elapsed = time.perf_counter() - started
    assert result.stop_reason == "answered" and len(result.traces) == sum(len(r.tool_calls) for r in script), (
        result.stop_reason
    )
    return elapsed


async def measure(script: list[Round], repeats: int) -> tuple[float, float]:
    """The best and the median run, in seconds."""
    for _ in range(max(repeats // 10, 3)):
        await run_once(script)
    timings = [await run_once(script) for _ in range(repeats)]
    return min(timings), statistics.median(timings)


async def main(quick: bool) -> bool:
    repeats = 30 if quick else 300
    ok = True
    print(f"{'scenario':<30}{'best total':>12}{'per unit best':>16}{'per unit median':>18}")
    for calls in (10, 100):
        best, median = await measure(one_call_per_round(calls), repeats)
        steps = calls + 1
        per_step = best / steps * 1e6
        label = f"{calls} calls, one per round"
        print(f"{label:<30}{best * 1e3:>10.3f}ms{per_step:>11.1f}µs/step{median / steps * 1e6:>13.1f}µs/step")
        ok &= per_step <= STEP_TARGET_US
    totals = {}
    for calls in (10, 100):
        best, median = await measure(all_calls_in_one_round(calls), repeats)
        totals[calls] = best
        per_call = best / calls * 1e6
        label = f"{calls} calls in one round"
        print(f"{label:<30}{best * 1e3:>10.3f}ms{per_call:>11.1f}µs/call{median / calls * 1e6:>13.1f}µs/call")
    # Each extra call in a round costs this much; the two rounds' fixed cost is not a call's.
    marginal = (totals[100] - totals[10]) / 90 * 1e6
    print(f"{'marginal cost of one call':<30}{'':>12}{marginal:>11.1f}µs/call")
    ok &= marginal <= CALL_TARGET_US and totals[100] / 100 * 1e6 <= CALL_TARGET_US
    print("targets met" if ok else "TARGETS MISSED")
    return ok


def profile() -> None:
    script = one_call_per_round(100)

    async def many() -> None:
        for _ in range(200):
            await run_once(script)

    profiler = cProfile.Profile()
    profiler.enable()
    asyncio.run(many())
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--profile", action="store_true")
    arguments = parser.parse_args()
    if arguments.profile:
        profile()
    else:
        raise SystemExit(0 if asyncio.run(main(arguments.quick)) else 1)
