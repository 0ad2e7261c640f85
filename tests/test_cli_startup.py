"""What ``toolplug --help`` and ``toolplug tools`` import: nothing a command does not need (speed is in bench/)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROBE = (
    "import sys, json\n"
    "from click.testing import CliRunner\n"
    "from toolplug.cli import cli\n"
    "result = CliRunner().invoke(cli, sys.argv[1:])\n"
    "print(json.dumps({'code': result.exit_code, 'modules': sorted(sys.modules)}))\n"
)


def modules_after(tmp_path: Path, *arguments: str) -> set[str]:
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "TOOLPLUG_SETTINGS_DIR": str(tmp_path / "settings"),
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
    }
    env.pop("TOOLPLUG_CONFIG", None)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *arguments], capture_output=True, text=True, timeout=60, check=True, env=env
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, done.stdout
    return set(report["modules"])


def test_help_builds_no_validation_models_and_no_event_loop(tmp_path: Path) -> None:
    # REQ: UX-1 — --help reads only the plugin deny list, never the pydantic models of the config.
    loaded = modules_after(tmp_path, "--help")
    assert not {"pydantic", "asyncio", "httpx2", "toolplug.definitions", "toolplug.config"} & loaded


def test_listing_tools_reads_no_network_stack(tmp_path: Path) -> None:
    # REQ: UX-1 — a tool's configuration check does not import the HTTP client it would fetch with.
    loaded = modules_after(tmp_path, "tools")
    assert not {"httpx2", "toolplug.net", "selectolax", "mcp"} & loaded


def test_listing_tools_loads_no_guard(tmp_path: Path) -> None:
    # REQ: UX-1 — registering the built-in filter and building the host do not import the guard: it is
    # made when a tool first runs.
    loaded = modules_after(tmp_path, "tools")
    assert "toolplug_web.plugin" in loaded  # the web plugin and its filter were registered
    assert not {"toolplug.guard", "toolplug.guard_builtin"} & loaded


GC_PROBE = (
    "import gc, json, toolplug.cli, toolplug.console as console\n"
    "seen = {}\n"
    "def command():\n"
    "    seen['command'] = gc.isenabled()\n"
    "    with console.start_up_phase():\n"
    "        seen['building'] = gc.isenabled()\n"
    "    seen['after'] = gc.isenabled()\n"
    "    seen['frozen'] = gc.get_freeze_count()\n"
    "toolplug.cli.main = command\n"
    "outside = {'frozen': gc.get_freeze_count()}\n"
    "with console.start_up_phase():\n"
    "    outside['building'] = gc.isenabled()\n"
    "console.main()\n"
    "print(json.dumps({'outside': outside, 'console': seen}))\n"
)


def test_the_command_collects_garbage_as_usual_once_started(tmp_path: Path) -> None:
    # REQ: UX-1 — the collector is off only while the command imports and builds its host; the objects
    # made then are frozen, and the command itself runs with collections on. A host app or a test that
    # uses the start-up phase without the command never has its collector touched.
    done = subprocess.run([sys.executable, "-c", GC_PROBE], capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["outside"] == {"frozen": 0, "building": True}
    assert report["console"]["command"] is True
    assert report["console"]["building"] is False
    assert report["console"]["after"] is True
    assert report["console"]["frozen"] > 1000
