"""Fake installed distributions on sys.path for the hostile corpus.

A :class:`FakeSite` is a folder of modules and ``*.dist-info`` folders whose ``entry_points.txt`` name
plugins in the group ``toolplug``: to ``importlib.metadata`` they are installed distributions. Use the
``fake_site`` fixture (from ``tests/hostile/conftest.py``) in-process, or :meth:`FakeSite.run_cli` for a
``toolplug`` subprocess whose environment (``PYTHONPATH``, ``TOOLPLUG_CONFIG``) matters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

GOOD_TOOL = '''
import toolplug

@toolplug.tool
def {tool}(text: str) -> str:
    """Return the text in capitals."""
    return text.upper()

@toolplug.hookimpl
def register_tools():
    return [{tool}]
'''
"""A plugin module with one valid code tool; format it with ``tool=``."""

# Runs the CLI in a fresh interpreter, then writes which modules that interpreter imported.
_CLI_DRIVER = """
import json, sys
modules_file = sys.argv[1]
sys.argv = ["toolplug", *sys.argv[2:]]
try:
    from toolplug.cli import main
    main()
finally:
    with open(modules_file, "w", encoding="utf-8") as out:
        json.dump(sorted(sys.modules), out)
"""


@dataclass
class CliRun:
    """What a ``toolplug`` subprocess did: exit code, output and every module it imported."""

    returncode: int
    stdout: str
    stderr: str
    modules: frozenset[str]


@dataclass
class FakeSite:
    """A folder on sys.path holding fake installed distributions."""

    root: Path
    modules: set[str] = field(default_factory=set)
    """Every module name written here (removed from sys.modules after the test)."""

    def add(
        self,
        distribution: str,
        plugins: dict[str, str],
        modules: dict[str, str] | None = None,
        *,
        version: str = "1.0",
    ) -> Path:
        """Install ``distribution``: its entry points (plugin name -> ``module`` or ``module:attr``) and modules.

        ``modules`` maps module names to source (dedented); a dotted name becomes a package.
        Returns the dist-info folder.
        """
        for module, source in (modules or {}).items():
            self.write_module(module, source)
        info = self.root / f"{distribution.replace('-', '_')}-{version}.dist-info"
        info.mkdir(parents=True, exist_ok=True)
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n", encoding="utf-8"
        )
        lines = ["[toolplug]", *(f"{name} = {target}" for name, target in plugins.items())]
        (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        return info

    def write_module(self, module: str, source: str) -> Path:
        """Write ``module`` (``a.b`` becomes package ``a`` with module ``b``)."""
        parts = module.split(".")
        folder = self.root.joinpath(*parts[:-1])
        folder.mkdir(parents=True, exist_ok=True)
        for depth in range(1, len(parts)):
            init = self.root.joinpath(*parts[:depth], "__init__.py")
            if not init.exists():
                init.write_text("", encoding="utf-8")
            self.modules.add(".".join(parts[:depth]))
        path = folder / f"{parts[-1]}.py"
        path.write_text(textwrap.dedent(source), encoding="utf-8")
        self.modules.add(module)
        return path

    def marker(self, name: str) -> Path:
        """The file a module made by :meth:`marking` writes when it is imported."""
        return self.root.parent / f"{name}.imported"

    def marking(self, name: str, source: str = "") -> str:
        """``source`` preceded by a line that writes the marker file ``name`` on import."""
        return f"import pathlib as _p\n_p.Path({str(self.marker(name))!r}).write_text('imported')\n" + textwrap.dedent(
            source
        )

    def environment(self, **extra: str) -> dict[str, str]:
        """The environment of a subprocess that sees this site (and an in-memory keyring)."""
        env = dict(os.environ)
        paths = [str(self.root), *(p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p)]
        env["PYTHONPATH"] = os.pathsep.join(paths)
        env["PYTHON_KEYRING_BACKEND"] = "toolplug.memory_keyring.MemoryKeyring"
        env.pop("TOOLPLUG_CONFIG", None)
        env.update(extra)
        return env

    def run_cli(self, *args: str, env: dict[str, str] | None = None, timeout: float = 60) -> CliRun:
        """Run ``toolplug ARGS`` in a fresh interpreter; ``env`` adds to :meth:`environment`."""
        modules_file = self.root.parent / "cli-modules.json"
        modules_file.unlink(missing_ok=True)
        done = subprocess.run(
            [sys.executable, "-c", _CLI_DRIVER, str(modules_file), *args],
            capture_output=True,
            text=True,
            env=self.environment(**(env or {})),
            timeout=timeout,
            stdin=subprocess.DEVNULL,
            check=False,
        )
        modules = json.loads(modules_file.read_text(encoding="utf-8")) if modules_file.exists() else []
        return CliRun(done.returncode, done.stdout, done.stderr, frozenset(modules))

    def forget_modules(self) -> None:
        """Drop every module written here from sys.modules (so the next test imports afresh)."""
        for name in list(sys.modules):
            if name in self.modules or any(name.startswith(f"{m}.") for m in self.modules):
                sys.modules.pop(name, None)


__all__ = ["GOOD_TOOL", "CliRun", "FakeSite"]
