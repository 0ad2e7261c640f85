"""Fixtures of the hostile corpus."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from hostile._dists import FakeSite


@pytest.fixture
def fake_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeSite]:
    """An empty folder of fake installed distributions, first on sys.path for this test."""
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    site = FakeSite(root)
    yield site
    site.forget_modules()
    importlib.invalidate_caches()
