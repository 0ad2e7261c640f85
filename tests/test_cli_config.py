"""The config file's default location, ``toolplug config path|init``, and the no-provider message."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from test_cli import builtin_plugins

from toolplug.cli import cli
from toolplug.config import load_config, parse_config


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh $XDG_CONFIG_HOME; returns the default config file inside it (not yet written)."""
    home = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    return home / "toolplug" / "config.toml"


def deny_builtins(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"[plugins]\ndeny = {json.dumps(builtin_plugins())}\n", encoding="utf-8")


def statuses() -> dict[str, str]:
    result = invoke("plugins", "--all", "--json")
    assert result.exit_code == 0, result.output
    return {p["name"]: p["status"] for p in json.loads(result.stdout)}


def test_the_default_location_is_read_when_nothing_else_names_a_config(xdg: Path) -> None:
    # REQ: UX-1 — $XDG_CONFIG_HOME/toolplug/config.toml, without --config or $TOOLPLUG_CONFIG.
    assert set(statuses().values()) == {"loaded"}
    deny_builtins(xdg)
    assert set(statuses().values()) == {"denied"}
    assert load_config().source == str(xdg)


def test_the_default_location_is_under_home_config_without_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # REQ: UX-1
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    deny_builtins(tmp_path / ".config" / "toolplug" / "config.toml")
    assert set(statuses().values()) == {"denied"}


def test_config_and_the_environment_win_over_the_default(
    xdg: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # REQ: UX-1
    deny_builtins(xdg)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    monkeypatch.setenv("TOOLPLUG_CONFIG", str(empty))
    assert set(statuses().values()) == {"loaded"}
    assert json.loads(invoke("config", "path", "--json").stdout) == {
        "path": str(empty), "origin": "environment", "exists": True
    }
    other = tmp_path / "other.toml"
    shown = invoke("--config", str(other), "config", "path")
    assert shown.exit_code == 0
    assert shown.stdout == f"{other}\n"
    assert "--config" in shown.stderr and "does not exist" in shown.stderr


def test_config_path_names_the_default_file_and_whether_it_exists(xdg: Path) -> None:
    # REQ: UX-1
    shown = invoke("config", "path")
    assert shown.exit_code == 0
    assert shown.stdout == f"{xdg}\n"
    assert "built-in defaults" in shown.stderr and "toolplug config init" in shown.stderr
    deny_builtins(xdg)
    assert json.loads(invoke("config", "path", "--json").stdout) == {
        "path": str(xdg), "origin": "default", "exists": True
    }


def test_config_init_writes_a_commented_starter_that_parses(xdg: Path) -> None:
    # REQ: UX-1 — the starter is valid as written, and its provider example is valid once uncommented.
    written = invoke("config", "init")
    assert written.exit_code == 0, written.output
    assert str(xdg) in written.stdout
    text = xdg.read_text(encoding="utf-8")
    assert load_config().source == str(xdg)
    assert load_config().providers == {}
    uncommented = "\n".join(line.removeprefix("# ") for line in text.splitlines() if not line.startswith("# ") or
                            re.match(r"# (\[|[a-z_]+ = )", line))
    config = parse_config(tomllib.loads(uncommented), source="uncommented")
    assert config.providers["openai"].api == "openai-chat"
    assert config.providers["local"].base_url == "http://127.0.0.1:8000/v1"
    assert config.tools["web_search"].locked


def test_config_init_refuses_to_overwrite_without_force(xdg: Path) -> None:
    # REQ: UX-1 — an admin's config is never lost to a second init.
    xdg.parent.mkdir(parents=True)
    xdg.write_text("# mine\n[limits]\nmax_steps = 3\n", encoding="utf-8")
    refused = invoke("config", "init")
    assert refused.exit_code == 2
    assert "already exists" in refused.stderr and "--force" in refused.stderr
    assert xdg.read_text(encoding="utf-8") == "# mine\n[limits]\nmax_steps = 3\n"
    forced = invoke("config", "init", "--force")
    assert forced.exit_code == 0
    assert "[providers.openai]" in xdg.read_text(encoding="utf-8")
    assert list(xdg.parent.iterdir()) == [xdg]  # no partial file left behind


def test_config_init_writes_where_config_points(xdg: Path, tmp_path: Path) -> None:
    # REQ: UX-1
    target = tmp_path / "deep" / "admin.toml"
    assert invoke("--config", str(target), "config", "init").exit_code == 0
    assert target.is_file() and not xdg.exists()


def test_no_provider_names_the_config_locations_and_a_three_line_example(xdg: Path) -> None:
    # REQ: UX-1 — the message says where the config is read from and what to write there.
    result = invoke("chat", "hi")
    assert result.exit_code == 2
    message = result.stderr
    assert "--config" in message and "$TOOLPLUG_CONFIG" in message and str(xdg) in message
    assert "does not exist" in message and "toolplug config init" in message
    example = [line.strip() for line in message.splitlines() if line.startswith("  ")]
    assert len(example) == 3
    config = parse_config(tomllib.loads("\n".join(example)))
    assert config.providers["openai"].model == "gpt-4o-mini"
    assert "Traceback" not in result.output
