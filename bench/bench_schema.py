"""Schema costs for 1,000 real-world-sized schemas: registration check, strict conversion, validator compilation.

The schemas are the committed corpus (the MCP reference servers' tools, zod as TypeScript MCP servers
publish it, a pydantic model with every feature), each copied with renamed properties until there are
1,000 distinct ones, so no cache helps. Reports µs per schema (median of the runs), and per call for
validating and undoing a strict call.

    python bench/bench_schema.py [--schemas 1000] [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from toolplug.schema import ArgumentValidator, check_schema
from toolplug.strict import _convert, strict_conversion

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus"


def corpus() -> list[dict[str, Any]]:
    """Every schema of the committed corpus (with a root object)."""
    sys.path.insert(0, str(CORPUS.parent))
    from test_schema_corpus import Everything  # the pydantic model with every feature

    schemas = [tool["inputSchema"] for tools in json.loads((CORPUS / "mcp_reference_servers.json").read_text())
               .values() for tool in tools]
    schemas += list(json.loads((CORPUS / "zod_schemas.json").read_text()).values())
    schemas.append(Everything.model_json_schema())
    return schemas


def renamed(schema: Any, suffix: str) -> Any:
    """A copy whose property names end in ``suffix`` (refs into properties keep pointing right)."""
    if isinstance(schema, list):
        return [renamed(item, suffix) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {f"{name}{suffix}": renamed(sub, suffix) for name, sub in value.items()}
        elif key == "required" and isinstance(value, list):
            out[key] = [f"{name}{suffix}" for name in value]
        elif key == "$ref" and isinstance(value, str) and "/properties/" in value:
            parts = value.split("/")
            out[key] = "/".join(f"{p}{suffix}" if i and parts[i - 1] == "properties" else p
                                for i, p in enumerate(parts))
        else:
            out[key] = renamed(value, suffix)
    return out


def per_schema(schemas: list[dict[str, Any]], work: Callable[[dict[str, Any]], Any], runs: int) -> float:
    timings = []
    for _ in range(runs):
        start = time.perf_counter()
        for schema in schemas:
            work(schema)
        timings.append((time.perf_counter() - start) / len(schemas))
    return statistics.median(timings) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schemas", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run, for CI")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    base = corpus()
    schemas = [renamed(base[i % len(base)], f"_{i}") for i in range(args.schemas)]
    size = statistics.mean(len(json.dumps(s)) for s in schemas)
    print(f"{len(schemas)} schemas from {len(base)} corpus schemas, {size:.0f} bytes of JSON on average")
    for label, work in (
        ("registration check (caps, refs, work, meta-schema)", check_schema),
        ("strict conversion, uncached", _convert),
        ("strict conversion, cached (by JSON text)", strict_conversion),
        ("validator compilation (formats asserted)", ArgumentValidator),
    ):
        print(f"{label:<52} {per_schema(schemas, work, runs):8.1f} µs/schema")
    conversions = [strict_conversion(s) for s in schemas]
    convertible = [c for c in conversions if c.convertible]
    print(f"  {len(convertible)} of {len(schemas)} go strict, {sum(c.exact for c in convertible)} of them exactly")


if __name__ == "__main__":
    main()
