"""Start-up of a host with 100 installed plugins of 10 tools each (1,000 definitions).

Each run is a fresh process: it imports toolplug and its dependencies first (not counted), then
measures the CPU time of discovery, loading and validation of every definition.

    python bench/bench_startup.py [--plugins 100] [--tools 10] [--runs 5] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

PLUGIN_SOURCE = """
import toolplug
from toolplug import FunctionSpec, ToolDefinition, ToolImplementation, ToolParameterSchemaBuilder

class Tool(ToolImplementation):
    def __init__(self, tool_id):
        self.implementation_key = tool_id
        self._id = tool_id

    def definition(self):
        return ToolDefinition(
            id=self._id, implementation_key=self._id,
            function=FunctionSpec(
                name=self._id, description_for_llm="Look something up.",
                parameters=ToolParameterSchemaBuilder()
                .required_string("query", "What to look up.")
                .optional_integer("limit", "How many results.", minimum=1, maximum=50)
                .optional_enum("mode", "How to search.", "fast", "careful")
                .build(),
            ),
        )

    async def execute(self, arguments, context):
        return "ok"

@toolplug.hookimpl
def register_tools():
    return [Tool(f"{prefix}_tool_{i}") for i in range(TOOLS)]
"""

MEASURE = """
import json, sys, time
import toolplug, toolplug.host, pluggy, pydantic, jsonschema_rs  # the dependencies: not counted
from importlib import metadata
metadata.distributions()  # warm nothing: discovery below is counted
start = time.process_time()
host = toolplug.host.Host.from_config(settings_dir=sys.argv[1])
elapsed = time.process_time() - start
print(json.dumps({"seconds": elapsed, "tools": len(host.registry), "diagnostics": len(host.registry.diagnostics)}))
"""


def write_plugins(root: Path, plugins: int, tools: int) -> None:
    for index in range(plugins):
        name = f"benchplugin{index:03d}"
        (root / f"{name}.py").write_text(
            PLUGIN_SOURCE.replace("TOOLS", str(tools)).replace("{prefix}", name), encoding="utf-8"
        )
        info = root / f"{name}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[toolplug]\n{name} = {name}\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plugins", type=int, default=100)
    parser.add_argument("--tools", type=int, default=10)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="one run, for CI")
    args = parser.parse_args()
    runs = 1 if args.quick else args.runs
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_plugins(root, args.plugins, args.tools)
        results = []
        for run in range(runs + 1):  # the first run writes the plugins' .pyc files, as an install does
            env = {"PYTHONPATH": str(root), "PATH": "", "TOOLPLUG_SETTINGS_DIR": str(root / "settings")}
            done = subprocess.run(
                [sys.executable, "-c", textwrap.dedent(MEASURE), str(root / "settings")],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            if run:
                results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    seconds = [r["seconds"] for r in results]
    tools = results[0]["tools"]
    print(
        f"start-up with {args.plugins} plugins x {args.tools} tools: {tools} tools registered, "
        f"{results[0]['diagnostics']} diagnostics"
    )
    print(
        f"CPU time above imports: median {statistics.median(seconds) * 1000:.1f} ms, "
        f"min {min(seconds) * 1000:.1f} ms over {runs} runs (target <= 300 ms)"
    )


if __name__ == "__main__":
    main()
