"""Failures on the ``toolplug`` command line: one line a person can act on, ``--debug`` for the traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from _provider_server import Reply, provider_server
from test_cli import Install, Installed, install

__all__ = ["install"]  # the installed-plugin fixture of test_cli

SCRIPT = Path(sys.executable).with_name("toolplug")

RAISING_COMMAND = (
    "from toolplug import hookimpl\n\n"
    "@hookimpl\ndef register_commands(cli):\n"
    "    @cli.command()\n    def wobble():\n        raise RuntimeError('boom in a plugin command')\n"
)


def run(installed: Installed, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real console script in a fresh process: nothing (pytest's log capture) hides what a person sees."""
    env = installed.environment(tmp_path)
    return subprocess.run(
        [str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60, check=False
    )


def test_a_failing_tool_is_one_line_on_stderr_and_no_traceback(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1, EXE-1 — the tool's exception reaches the person as one line naming it.
    done = run(install(), tmp_path, "call", "explode")
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.strip() == "Tool execution failed: kaboom in the tool"
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "explode" in lines[0] and "RuntimeError: kaboom in the tool" in lines[0]


def test_debug_shows_the_tools_traceback(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1
    done = run(install(), tmp_path, "--debug", "call", "explode")
    assert done.returncode == 1
    assert "Traceback (most recent call last)" in done.stderr
    assert "kaboom in the tool" in done.stderr


def test_an_unexpected_exception_in_any_command_is_one_line_naming_debug(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1 — even a plugin's command that raises does not print a traceback.
    installed = install(plugins={"wobbly": RAISING_COMMAND})
    done = run(installed, tmp_path, "wobble")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == (
        "Error: unexpected RuntimeError: boom in a plugin command (run with --debug for the traceback)"
    )
    debug = run(installed, tmp_path, "--debug", "wobble")
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr
    assert debug.stderr.strip().splitlines()[-1] == "Error: unexpected RuntimeError: boom in a plugin command"


def test_a_provider_error_is_one_line_and_debug_adds_the_traceback(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1 — a provider answering 400 is named with its status and message, nothing more.
    installed = install()
    with provider_server() as server:
        server.reply(*[Reply(400, {"error": {"message": "model 'm' does not exist"}})] * 2)
        config = installed.config.read_text(encoding="utf-8")
        config += f'\n[providers.here]\napi = "openai-chat"\nmodel = "m"\nbase_url = "{server.url}"\n'
        installed.config.write_text(config, encoding="utf-8")
        done = run(installed, tmp_path, "chat", "hi", "--provider", "here")
        debug = run(installed, tmp_path, "--debug", "chat", "hi", "--provider", "here")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "HTTP 400" in lines[0] and "model 'm' does not exist" in lines[0]
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr


def test_bad_input_is_one_line(install: Install, tmp_path: Path) -> None:
    # REQ: UX-1
    done = run(install(), tmp_path, "call", "echo", "--args", '{"text": 5}')
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "schema" in done.stderr

