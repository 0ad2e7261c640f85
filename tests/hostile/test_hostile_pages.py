"""Hostile pages: nesting deeper than any real page, floods of siblings, attributes, entities and unclosed
markup. Each extracts in roughly linear time to text (or nothing), never an exception.

No timings are asserted: the sizes are chosen so that a walk quadratic in depth (or a recursion per level)
would fail outright or take minutes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from _web_server import Reply, WebTestServer, running_server

import toolplug_web.plugin as web_plugin
from toolplug.definitions import ConfidenceLevel
from toolplug.execution import CallScope, CallStatus, ToolExecutor
from toolplug.registry import Origin, ToolRegistry
from toolplug.web import extract
from toolplug_web.tools import ReadWebPageTool

TEXT = "Hello world, this is the text at the bottom of the page."
DEEP = 50_000
"""Past a thousand levels a recursion per level fails; at this depth a walk quadratic in depth takes minutes."""


def nested(opening: str, depth: int, *, closed: bool = True) -> str:
    """``opening`` (``"ul><li"`` for several tags per level) ``depth`` times around a paragraph of TEXT."""
    closing = "".join(f"</{tag}>" for tag in reversed(opening.split("><"))) if closed else ""
    return f"<html><body>{f'<{opening}>' * depth}<p>{TEXT}</p>{closing * depth}</body></html>"


# REQ: WEB-3
@pytest.mark.parametrize(
    "opening",
    ["div", "span", "section", "blockquote", "ul><li", "ol><li", "dl><dd", "table><tr><td", "b", "em", "a href='/x'",
     "h2", "pre", "code", "font", "article", "form"],
)
def test_nesting_50000_deep_of_each_kind_keeps_the_text(opening: str) -> None:
    page = extract(nested(opening, DEEP), url="http://127.0.0.1/")
    assert "Hello world" in page.markdown


# REQ: WEB-3
def test_nesting_200000_div_deep_keeps_the_text() -> None:
    assert TEXT in extract(nested("div", 200_000)).markdown


# REQ: WEB-3
@pytest.mark.parametrize("opening", ["div", "blockquote", "ul><li", "table><tr><td", "span"])
def test_deep_tags_never_closed_keep_the_text(opening: str) -> None:
    assert "Hello world" in extract(nested(opening, DEEP, closed=False)).markdown


# REQ: WEB-3
@pytest.mark.parametrize("opening", ["iframe", "noscript", "template", "script", "style", "svg", "textarea"])
def test_deep_nesting_of_dropped_elements_extracts_cleanly(opening: str) -> None:
    page = extract("<html><body><p>Before the hostile part of the page.</p>" + nested(opening, DEEP) + "</body></html>")
    assert "Before the hostile part" in page.markdown


# REQ: WEB-3
def test_deep_hidden_elements_stay_hidden_below_the_depth_cap() -> None:
    html = ("<html><body><p>Visible text of the page.</p>" + "<div>" * DEEP
            + "<p>deep visible words</p><div hidden>secret hidden words</div>" + "</div>" * DEEP + "</body></html>")
    markdown = extract(html).markdown
    assert "deep visible words" in markdown and "secret hidden words" not in markdown


# REQ: WEB-3
def test_deep_scripts_stay_dropped_below_the_depth_cap() -> None:
    html = "<html><body>" + "<div>" * DEEP + "<p>deep words</p><script>var secret = 1;</script>" + "</body></html>"
    markdown = extract(html).markdown
    assert "deep words" in markdown and "secret" not in markdown


# REQ: WEB-3
def test_nesting_of_mixed_kinds_past_the_cap_keeps_the_text() -> None:
    level = "<div><ul><li><blockquote><table><tr><td><b><h3><section>"
    html = "<html><body>" + level * 5_000 + f"<p>{TEXT}</p></body></html>"
    assert "Hello world" in extract(html).markdown


# REQ: WEB-3
@pytest.mark.parametrize(
    "sibling",
    ["<p>word of a paragraph</p>", "<li><a href='/x'>link</a></li>", "<h2><a href='/x'>Teaser</a></h2>",
     "<h3>Related stories</h3>", "<tr><td>a</td><td>b</td></tr>", "<span>a</span>", "<br>", "<td rowspan=0>x</td>"],
)
def test_30000_siblings_extract(sibling: str) -> None:
    extract("<html><body><article><p>" + TEXT + "</p>" + sibling * 30_000 + "</article></body></html>")


# REQ: WEB-3
def test_huge_class_and_id_attributes_extract() -> None:
    names = " ".join(f"comment-{n} widget-{n} content-{n}" for n in range(50_000))
    html = f"<html><body><div class='{names}' id='{names}'><p>{TEXT}</p></div><p>{TEXT}</p></body></html>"
    assert "Hello world" in extract(html).markdown


# REQ: WEB-3
@pytest.mark.parametrize("opener", ["<!-- ", "<![CDATA[ ", "<script>", "<style>", "<textarea>", "<title>", "<iframe>",
                                    "<div class='", "<a href=\"", "<"])
def test_markup_never_closed_extracts_the_text_before_it(opener: str) -> None:
    html = f"<html><body><article><p>{TEXT}</p>{opener}" + "<div><p>lots of text " * 200_000
    assert "Hello world" in extract(html).markdown


# REQ: WEB-3
def test_nul_bytes_and_lone_surrogate_entities_give_valid_text() -> None:
    html = f"<html><body><p>{TEXT} a\x00b &#xD800; &#0; &#xDFFF; &#x110000; &#55296; \ud800 c</p></body></html>"
    markdown = extract(html).markdown
    markdown.encode("utf-8")  # no lone surrogate reaches the model (or a JSON encoder)
    assert "Hello world" in markdown


# REQ: WEB-3
@pytest.mark.parametrize("entity", ["&amp;", "&#x41;", "&lt;div&gt;", "&nbsp;", "&notanentity;", "&#xD800;"])
def test_a_million_entities_extract(entity: str) -> None:
    assert "Hello world" in extract(f"<html><body><p>{TEXT}</p><p>{entity * 1_000_000}</p></body></html>").markdown


# REQ: WEB-3
@pytest.mark.parametrize("tag", ["<div>", "<p>", "<li>", "<b>", "<td>", "<br>", "</div>"])
def test_a_body_of_2_megabytes_of_one_tag_extracts(tag: str) -> None:
    extract(f"<html><body><p>{TEXT}</p>" + tag * (2_000_000 // len(tag)))


# --- through the tool -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[WebTestServer]:
    with running_server() as running:
        yield running


def read(server: WebTestServer, path: str) -> tuple[CallStatus, str]:
    sources = [source.name for source in web_plugin.register_option_sources()]
    registry = ToolRegistry(option_sources=sources)
    tool = ReadWebPageTool()
    definition = tool.definition()
    assert definition is not None
    registered = registry.add(definition, {tool.implementation_key: (tool, Origin("web"))}, Origin("web"))
    assert registered is not None
    executor = ToolExecutor(settings_lookup=lambda _tool: ({"private_hosts": "127.0.0.1"}, ()))
    outcome = asyncio.run(executor.execute(registered, {"url": server.url(path)},
                                           scope=CallScope(provider_confidence=ConfidenceLevel.HIGH)))
    return outcome.status, outcome.text


# REQ: WEB-3
# REQ: WEB-5
@pytest.mark.parametrize("opening", ["div", "ul><li", "table><tr><td", "blockquote"])
def test_read_web_page_reads_a_page_nested_100000_deep(server: WebTestServer, opening: str) -> None:
    server.routes["/deep"] = Reply(body=nested(opening, 100_000))
    status, text = read(server, "/deep")
    assert status is CallStatus.OK, text
    assert "Hello world" in text and "Traceback" not in text
