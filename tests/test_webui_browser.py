"""``toolplug web`` end to end: a real ``toolplug web`` process, a scripted provider, headless chromium.

Chromium is driven over the DevTools protocol (``tests/_browser.py``); the tests skip, saying why,
only where no chromium is installed (``.ci/run`` installs it).
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from _browser import Browser, decode_png, find_chromium, pixel, wait_until
from _provider_server import ProviderServer, provider_server
from _webui import API_KEY, HOSTILE, WebServer, answer, calls, web_server

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run installs it)"
)

SCREENSHOTS = Path(os.environ.get("TOOLPLUG_TEST_SCREENSHOTS") or Path(tempfile.gettempdir()) / "toolplug-screenshots")
"""Where the screenshots go (``$TOOLPLUG_TEST_SCREENSHOTS`` to keep them as CI artifacts)."""


@pytest.fixture(scope="module")
def provider() -> Iterator[ProviderServer]:
    with provider_server() as server:
        yield server


@pytest.fixture(scope="module")
def web(provider: ProviderServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    with web_server(tmp_path_factory.mktemp("web"), provider) as server:
        yield server


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as running:
        yield running


@pytest.fixture
def page(browser: Browser, web: WebServer, provider: ProviderServer) -> Browser:
    """The page with no stored chats, the token from the printed URL, a desktop-sized window."""
    browser.set_viewport(1100, 900)
    browser.goto(web.url)
    browser.evaluate("localStorage.clear()")
    browser.goto(web.url)
    browser.wait_for("document.querySelector('#provider').textContent.includes('scripted')")
    browser.console.clear()
    browser.exceptions.clear()
    with provider.lock:
        provider.script.clear()
    return browser


def ask(page: Browser, text: str) -> None:
    """Type a prompt and press Enter, as a person does."""
    page.click("#prompt")
    page.type_text(text)
    page.press("Enter")


def log_text(page: Browser) -> str:
    return str(page.evaluate("document.querySelector('#log').innerText"))


def card(call_id: str) -> str:
    return f"document.querySelector('.tool-card[data-tool-call-id=\"{call_id}\"]')"


def card_status(page: Browser, call_id: str) -> str | None:
    value = page.evaluate(f"(() => {{ const c = {card(call_id)}; return c && c.className; }})()")
    return None if value is None else str(value)


def wait_status(page: Browser, call_id: str, status: str) -> None:
    page.wait_for(
        f"(() => {{ const c = {card(call_id)}; return Boolean(c && c.classList.contains('status-{status}')); }})()",
        message=f"card {call_id} never showed {status} (it is {card_status(page, call_id)!r})",
    )


def idle(page: Browser) -> None:
    page.wait_for("document.querySelector('#stop').hidden", message="the run never ended")


def save_screenshot(page: Browser, name: str) -> bytes:
    png = page.screenshot()
    SCREENSHOTS.mkdir(exist_ok=True)
    (SCREENSHOTS / f"{name}.png").write_bytes(png)
    return png


# --- streaming -------------------------------------------------------------------------------------------


def test_a_streamed_answer_shows_while_it_arrives_renders_markdown_and_survives_a_reload(
    page: Browser, web: WebServer, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    gate = threading.Event()
    provider.reply(answer("Hello **world**, this is `code`. The end.", hold_after=4, gate=gate))
    ask(page, "Say hello")
    try:
        page.wait_for("document.querySelector('.message.assistant .text')?.innerText.includes('Hell')")
        shown = log_text(page)
        assert "The end." not in shown  # the answer is on the page before the provider finished it
        assert page.evaluate("!document.querySelector('#stop').hidden")
    finally:
        gate.set()
    page.wait_for("document.querySelector('#log').innerText.includes('The end.')")
    idle(page)
    assert page.evaluate("document.querySelector('.message.assistant strong').textContent") == "world"
    assert page.evaluate("document.querySelector('.message.assistant code').textContent") == "code"
    assert "**" not in log_text(page)
    # the chat is kept in the browser: a reload (the token stays for the tab) shows it again
    page.goto(web.base + "/")
    page.wait_for("document.querySelector('#log').innerText.includes('The end.')")
    assert "Say hello" in log_text(page)
    assert not page.exceptions


# --- a tool call ----------------------------------------------------------------------------------------------


def test_a_tool_call_shows_running_with_a_timer_then_its_output_sources_and_confidence(
    page: Browser, web: WebServer, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    provider.reply(calls(("g1", "gate", {"name": "t2"})), answer("The gate opened; see the sources."))
    ask(page, "Open the gate")
    wait_status(page, "g1", "running")
    wait_until(lambda: web.marked("started-t2"), message="the gate tool to start")
    assert "Gate keeper" in log_text(page)  # the tool's title
    first = page.wait_for(f"{card('g1')}.querySelector('.timer').textContent")
    page.wait_for(f"{card('g1')}.querySelector('.timer').textContent !== {json.dumps(first)}",
                  message="the timer of a running call does not advance")
    assert '"name": "t2"' in str(page.evaluate(f"{card('g1')}.querySelector('pre.input').textContent"))
    web.release("t2")
    wait_status(page, "g1", "done")
    page.wait_for("document.querySelector('#log').innerText.includes('see the sources')")
    idle(page)
    assert "The gate t2 opened." in str(page.evaluate(f"{card('g1')}.querySelector('.output').textContent"))
    sources = page.evaluate(
        "[...document.querySelectorAll('.message.assistant .sources a')].map(a => [a.textContent, a.href])"
    )
    assert sources == [["Alpha page", "https://example.org/alpha"], ["Beta page", "https://example.org/beta"]]
    # the sources come after the answer
    assert page.evaluate("document.querySelector('.message.assistant').lastElementChild.className") == "sources"
    banner = str(page.evaluate("document.querySelector('#confidence').innerText"))
    assert "medium" in banner and page.evaluate("!document.querySelector('#confidence').hidden")

    png = save_screenshot(page, "tool-card")
    width, height, rows = decode_png(png)
    colours = {pixel(rows, x, y) for y in range(0, height, 7) for x in range(0, width, 7)}
    assert len(colours) > 20, "the screenshot is blank"
    box = page.evaluate(
        f"(() => {{ const r = {card('g1')}.getBoundingClientRect(); return [r.left, r.top, r.height]; }})()"
    )
    left, top, card_height = (int(value) for value in box)
    red, green, blue = pixel(rows, left + 1, top + card_height // 2)  # the card's left border: done is green
    assert (red, green, blue) == pytest.approx((0x1D, 0x7A, 0x46), abs=12), (red, green, blue)
    assert pixel(rows, left + 12, top + card_height // 2) == pytest.approx((255, 255, 255), abs=8)


def test_a_file_in_a_tool_output_is_a_placeholder_and_json_is_pretty(page: Browser, provider: ProviderServer) -> None:
    # REQ: LOOP-16
    provider.reply(calls(("p1", "picture", {}), ("l1", "lookup", {"query": "q"})), answer("Drawn."))
    ask(page, "Draw")
    page.wait_for("document.querySelector('#log').innerText.includes('Drawn.')")
    idle(page)
    output = str(page.evaluate(f"{card('p1')}.querySelector('.output').innerText"))
    assert "a chart" in output and "[file: image, image/png" in output
    assert "iVBOR" not in output
    assert page.evaluate("document.querySelectorAll('#log img').length") == 0
    assert '"hits": 2' in str(page.evaluate(f"{card('l1')}.querySelector('.output').textContent"))


# --- approvals ----------------------------------------------------------------------------------------------


def test_an_approval_clicked_runs_the_call_and_a_denial_with_a_reason_reaches_the_model(
    page: Browser, web: WebServer, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    page.set_viewport(390, 844, mobile=True)  # a phone-sized window
    provider.reply(
        calls(("d1", "delete_file", {"path": "a.txt"}), ("d2", "delete_file", {"path": "b.txt"})),
        answer("One file deleted, one kept."),
    )
    ask(page, "Delete both files")
    wait_status(page, "d1", "needs-approval")
    wait_status(page, "d2", "needs-approval")
    idle(page)
    assert not web.marked("deleted-a.txt")
    # the keyboard: focus is on the first Approve button; Enter approves
    page.wait_for("document.activeElement?.classList.contains('approve')")
    page.press("Enter")
    wait_status(page, "d1", "approved")
    page.click(".tool-card[data-tool-call-id='d2'] button.deny")
    page.wait_for("document.activeElement?.name === 'reason'")
    page.type_text("keep b, it is needed")
    page.press("Enter")
    page.wait_for("document.querySelector('#log').innerText.includes('One file deleted, one kept.')")
    idle(page)
    wait_status(page, "d1", "done")
    wait_status(page, "d2", "denied")
    assert web.marked("deleted-a.txt") and not web.marked("deleted-b.txt")
    assert "Denied: keep b, it is needed" in str(page.evaluate(f"{card('d2')}.innerText"))
    assert "keep b, it is needed" in json.dumps(provider.requests[-1].body)  # the model read the reason
    assert page.evaluate("document.documentElement.scrollWidth") <= 390, "the page is wider than the phone"
    assert page.evaluate(f"{card('d2')}.getBoundingClientRect().right") <= 390
    save_screenshot(page, "approval-phone")


# --- untrusted content ------------------------------------------------------------------------------------


def test_markup_in_a_tool_output_and_in_the_answer_stays_text_and_runs_nothing(
    page: Browser, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    provider.reply(
        calls(("h1", "hostile", {})),
        answer(f"Look: {HOSTILE} [click me](javascript:window.__pwned=3) and ![x](https://example.org/x.png) end"),
    )
    ask(page, "Show me markup")
    page.wait_for("document.querySelector('#log').innerText.includes(' end')")
    idle(page)
    assert page.evaluate("window.__pwned === undefined")
    assert page.evaluate("document.querySelectorAll('#log img, #log script, #log iframe').length") == 0
    output = str(page.evaluate(f"{card('h1')}.querySelector('.output').textContent"))
    assert '<img src=x onerror="window.__pwned = 1">' in output and "<script>" in output
    answer_text = str(page.evaluate("document.querySelectorAll('.message.assistant .text')[1].textContent"))
    assert "<script>window.__pwned = 2</script>" in answer_text
    assert not page.evaluate("[...document.querySelectorAll('#log a')].some(a => !/^https?:/.test(a.href))")
    assert page.evaluate("document.querySelector('#log').innerText.includes('click me (javascript:')")
    assert not page.exceptions
    assert not any("Refused" in entry or "Trusted Type" in entry for entry in page.log_entries + page.console)


# --- access -----------------------------------------------------------------------------------------------------


def test_requests_without_the_token_from_another_origin_or_host_are_refused(page: Browser, web: WebServer) -> None:
    # REQ: LOOP-16
    body = {"id": "c", "messages": [{"id": "u", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]}
    before = len(web.provider.requests)
    assert web.post_chat(body).status_code == 401
    assert web.post_chat(body, authorization="Bearer wrong").status_code == 401
    assert httpx2.get(web.api("/api/tools"), timeout=10).status_code == 401
    cross = web.post_chat(body, **web.headers(origin="http://evil.example"))
    assert cross.status_code == 403 and "origin" in cross.json()["error"]
    rebound = httpx2.get(web.api("/api/tools"), headers=web.headers(host="evil.example:8765"), timeout=10)
    assert rebound.status_code == 421
    assert httpx2.get(web.api("/"), headers={"host": "evil.example"}, timeout=10).status_code == 421
    assert len(web.provider.requests) == before  # nothing above reached a model
    # the page opened without the token says what to do and sends nothing
    page.evaluate("sessionStorage.clear()")
    page.goto(web.base + "/")
    page.wait_for("!document.querySelector('#notice').hidden")
    assert "token" in str(page.evaluate("document.querySelector('#notice').textContent"))
    assert page.evaluate("document.querySelector('#send').disabled")


def test_no_secret_reaches_the_page_even_from_a_tool_that_leaks_the_provider_key(
    page: Browser, web: WebServer, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    provider.reply(calls(("k1", "leak", {})), answer(f"The key is {API_KEY}."))
    ask(page, "Leak it")
    page.wait_for("document.querySelector('#log').innerText.includes('The key is')")
    idle(page)
    html = str(page.evaluate("document.documentElement.outerHTML"))
    stored = str(page.evaluate("JSON.stringify(localStorage)"))
    assert API_KEY not in html and API_KEY not in stored
    assert "[redacted]" in log_text(page)
    for path in ("/", "/static/app.js", "/static/markdown.js", "/static/app.css"):
        assert API_KEY not in httpx2.get(web.api(path), timeout=10).text
    tools = httpx2.get(web.api("/api/tools"), headers=web.headers(), timeout=10).text
    assert API_KEY not in tools and web.token not in tools


# --- stop -------------------------------------------------------------------------------------------------------


def test_stop_cancels_the_running_call_and_the_queued_one_never_starts(
    page: Browser, web: WebServer, provider: ProviderServer
) -> None:
    # REQ: LOOP-16
    provider.reply(calls(("s1", "slow", {"name": "s1", "seconds": 30}), ("s2", "slow", {"name": "s2", "seconds": 30})))
    before = len(provider.requests)
    ask(page, "Sleep twice")
    wait_until(lambda: web.marked("started-s1"), message="the first call to start")
    wait_status(page, "s1", "running")
    wait_status(page, "s2", "queued")
    page.click("#stop")
    wait_until(lambda: web.marked("cancelled-s1"), timeout=10, message="the running call to be cancelled")
    time.sleep(1.0)  # the queued call would start at once if it were going to
    assert not web.marked("started-s2") and not web.marked("finished-s1")
    idle(page)
    page.wait_for("document.querySelector('#log').innerText.includes('Stopped.')")
    wait_status(page, "s1", "stopped")
    wait_status(page, "s2", "not-run")
    assert len(provider.requests) == before + 1  # no model call after the stop
