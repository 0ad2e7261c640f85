"""Hostile installed plugins: each is a real fake distribution on sys.path, and each case asserts the
defended behaviour (a denied plugin is never imported, names and ids cannot be taken over)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hostile._dists import GOOD_TOOL, FakeSite

# A plugin that adds a command, a tool, and announces its import with a marker file.
HOSTILE_COMMANDS = GOOD_TOOL.format(tool="evil_tool") + '''
import click

@click.command("evil")
def evil():
    """A command of the denied plugin."""
    click.echo("evil ran")

@toolplug.hookimpl
def register_commands(cli):
    cli.add_command(evil)
'''


def install_denied(site: FakeSite, tmp_path: Path) -> Path:
    """Install the hostile ``evil`` plugin and a config that denies it globally; return the config."""
    site.add("evil-dist", {"evil": "evil_plugin"}, {"evil_plugin": site.marking("evil", HOSTILE_COMMANDS)})
    config = tmp_path / "host.toml"
    config.write_text('[plugins]\ndeny = ["evil"]\n', encoding="utf-8")
    return config


def lists_evil_command(help_text: str) -> bool:
    return re.search(r"^  evil\s", help_text, re.MULTILINE) is not None


def assert_never_imported(site: FakeSite, modules: frozenset[str] | set[str]) -> None:
    assert "evil_plugin" not in modules
    assert not site.marker("evil").exists()


# --- denied means never imported, on every path of the command line ---------------------------------

CLI_PATHS = {
    "help": ["--help"],
    "help-after-config": ["--help"],
    "plugins": ["plugins", "--all"],
    "tools": ["tools"],
    "check": ["check"],
    "serve": ["serve"],
    "plugin-command": ["evil"],
    "unknown-command": ["no-such-command"],
}


@pytest.mark.parametrize("path", sorted(CLI_PATHS))
def test_denied_plugin_is_never_imported_by_any_command_with_config_option(
    fake_site: FakeSite, tmp_path: Path, path: str
) -> None:
    # REQ: PLG-4
    config = install_denied(fake_site, tmp_path)
    args = ["--config", str(config), *CLI_PATHS[path]]
    if path == "help-after-config":
        args = [f"--config={config}", "--help"]
    run = fake_site.run_cli(*args)
    assert_never_imported(fake_site, run.modules)
    assert not lists_evil_command(run.stdout), run.stdout
    assert "evil ran" not in run.stdout
    assert "Traceback" not in run.stderr, run.stderr


@pytest.mark.parametrize("path", ["help", "plugins", "serve", "plugin-command"])
def test_denied_plugin_is_never_imported_with_the_config_from_the_environment(
    fake_site: FakeSite, tmp_path: Path, path: str
) -> None:
    # REQ: PLG-4
    config = install_denied(fake_site, tmp_path)
    run = fake_site.run_cli(*CLI_PATHS[path], env={"TOOLPLUG_CONFIG": str(config)})
    assert_never_imported(fake_site, run.modules)
    assert "evil ran" not in run.stdout


def test_denied_plugin_is_never_imported_by_shell_completion(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-4
    config = install_denied(fake_site, tmp_path)
    for words, cword in ((f"toolplug --config {config} ", "3"), (f"toolplug --config {config} e", "3")):
        run = fake_site.run_cli(env={"_TOOLPLUG_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": cword})
        assert_never_imported(fake_site, run.modules)
        assert "evil" not in run.stdout.split()


def test_an_allowed_plugin_command_is_listed_and_runs(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-2 (the control case of the tests above: without the deny the same plugin is imported)
    install_denied(fake_site, tmp_path)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    listed = fake_site.run_cli("--config", str(empty), "--help")
    assert lists_evil_command(listed.stdout), listed.stdout
    ran = fake_site.run_cli("--config", str(empty), "evil")
    assert ran.stdout.strip() == "evil ran", ran.stderr
    assert "evil_plugin" in ran.modules


def test_denied_plugin_is_never_imported_in_process(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-4
    from toolplug.cli import cli

    config = install_denied(fake_site, tmp_path)
    for args in (["--config", str(config), "--help"], ["--config", str(config), "plugins"], ["--config", str(config)]):
        result = CliRunner().invoke(cli, args)
        assert "Traceback" not in result.output
        assert_never_imported(fake_site, set(sys.modules))


# --- entry-point name clashes -----------------------------------------------------------------------


def test_a_plugin_named_like_a_builtin_loses_and_both_sides_are_listed(fake_site: FakeSite, tmp_path: Path) -> None:
    # REQ: PLG-6, PLG-7
    fake_site.add("aaa-squatter", {"web": "squat_web"}, {"squat_web": fake_site.marking("squat", GOOD_TOOL.format(
        tool="web_fetch"))})
    listed = fake_site.run_cli("plugins", "--all", "--json")
    rows = [row for row in json.loads(listed.stdout) if row["name"] == "web"]
    by_distribution = {row["distribution"]: row for row in rows}
    assert set(by_distribution) == {"toolplug", "aaa-squatter"}
    assert by_distribution["toolplug"]["status"] == "loaded"
    loser = by_distribution["aaa-squatter"]
    assert loser["status"] == "failed" and "toolplug" in loser["reason"] and "squat_web" in loser["reason"]
    assert not fake_site.marker("squat").exists()
    checked = fake_site.run_cli("check")
    assert checked.returncode == 1
    assert "aaa-squatter" in checked.stdout or "another distribution" in checked.stdout


def test_two_third_party_distributions_claiming_one_name_resolve_by_distribution_name(fake_site: FakeSite) -> None:
    # REQ: PLG-6, PLG-7
    from toolplug.host import Host

    fake_site.add("zzz-late", {"shared": "late_mod"}, {"late_mod": fake_site.marking("late", GOOD_TOOL.format(
        tool="late_tool"))})
    fake_site.add("aaa-early", {"shared": "early_mod"}, {"early_mod": GOOD_TOOL.format(tool="early_tool")})
    host = Host.from_config(settings_dir=fake_site.root.parent / "s")
    records = [r for r in host.plugin_records() if r.name == "shared"]
    assert [(r.distribution, r.status) for r in records] == [("aaa-early", "loaded"), ("zzz-late", "failed")]
    assert "aaa-early" in records[1].reason
    assert "early_tool" in host.registry and "late_tool" not in host.registry
    assert not fake_site.marker("late").exists() and "late_mod" not in sys.modules
