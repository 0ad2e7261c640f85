"""Every test runs with an in-memory keyring, a temporary settings folder and no host config."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
from hypothesis import settings

from toolplug.memory_keyring import MemoryKeyring

# Speed is measured in bench/, never asserted: a busy machine must not fail a property test.
# The suite's examples are the same on every run, so a run is reproducible and a red one says where;
# TOOLPLUG_HYPOTHESIS_EXPLORE=N draws N fresh random examples per property instead, to look for new failures.
settings.register_profile("toolplug", deadline=None, derandomize=True)
_explore = os.environ.get("TOOLPLUG_HYPOTHESIS_EXPLORE", "")
settings.register_profile("explore", deadline=None, max_examples=int(_explore or 0) or 100)
settings.load_profile("explore" if _explore else "toolplug")


@pytest.fixture(autouse=True)
def isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[MemoryKeyring]:
    """No test may touch a real user's files or keyring."""
    settings_dir = tmp_path / "settings"
    monkeypatch.setenv("TOOLPLUG_SETTINGS_DIR", str(settings_dir))
    monkeypatch.delenv("TOOLPLUG_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))  # no user's default config file
    monkeypatch.delenv("TOOLPLUG_STRICT_PLUGINS", raising=False)
    for name in [name for name in os.environ if name.startswith("TOOLPLUG_SECRET_")]:
        monkeypatch.delenv(name)  # a secret of the machine running the tests must never reach a tool
    previous = keyring.get_keyring()
    memory = MemoryKeyring()
    keyring.set_keyring(memory)
    yield memory
    keyring.set_keyring(previous)


@pytest.fixture
def memory_keyring(isolated_environment: MemoryKeyring) -> MemoryKeyring:
    """The in-memory keyring of this test."""
    return isolated_environment
