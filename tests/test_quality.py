"""The code stays linted and typed: ruff on everything, mypy strict on framework/ and builtin_plugins/."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_tool(*command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *command], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


def test_ruff_finds_nothing() -> None:
    # --no-cache: the plugin template has its own ruff config, and a cache folder would land inside it.
    done = run_tool(
        "ruff", "check", "--no-cache", "--output-format", "concise", "framework", "builtin_plugins", "tests", "bench"
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_strict_is_clean() -> None:
    done = run_tool("mypy", "framework/toolplug", "builtin_plugins")
    assert done.returncode == 0, done.stdout + done.stderr
