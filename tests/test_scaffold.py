"""`toolplug new` and the plugin template (UX-2): rendering, name checks, and a real install in a fresh venv."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from toolplug.cli import cli
from toolplug.scaffold import PLACEHOLDER, PluginNames, render_plugin, template_root

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDER_SPELLINGS = ("example-tools", "example_tools", "ExampleTools", "Example Tools")


def rendered_files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


def new(*args: str) -> Any:
    return CliRunner().invoke(cli, ["new", *args], catch_exceptions=False)


# REQ: UX-2
def test_new_renders_the_template_with_the_name_everywhere(tmp_path: Path) -> None:
    result = new("acme-weather", "--dir", str(tmp_path))
    assert result.exit_code == 0, result.output
    package = tmp_path / "acme-weather"
    assert str(package) in result.output
    relative = {path.relative_to(package).as_posix() for path in rendered_files(package)}
    assert {"pyproject.toml", "README.md", "acme_weather/plugin.py", "acme_weather/notes.py",
            "acme_weather/temperature.py", "acme_weather/py.typed", "tests/test_acme_weather.py"} <= relative
    for path in rendered_files(package):
        text = path.read_text(encoding="utf-8")
        for spelling in PLACEHOLDER_SPELLINGS:
            assert spelling not in text, f"{spelling!r} left in {path}"
            assert spelling not in path.as_posix()
        if path.suffix == ".py":
            compile(text, str(path), "exec")
    project = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "acme-weather"
    assert project["project"]["entry-points"]["toolplug"] == {"acme-weather": "acme_weather.plugin"}
    assert "Acme Weather" in (package / "README.md").read_text(encoding="utf-8")


# REQ: UX-2
def test_the_rendered_plugin_loads_and_its_tools_pass_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, toolplug_host: Any
) -> None:
    render_plugin("scaffold-probe", tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "scaffold-probe"))
    plugin = importlib.import_module("scaffold_probe.plugin")
    host = toolplug_host(plugins=[("scaffold-probe", plugin)])
    assert host.registry.diagnostics == []
    assert host.registry.ids() == ["scaffold_probe_convert_temperature", "scaffold_probe_search_notes"]
    for name in [m for m in sys.modules if m == "scaffold_probe" or m.startswith("scaffold_probe.")]:
        monkeypatch.delitem(sys.modules, name)


# REQ: UX-2
@pytest.mark.parametrize(
    ("name", "complaint"),
    [
        ("Weather", "not a valid plugin name"),
        ("weather tools", "not a valid plugin name"),
        ("1weather", "not a valid plugin name"),
        ("weather--tools", "not a valid plugin name"),
        ("weather-", "not a valid plugin name"),
        ("w" * 41, "too long"),
        ("class", "clashes"),
        ("json", "clashes"),
        ("toolplug", "clashes"),
    ],
)
def test_new_rejects_a_bad_name_with_a_clear_message(tmp_path: Path, name: str, complaint: str) -> None:
    result = new(name, "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert complaint in result.output
    assert list(tmp_path.iterdir()) == []


# REQ: UX-2
def test_new_never_overwrites_an_existing_folder(tmp_path: Path) -> None:
    existing = tmp_path / "acme-weather"
    existing.mkdir()
    (existing / "mine.txt").write_text("keep me", encoding="utf-8")
    result = new("acme-weather", "--dir", str(tmp_path))
    assert result.exit_code == 2
    assert "already exists" in result.output
    assert [p.name for p in existing.iterdir()] == ["mine.txt"]


# REQ: UX-2
def test_name_spellings() -> None:
    names = PluginNames.parse("acme_weather_tools")
    assert (names.distribution, names.module, names.class_prefix, names.title) == (
        "acme-weather-tools", "acme_weather_tools", "AcmeWeatherTools", "Acme Weather Tools")
    assert PluginNames.parse(PLACEHOLDER).module == "example_tools"


# REQ: UX-2
SKIPPED_FOLDERS = {"__pycache__", ".ruff_cache", ".mypy_cache", ".pytest_cache"}


def test_the_repository_plugin_template_is_the_shipped_one() -> None:
    shipped = Path(str(template_root()))
    repository = (ROOT / "plugin_template").resolve()
    assert repository == (ROOT / "framework" / "toolplug" / "plugin-template").resolve()

    def files(root: Path) -> dict[str, bytes]:
        return {
            str(path.relative_to(root)): path.read_bytes()
            for path in root.rglob("*")
            if path.is_file() and not any(part in SKIPPED_FOLDERS for part in path.parts)
        }

    assert (shipped / "pyproject.toml").is_file()
    assert files(shipped) == files(repository)


# REQ: UX-2
def test_the_rendered_package_passes_ruff(tmp_path: Path) -> None:
    package = render_plugin("lint-probe", tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."], cwd=package, capture_output=True, text=True,
        timeout=120, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


# --- the real thing: a fresh virtual environment ---------------------------------------------------------


def _clean_environment(tmp_path: Path) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    environment.pop("TOOLPLUG_CONFIG", None)
    environment["TOOLPLUG_SETTINGS_DIR"] = str(tmp_path / "settings")
    environment["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return environment


def _run(command: list[str | Path], cwd: Path, environment: dict[str, str], timings: dict[str, float],
         label: str) -> subprocess.CompletedProcess[str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(part) for part in command], cwd=cwd, env=environment, capture_output=True, text=True, timeout=600,
        check=False,
    )
    timings[label] = round(time.perf_counter() - started, 1)
    return done


# REQ: UX-2 — toolplug from a checkout, then a `toolplug new` package with `toolplug install`, then its tests.
@pytest.mark.slow
def test_a_rendered_package_installs_is_discovered_checks_and_passes_its_tests(tmp_path: Path) -> None:
    environment = _clean_environment(tmp_path)
    timings: dict[str, float] = {}
    # Build from a copy, so the build never writes into the working tree others are using.
    source = tmp_path / "toolplug-source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "site", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"))
    venv = tmp_path / "venv"
    done = _run([sys.executable, "-m", "venv", venv], tmp_path, environment, timings, "venv")
    assert done.returncode == 0, done.stderr
    binaries = venv / ("Scripts" if os.name == "nt" else "bin")
    python, toolplug = binaries / "python", binaries / "toolplug"

    # toolplug from a built wheel (not editable): `toolplug new` must find the template inside it.
    done = _run([python, "-m", "pip", "install", "-q", source, "pytest", "hypothesis"], tmp_path, environment,
                timings, "install toolplug")
    assert done.returncode == 0, done.stdout + done.stderr
    done = _run([toolplug, "new", "acme-weather", "--dir", tmp_path / "work"], tmp_path, environment, timings, "new")
    assert done.returncode == 0, done.stdout + done.stderr
    package = tmp_path / "work" / "acme-weather"
    # `toolplug install` puts the plugin into toolplug's own environment (no activation, no PATH lookup).
    done = _run([toolplug, "install", "-q", package], tmp_path, environment, timings, "install plugin")
    assert done.returncode == 0, done.stdout + done.stderr

    # A second package whose plugin takes an installed plugin's name is refused before pip runs.
    done = _run([toolplug, "new", "acme-storm", "--dir", tmp_path / "work"], tmp_path, environment, timings, "new 2")
    assert done.returncode == 0, done.stdout + done.stderr
    rival = tmp_path / "work" / "acme-storm"
    pyproject = rival / "pyproject.toml"
    pyproject.write_text(pyproject.read_text(encoding="utf-8").replace(
        'acme-storm = "acme_storm.plugin"', 'acme-weather = "acme_storm.plugin"'), encoding="utf-8")
    for refused in ([rival], ["web"]):  # an entry-point name; a distribution named like a built-in plugin
        done = _run([toolplug, "install", *refused], tmp_path, environment, timings, "install refused")
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Nothing was installed" in done.stderr
    done = _run([python, "-m", "pip", "show", "acme-storm"], tmp_path, environment, timings, "show")
    assert done.returncode != 0  # not installed

    done = _run([toolplug, "plugins", "--json"], package, environment, timings, "plugins")
    assert done.returncode == 0, done.stderr
    plugins = {record["name"]: record for record in json.loads(done.stdout)}
    assert plugins["acme-weather"]["status"] == "loaded"
    assert plugins["acme-weather"]["distribution"] == "acme-weather"
    assert plugins["acme-weather"]["hooks"] == ["register_option_sources", "register_tools"]

    done = _run([toolplug, "check"], package, environment, timings, "check")
    assert done.returncode == 0, done.stdout + done.stderr

    done = _run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], package, environment, timings, "tests")
    assert done.returncode == 0, done.stdout + done.stderr
    assert " passed" in done.stdout
    print(f"fresh-venv timings (s): {timings}, total {sum(timings.values()):.1f}")
