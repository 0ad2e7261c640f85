"""The public surface: explicit, sorted exports, and a start-up that stays cheap."""

from __future__ import annotations

import json
import subprocess
import sys

import toolplug


def test_exported_members_are_sorted_and_importable() -> None:
    # REQ: PLG-5
    assert list(toolplug.__all__) == sorted(toolplug.__all__)
    for name in toolplug.__all__:
        assert hasattr(toolplug, name), name


def test_help_does_not_import_heavy_dependencies() -> None:
    # REQ: UX-1
    script = (
        "import sys, json\n"
        "from click.testing import CliRunner\n"
        "from toolplug.cli import cli\n"
        "result = CliRunner().invoke(cli, ['--help'])\n"
        "heavy = [m for m in ('selectolax', 'mcp', 'httpx2') if m in sys.modules]\n"
        "print(json.dumps({'code': result.exit_code, 'heavy': heavy, 'out': result.output}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["code"] == 0, report
    assert report["heavy"] == []
    for command in ("plugins", "tools", "check", "call", "settings"):
        assert command in report["out"]


def test_building_a_host_imports_no_network_or_parsing_stack() -> None:
    # REQ: PLG-5
    script = (
        "import sys, json\n"
        "from toolplug.host import Host\n"
        "host = Host.from_config()\n"
        "heavy = [m for m in ('selectolax', 'mcp', 'httpx2', 'toolplug.net', 'toolplug.providers.openai_chat')"
        " if m in sys.modules]\n"
        "print(json.dumps({'heavy': heavy, 'apis': sorted(host.adapter_factories),"
        " 'tools': host.registry.ids()}))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["heavy"] == []
    assert report["apis"] == ["anthropic", "openai-chat", "openai-responses"]
    assert {"web_search", "read_web_page", "web_fetch"} <= set(report["tools"])
