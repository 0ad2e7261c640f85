"""Tool search over a catalogue of 1,000 tools: search time, index build time, and request size.

The catalogue is the tests' synthetic one (100 services of 10 tools each). Reported:
- building the BM25 index, in ms;
- one search, in µs (median and best over the first held-out queries);
- the bytes of tool definitions a Chat Completions request carries with every tool sent, and with
  ``offer_at_most = 32`` (32 tools plus ``search_tools``), with an estimate in tokens (bytes / 4);
- the share of the first held-out queries (since used for tuning), of the development queries and of
  the paraphrase development queries whose right tool is among the first five results.

    python bench/bench_tool_search.py
    python bench/bench_tool_search.py --quick
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from _tool_catalogue import build_catalogue_cached, tool_id
from _tool_search_queries import DEVELOPMENT, DEVELOPMENT_EXTRA, DEVELOPMENT_PARAPHRASES, HELDOUT

from toolplug.providers.wire_tools import to_chat_completions_tool
from toolplug.registry import RegisteredTool
from toolplug.tool_search import ToolIndex, ToolSearchOptions, build_search_tool, split_offer
from toolplug.tools import function_tool


def catalogue() -> list[RegisteredTool]:
    tools = []
    for spec in build_catalogue_cached():
        entry = RegisteredTool.from_implementation(
            function_tool(spec.id, spec.description, spec.parameters, lambda args: "ok", title=spec.title)
        )
        entry.plugin = spec.plugin
        tools.append(entry)
    return tools


def wire_bytes(tools: list[RegisteredTool]) -> int:
    shapes = [to_chat_completions_tool(tool.definition) for tool in tools]
    return len(json.dumps(shapes, separators=(",", ":")).encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    tools = catalogue()
    started = time.perf_counter()
    index = ToolIndex(tools)
    build_ms = (time.perf_counter() - started) * 1e3
    started = time.perf_counter()
    index.search("drizzle")  # the first word no tool uses reads the table of everyday words' subjects
    topics_ms = (time.perf_counter() - started) * 1e3
    queries = [query for query, _, _ in HELDOUT]
    rounds = 1 if args.quick else 5
    timings = []
    for _ in range(rounds):
        for query in queries:
            begin = time.perf_counter()
            index.search(query, limit=5)
            timings.append((time.perf_counter() - begin) * 1e6)
    hits = sum(tool_id(p, a) in [m.id for m in index.search(q, limit=5)] for q, p, a in HELDOUT)
    development = DEVELOPMENT + DEVELOPMENT_EXTRA
    dev_hits = sum(tool_id(p, a) in [m.id for m in index.search(q, limit=5)] for q, p, a in development)
    paraphrases = DEVELOPMENT_PARAPHRASES
    para_hits = sum(tool_id(p, a) in [m.id for m in index.search(q, limit=5)] for q, p, a in paraphrases)
    upfront, deferred = split_offer(tools, ToolSearchOptions(offer_at_most=32))
    search = RegisteredTool.from_implementation(build_search_tool(ToolIndex(deferred)))
    full, offered = wire_bytes(tools), wire_bytes([*upfront, search])
    print(f"index of {len(tools)} tools built in {build_ms:.1f} ms")
    print(f"first search with a word no tool uses (reads the topic table once): {topics_ms:.1f} ms")
    median, best = statistics.median(timings), min(timings)
    print(f"search: median {median:.0f} µs, best {best:.0f} µs over {len(timings)} searches")
    print(f"first held-out set (since used for tuning) top-5: {hits}/{len(HELDOUT)} = {hits / len(HELDOUT):.1%}")
    print(f"development top-5: {dev_hits}/{len(development)} = {dev_hits / len(development):.1%}")
    print(f"paraphrase development top-5: {para_hits}/{len(paraphrases)} = {para_hits / len(paraphrases):.1%}")
    print(f"tool definitions per request: all {len(tools)} tools {full:,} bytes (~{full // 4:,} tokens)")
    print(f"  with offer_at_most=32: {len(upfront)} tools + search_tools {offered:,} bytes (~{offered // 4:,} tokens)")
    print(f"  saved per request: {full - offered:,} bytes ({1 - offered / full:.1%})")


if __name__ == "__main__":
    main()
