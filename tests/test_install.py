"""``toolplug install``: pip with toolplug's own interpreter, and no package may take an installed plugin's name."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolplug.cli import cli
from toolplug.install import collisions, installed_plugins, packages_of


def project(folder: Path, name: str, plugin: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\nversion = "1.0"\n[project.entry-points.toolplug]\n{plugin} = "x.plugin"\n',
        encoding="utf-8",
    )
    return folder


@pytest.fixture
def pip_calls(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """pip is never really run here: the command lines toolplug would run."""
    calls: list[list[str]] = []

    def fake_run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
        calls.append(list(command))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", fake_run)
    return calls


def test_the_builtin_plugins_are_known_with_their_distribution() -> None:
    # REQ: UX-2
    assert installed_plugins()["web"] == "toolplug"


def test_a_folder_whose_entry_point_takes_an_installed_plugins_name_is_refused(
    tmp_path: Path, pip_calls: list[list[str]]
) -> None:
    # REQ: UX-2 — the would-be plugin name is read from the folder before pip runs; nothing is installed.
    rival = project(tmp_path / "rival", "acme-rival", "web")
    result = CliRunner().invoke(cli, ["install", str(rival)])
    assert result.exit_code == 2
    assert "'web'" in result.stderr and "toolplug" in result.stderr and "Nothing was installed" in result.stderr
    assert pip_calls == []


def test_a_package_named_like_an_installed_plugin_is_refused(pip_calls: list[list[str]]) -> None:
    # REQ: UX-2
    result = CliRunner().invoke(cli, ["install", "--no-index", "Web"])
    assert result.exit_code == 2 and "Nothing was installed" in result.stderr
    assert pip_calls == []


def test_a_package_with_new_names_goes_to_pip_with_toolplugs_interpreter(
    tmp_path: Path, pip_calls: list[list[str]]
) -> None:
    # REQ: UX-2 — python -m pip of the environment toolplug runs in; pip's options pass through.
    fresh = project(tmp_path / "fresh", "acme-fresh", "acme-fresh")
    result = CliRunner().invoke(cli, ["install", "--no-index", "-f", str(tmp_path), "-e", str(fresh)])
    assert result.exit_code == 0, result.output
    assert pip_calls == [[sys.executable, "-m", "pip", "install", "--no-index", "-f", str(tmp_path), "-e", str(fresh)]]


def test_install_without_a_package_is_bad_usage(pip_calls: list[list[str]]) -> None:
    # REQ: UX-2
    result = CliRunner().invoke(cli, ["install", "--no-index"])
    assert result.exit_code == 2 and "at least one package" in result.stderr
    assert pip_calls == []


def test_reinstalling_a_plugin_of_the_same_distribution_is_no_collision(tmp_path: Path) -> None:
    # REQ: UX-2 — the distribution that owns a name may be installed again (an upgrade, an editable copy).
    own = project(tmp_path / "own", "toolplug", "web")
    assert collisions([str(own)], installed_plugins()) == []
    assert packages_of(["-r", "reqs.txt", "--upgrade", "a", "-e", "b"]) == ["a", "b"]
