"""The docs site opened from disk (file://) in a real headless Chromium: a page, a link, a search."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from _browser import Browser, BrowserError, decode_png, find_chromium

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = find_chromium()


def test_the_site_config_works_offline() -> None:
    # REQ: UX-3 — page.html links, not folders; search bundled so it runs without a server.
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["use_directory_urls"] is False
    assert {"search", "offline"} <= {p if isinstance(p, str) else next(iter(p)) for p in config["plugins"]}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("docs") / "site"
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(folder)],
        cwd=ROOT, check=True, capture_output=True, timeout=300,
    )
    return folder


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium (Debian's package `chromium`) on this machine")
def test_the_built_docs_work_from_file_urls(site: Path) -> None:
    # REQ: UX-3 — a page renders, a link opens the other page (not a folder listing), search finds a word.
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as browser:
        browser.goto((site / "index.html").as_uri())
        assert browser.evaluate("document.querySelector('h1').textContent").strip()
        width, height, rows = decode_png(browser.screenshot())
        assert (width, height) == (1100, 900)
        assert len({row for row in rows}) > 10  # something was drawn, not a blank page

        browser.click(".md-content a[href='cli.html']")
        browser.wait_for("location.href.endsWith('/cli.html') && document.readyState === 'complete'")
        assert browser.evaluate("document.querySelector('h1').textContent").startswith("The command line")

        # On file:// the search loads its index when the search opens: open it as a click on its toggle does.
        browser.evaluate("document.getElementById('__search').click()")
        browser.click("input.md-search__input")
        browser.type_text("keyring")
        found = 0
        for _ in range(12):  # the index loads in a worker: on a busy machine the first query can come too early
            try:
                found = browser.wait_for("document.querySelectorAll('.md-search-result__item').length", timeout=5)
                break
            except BrowserError:  # ask again, as a reader who sees no results types once more
                browser.evaluate("document.querySelector('input.md-search__input').dispatchEvent(new Event('input'))")
        assert found, "search found nothing from file://"
        assert found > 0
        first = browser.evaluate("document.querySelector('.md-search-result__item a').getAttribute('href')")
        assert ".html" in first
        assert not browser.exceptions, browser.exceptions
