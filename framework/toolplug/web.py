"""Web pages for models: retrieval through :mod:`toolplug.net`, readable Markdown, budget, sanitizer.

- :func:`extract` turns HTML into an :class:`ExtractedWebPage`: Markdown of the main content with
  navigation, headers, footers, asides, cookie banners, scripts, styles and hidden elements removed,
  plus title, description, author and published date. Built on selectolax (parsing, choosing
  the main content, pruning boilerplate, and writing Markdown straight from its nodes), imported on
  first use so importing toolplug stays cheap.
- :func:`retrieve` fetches one page under a :class:`~toolplug.net.TargetPolicy` and extracts it.
  Hosts use it directly for pages a user typed (with ``TargetPolicy.user_chosen()``).
- :func:`allocate_budget` shares a character budget between results.
- :class:`WebPageContentSanitizer` passes every field that reaches the model through the
  prompt-injection guard in one batch, after truncation.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from toolplug.guard import InjectionSource, InjectionText, PromptInjectionGuard
from toolplug.net import PUBLIC_ONLY, SafeHTTPClient, TargetPolicy, UnsupportedContentTypeError

if TYPE_CHECKING:
    from toolplug.execution import ToolExecutionContext

DEFAULT_PAGE_MAX_BYTES = 5 * 1024 * 1024
HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
TRUNCATION_MARK = "\n\n[…]"


@dataclass(frozen=True, slots=True)
class ExtractedWebPage:
    """The readable part of a web page."""

    markdown: str
    """Markdown of the main content."""
    title: str = ""
    description: str = ""
    author: str = ""
    published: str = ""
    """The publication date as the page states it (ISO 8601 when the page gives one)."""
    url: str = ""
    """The final URL after redirects (or the URL given to :func:`extract`)."""
    likely_needs_javascript: bool = False
    """Little or no content, and signs that the page renders in the browser."""

    @property
    def is_empty(self) -> bool:
        """True when there is no readable text."""
        return not self.markdown.strip()


# --- extraction -----------------------------------------------------------------------------------

_DROP_TAGS = (
    "script", "style", "noscript", "template", "iframe", "svg", "canvas", "object", "embed", "button", "input",
    "select", "textarea", "link", "meta", "dialog", "map", "audio", "video", "source", "track",
)
_DROP_SELECTOR = ", ".join(_DROP_TAGS)
_BOILERPLATE_TAGS = ("nav", "aside", "footer")
_BOILERPLATE_ROLES = (
    '[role="navigation"]', '[role="banner"]', '[role="contentinfo"]', '[role="complementary"]', '[role="search"]',
    '[role="dialog"]', '[role="alertdialog"]', '[role="menu"]', '[role="menubar"]', '[role="toolbar"]',
)
# One selector pass finds them all (an attribute test per element is cheaper than ten).
_BOILERPLATE = ", ".join((*_BOILERPLATE_TAGS, "[role]"))
_BOILERPLATE_ROLE_NAMES = frozenset(selector.split('"')[1] for selector in _BOILERPLATE_ROLES)
_NEGATIVE_WORDS = frozenset(
    [
        "comment", "comments", "commentlist", "comment-list", "disqus", "cookie", "cookies", "consent", "gdpr",
        "cmp", "newsletter", "subscribe", "subscription", "signup", "promo", "promotion", "sponsor",
        "sponsored", "advert", "advertisement", "ads", "ad", "adslot", "adunit", "dfp", "outbrain", "taboola",
        "share", "sharing", "sharebar", "social", "socials", "follow", "related", "recommended",
        "recommendations", "readmore", "read-more", "more-stories", "mostpopular", "most-popular", "popular",
        "trending", "breadcrumb", "breadcrumbs", "crumb", "crumbs", "pagination", "pager", "nav", "navbar",
        "navigation", "menu", "sidebar", "widget", "footer", "masthead", "skip-link", "sr-only", "visually-hidden",
        "screen-reader-text", "print-only", "toolbar", "tags", "taglist", "tag-list", "author-bio", "byline",
        "post-meta", "article-meta", "entry-meta", "paywall", "inline-ad", "caption", "captions", "credit",
        "credits", "timestamp", "dateline", "date", "disclosure", "affiliate", "author", "bio", "related-posts",
        "newsletter-signup", "inline-newsletter", "error", "relatedposts", "relatedarticles", "relatedstories",
        "relatedcontent", "relatedlinks", "sharedaddy", "sharethis", "addthis", "addtoany",
    ]
)
_STRONG_NEGATIVE = frozenset({"comment", "comments", "commentlist", "comment-list", "disqus", "outbrain", "taboola"})
# Words that name furniture only as the last part of a name: "geolocate-error" is an error message, "error-handling"
# a section on the topic.
_LAST_PART_NEGATIVE = frozenset({"error"})
# A class naming a state ("comments-open", "has-sidebar") describes the page, not the element.
_STATE_PARTS = frozenset({"enabled", "disabled", "open", "closed", "active", "js", "has", "is", "no", "show", "count"})
# Structural words say nothing; the other parts of the name decide ("related-wrap" is related stories).
_NEUTRAL_PARTS = frozenset({"wrapper", "wrap", "container", "inner", "outer", "holder", "area", "box", "block", "col",
                            "row", "section", "module", "component", "region", "zone", "group"})
# A name ending in a content word is a content element ("article-body", "post-content", "nav-text").
_CONTENT_PARTS = frozenset({"body", "content", "text", "article", "post", "entry", "story", "main", "copy", "prose"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _negative_kind(node: Any, ignored: frozenset[str] = frozenset()) -> str:
    """``strong`` for comment sections and ad networks, ``weak`` for other boilerplate, else ``""``; the words
    ``ignored`` say nothing."""
    attributes = node.attributes
    identifier = attributes.get("id") or ""
    if identifier and node.tag in _HEADINGS and _spells_own_words(identifier, node):
        identifier = ""  # an anchor to the heading made of its words ("h-how-to-share-a-post"), not a kind
    names = attributes.get("class") or ""
    kind = _negative_kind_of(f"{names} {identifier}", ignored)
    if kind == "weak" and identifier and node.tag not in _HEADINGS and _anchors_its_heading(identifier, node):
        return _negative_kind_of(names, ignored)
    return kind


def _anchors_its_heading(identifier: str, node: Any) -> bool:
    """``identifier`` is the anchor of the section that ``node`` opens with a heading: each of its words (two
    or more) is a word of that heading ("sharing-with-a-single-developer" over "Sharing with a single developer",
    as documentation generators name sections). Asked only of weak names: a section headed "Reader comments"
    is a comment section whatever its anchor; a heading that names furniture goes with its section anyway."""
    parts = [part for part in _NAME_PARTS.split(identifier.lower()) if part]
    if len(parts) < 2:
        return False
    heading = node.css_first("h1, h2, h3, h4, h5, h6")
    if heading is None or not _opens(node, heading):
        return False
    words = set(_WORD.findall(heading.text().lower()))
    return all(part in words for part in parts)


def _opens(node: Any, heading: Any) -> bool:
    """No text in ``node`` comes before ``heading``."""
    for text_node in node.traverse(include_text=True):
        if text_node.mem_id == heading.mem_id:
            return True
        if text_node.tag == "-text" and (text_node.text_content or "").strip():
            return False
    return False


def _spells_own_words(identifier: str, node: Any) -> bool:
    """``identifier`` is three or more words, two thirds of them the node's own."""
    parts = [part for part in _NAME_PARTS.split(identifier.lower()) if part]
    if len(parts) < 3:
        return False
    words = set(_WORD.findall(node.text().lower()))
    return sum(part in words for part in parts) * 3 >= len(parts) * 2


@functools.lru_cache(maxsize=4096)
def _negative_kind_of(names: str, ignored: frozenset[str] = frozenset()) -> str:
    """What ``names`` (class and id) say: ``strong``, ``weak`` or ``""``, leaving the words ``ignored`` out
    (:data:`_WIDGET_WORD`: on a page builder's page, every block is a "widget")."""
    kind = ""
    for token in _CAMEL.sub("-", names).lower().split():
        if token in _NEGATIVE_WORDS and token not in ignored:
            return "strong" if token in _STRONG_NEGATIVE else "weak"
        parts = [part for part in _NAME_PARTS.split(token) if part and part not in _NEUTRAL_PARTS]
        if ignored:
            parts = [part for part in parts if part not in ignored]
        if not parts or any(part in _STATE_PARTS for part in parts):
            continue
        if parts[-1] in _CONTENT_PARTS:
            # "article-body" is the article; "comment-body" is still a comment's (the content word names its
            # part, the other word what it is part of).
            for index, part in enumerate(parts):
                if part in _STRONG_NEGATIVE and not _names_an_action(parts, index):
                    return "strong"
            continue
        for index, part in enumerate(parts):
            if part in _NEGATIVE_WORDS and (part not in _LAST_PART_NEGATIVE or index == len(parts) - 1):
                if part in _STRONG_NEGATIVE and not _names_an_action(parts, index):
                    return "strong"
                kind = "weak"
    return kind


# "commentOnSelection", "comment-on-highlight": the word names what one does to the block (a feature), not what
# the block holds; such a block is often the article itself.
_ACTION_LINKS = frozenset({"on", "to", "for", "in", "at", "with", "by", "from", "upon", "over"})


def _names_an_action(parts: list[str], index: int) -> bool:
    return index + 1 < len(parts) and parts[index + 1] in _ACTION_LINKS


_NAME_PARTS = re.compile(r"[-_]")
_WORD = re.compile(r"\w+")
_POSITIVE = re.compile(
    r"article|body|content|entry|main|page|post|text|blog|story|prose|markdown|rich-?text|paragraph", re.I
)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_JS_ROOT_IDS = ("root", "app", "__next", "__nuxt", "svelte", "main-app")


def extract(
    html: str,
    url: str | None = None,
    *,
    content_selector: str | None = None,
    include_images: bool = False,
    remove_hidden: bool = True,
) -> ExtractedWebPage:
    """Extract the main content of ``html`` as Markdown, with the page's metadata.

    :param url: the page's URL; relative links become absolute against it.
    :param content_selector: a CSS selector choosing the main content (e.g. ``article``); the
        automatic choice is used when it matches nothing.
    :param include_images: keep images as Markdown images (removed by default).
    :param remove_hidden: remove elements hidden with ``hidden``, ``aria-hidden`` or inline styles. When
        hidden elements hold nearly all of the page's text (at least 80% of 1000 characters or more), the
        page shows its content by script once loaded; then the large ones (each a quarter of the text or
        more) stay and the small ones still go.
    """
    from selectolax.lexbor import LexborHTMLParser

    html = _flatten_deep_markup(html)
    tree = LexborHTMLParser(html)
    meta = _metadata(tree)
    if (tree.body or tree.root) is None:
        return ExtractedWebPage("", title=meta["title"], url=url or "")
    streamed = 'hidden id="S:' in html  # a substring scan costs a fraction of a pattern's search
    options = _Options(meta["title"], url, content_selector, include_images, remove_hidden, streamed, meta["author"])
    main, before = _main_content(tree, options)
    after = len(main.text(strip=True))
    if before >= _WIPED_OUT_FROM and after < before * _WIPED_OUT_SHARE:
        # The cleaning removed nearly all of the chosen content: class names that mean furniture on
        # most sites (a "widget") name every block of the article on some (page builders). Again,
        # trusting only the surer signals.
        retry_tree = LexborHTMLParser(html)
        retry, _ = _main_content(retry_tree, replace(options, gentle=True))
        if len(retry.text(strip=True)) > after:
            tree, main = retry_tree, retry
    markdown = _to_markdown(main, include_images)
    title = meta["title"]
    needs_js = len(markdown) < 200 and (
        any(tree.css_first(f"#{root_id}") is not None for root_id in _JS_ROOT_IDS) or _has_script_signs(html)
    )
    return ExtractedWebPage(
        markdown=markdown,
        title=title,
        description=meta["description"],
        author=meta["author"],
        published=meta["published"],
        url=url or "",
        likely_needs_javascript=needs_js,
    )


def _has_script_signs(html: str) -> bool:
    """Three scripts or more, or a ``<noscript>`` asking for JavaScript. Asked only of pages that came out
    (nearly) empty, on a fresh parse: the cleaning has removed the scripts from the page's tree."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    if len(tree.css("script")) >= 3:
        return True
    noscript_text = " ".join(node.text(strip=True) for node in tree.css("noscript"))[:2000]
    return "javascript" in noscript_text.lower()


_WIPED_OUT_FROM = 500
_WIPED_OUT_SHARE = 0.2


@dataclass(frozen=True, slots=True)
class _Options:
    title: str
    url: str | None
    content_selector: str | None
    include_images: bool
    remove_hidden: bool
    streamed: bool
    """The page may stream parts of its content in hidden segments (see :func:`_reveal_streamed`)."""
    author: str = ""
    """Who the page's metadata says wrote it."""
    gentle: bool = False
    """Keep blocks whose class names only suggest furniture (a retry when the cleaning left nothing)."""


def _main_content(tree: Any, options: _Options) -> tuple[Any, int]:
    """The main content of ``tree``, cleaned, and the length of its text before the cleaning (0 when
    ``content_selector`` chose it)."""
    if options.streamed:
        _reveal_streamed(tree)
    controlled = _controlled_ids(tree) if options.remove_hidden else set()  # read before buttons are dropped
    for node in tree.css(_DROP_SELECTOR):  # one pass, not one per tag as strip_tags makes
        node.decompose(recursive=False)
    _flatten_deep(tree, options.remove_hidden)
    if options.remove_hidden:
        _remove_hidden(tree, controlled)
    if not options.include_images:
        # A figure without its picture is a caption and a credit line, not article text.
        for node in tree.css("figure, figcaption"):
            if node.parent is not None and node.css_first("pre, table, blockquote, ol, ul") is None:
                node.decompose()
    main: Any = tree.css_first(options.content_selector) if options.content_selector else None
    before = 0
    if main is None:
        _remove_boilerplate(tree)
        chosen, prose_lengths = _choose_main(tree)
        main = chosen or tree.body or tree.root
        _drop_slideshows(main)  # before the measure: the show's captions can outweigh the article
        _drop_repeated_blocks(main, prose_lengths)
        before = len(main.text(strip=True))
    if not options.include_images:
        _drop_image_captions(main)
        main.strip_tags(["img", "picture"])
    _clean_inside(main, options.gentle, _site_of(options.url or ""))
    _drop_clutter(main, options.author)
    _drop_title_heading(main, options.title)
    if options.url:
        _absolute_links(main, options.url, options.include_images)
    return main, before


# --- hostile depth ----------------------------------------------------------------------------------
# Real pages nest 20 to 60 elements deep. Past these depths a page is hostile (or broken): the parser's scope
# checks grow with the depth of the open elements (quadratic time), and the Markdown writer recurses per level.
_MAX_DEPTH = 200
"""Elements below this depth are read as flat text (the writer's recursion stays far within Python's limit)."""
_MAX_MARKUP_DEPTH = 1024
"""Start tags opening past this depth (as a scan of the markup counts it) are read as text before parsing."""
_VOID_OR_IMPLIED = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
        "param", "keygen", "frame", "basefont", "bgsound", "image", "html", "head", "body", "p", "li", "dt", "dd",
        "option", "optgroup", "tr", "td", "th", "thead", "tbody", "tfoot", "colgroup", "caption", "rb", "rt",
        "rtc", "rp", "a",
    }
)
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})
_MARKUP = re.compile(r"<(?:!--|(/?)([A-Za-z][^\s/>]*))")
_LOOKS_HIDDEN = re.compile(r"\bhidden\b|aria-hidden\s*=\s*[\"']?true|display\s*:\s*none", re.I)
_SMALL_MARKUP = 8192
"""Tags the parser takes in little time however they nest: a page with fewer is not scanned."""


def _flatten_deep_markup(html: str) -> str:
    """``html`` with the tags that open past :data:`_MAX_MARKUP_DEPTH` (and their end tags) as spaces.

    A linear scan that counts elements as the parser nests them, roughly: void elements and those whose
    end tag may be left out do not count, an end tag closes up to its open element, comments and raw text
    (scripts, styles) are skipped. It only has to keep the parser's stack short; the exact cap is
    :func:`_flatten_deep` on the parsed tree. Pages within the depth come back as the same string.
    """
    if html.count("<") <= _SMALL_MARKUP:
        return html
    cuts = _MarkupDepth().cuts_in(html)
    if not cuts:
        return html
    pieces = []
    last = 0
    for start, stop in cuts:
        pieces.append(html[last:start])
        pieces.append(" ")
        last = stop
    pieces.append(html[last:])
    return "".join(pieces)


class _MarkupDepth:
    """The elements open at a point of the markup, as :func:`_flatten_deep_markup` counts them."""

    def __init__(self) -> None:
        self.stack: list[str] = []
        self.open: dict[str, int] = {}
        self.dropped: dict[str, int] = {}

    def cuts_in(self, html: str) -> list[tuple[int, int]]:
        """The spans of the tags past :data:`_MAX_MARKUP_DEPTH` (start tags, and the end tags closing them)."""
        cuts = []
        position = 0
        while (match := _MARKUP.search(html, position)) is not None:
            slash, name = match.groups()
            if name is None:  # a comment, up to its end (or the page's)
                end = html.find("-->", match.end())
                position = len(html) if end < 0 else end + 3
                continue
            end = html.find(">", match.end())
            if end < 0:
                break
            position = end + 1
            name = name.lower()
            if not slash and name in _RAW_TEXT:
                closing = re.compile(f"</{re.escape(name)}", re.I).search(html, position)
                position = len(html) if closing is None else closing.start()
            elif not self.tag(bool(slash), name, html[end - 1] == "/"):
                if not slash and (name in _DROP_TAGS or _LOOKS_HIDDEN.search(html, match.end(), end)):
                    # Dropped or hidden: its content goes with it, as the tree's cleaning would take it.
                    self.dropped[name] -= 1
                    position = self.end_of(html, name, position)
                cuts.append((match.start(), position))
        return cuts

    @staticmethod
    def end_of(html: str, name: str, position: int) -> int:
        """Where the element ``name`` opened before ``position`` ends (its end tag included), nested ones counted;
        the end of the page if it never does."""
        pattern = re.compile(f"<(/?){re.escape(name)}(?=[\\s/>])[^>]*>?", re.I)
        level = 1
        for match in pattern.finditer(html, position):
            level += -1 if match.group(1) else 1
            if not level:
                return match.end()
        return len(html)

    def tag(self, end: bool, name: str, self_closing: bool) -> bool:
        """Count the tag; False for a tag to cut."""
        stack, open_names = self.stack, self.open
        if end:
            if self.dropped.get(name):
                self.dropped[name] -= 1
                return False
            if open_names.get(name):
                while stack:
                    top = stack.pop()
                    open_names[top] -= 1
                    if top == name:
                        break
            return True
        if name in _VOID_OR_IMPLIED or (self_closing and (open_names.get("svg") or open_names.get("math"))):
            return True
        if len(stack) >= _MAX_MARKUP_DEPTH:
            self.dropped[name] = self.dropped.get(name, 0) + 1
            return False
        stack.append(name)
        open_names[name] = open_names.get(name, 0) + 1
        return True


def _flatten_deep(tree: Any, remove_hidden: bool) -> None:
    """Read each element at :data:`_MAX_DEPTH` as its text (hidden elements in it go first, with their text,
    when ``remove_hidden``): every later walk of the tree, and the writer's recursion, stays within the depth.

    A list or table there is read from its outermost list or table below a block: text straight inside a
    list or between table cells is not written."""
    root = tree.root
    if root is None or tree.css_first(_AT_MAX_DEPTH) is None:
        return  # the selector engine answers in C what the walk below asks of every element in Python
    depths = {root.mem_id: 0}
    flattened: dict[int, Any] = {}
    for node in root.traverse(include_text=False):
        parent = node.parent
        if parent is None or parent.mem_id not in depths:
            continue  # the root, or below an element read as text
        depth = depths[parent.mem_id] + 1
        if depth < _MAX_DEPTH:
            depths[node.mem_id] = depth
            continue
        while node.tag in _TEXTLESS_CONTAINERS and node.parent is not None and node.parent.tag in _TEXTLESS_CONTAINERS:
            node = node.parent
        if node.tag in _TEXTLESS_CONTAINERS and node.parent is not None:
            node = node.parent
        flattened.setdefault(node.mem_id, node)
    outer = [node for node in flattened.values() if not _has_ancestor_in(node, flattened)]  # within the depth
    for node in outer:
        if remove_hidden:
            # In reverse document order, the inner ones first: a node freed with its ancestor is never touched.
            for hidden in reversed(node.css(_HIDDEN_CANDIDATES)):
                if hidden.mem_id != node.mem_id and _is_hidden(hidden.attributes):
                    hidden.decompose()
        text = " ".join(child.text(deep=True, separator=" ") for child in node.iter(include_text=True))
        for child in list(node.iter(include_text=True)):
            child.decompose()
        node.insert_child(text)


_TEXTLESS_CONTAINERS = frozenset({"ul", "ol", "table", "thead", "tbody", "tfoot", "tr"})
_AT_MAX_DEPTH = ":root" + " > *" * _MAX_DEPTH
"""An element at :data:`_MAX_DEPTH` below the root (where :func:`_flatten_deep` starts reading text)."""


def _reveal_streamed(tree: Any) -> None:
    """Put the segments a streaming renderer sends hidden (``<div hidden id="S:1">``) where their
    placeholders stand, as the page's script does once loaded: a boundary (``<template id="B:1">`` and its
    "Loading…" fallback, up to the closing comment) or a bare placeholder (``<template id="P:1">``). The
    reader sees them; left hidden, they would be removed."""
    for segment in tree.css('div[hidden][id^="S:"]'):
        suffix = segment.id[2:]
        boundary = tree.css_first(f'template[id="B:{suffix}"]')
        fallback = []
        if boundary is None:
            boundary = tree.css_first(f'template[id="P:{suffix}"]')
            if boundary is None:
                continue
            sibling = None
        else:
            sibling = boundary.next
            while sibling is not None and sibling.tag != "-comment":
                fallback.append(sibling)
                sibling = sibling.next
        for child in segment.iter(include_text=True):
            boundary.insert_before(child)  # a copy
        segment.decompose()
        if sibling is not None:  # the fallback ends where the boundary's closing comment stands
            _decompose_all(fallback)
        boundary.decompose()


def _remove_hidden(tree: Any, controlled: frozenset[str] | set[str] = frozenset()) -> None:
    """Remove hidden elements. Two exceptions: when hidden elements hold nearly all of the page's text,
    the page sends its content hidden and shows it by script once loaded (as some frameworks stream
    it); then the large ones stay, since the reader sees them, and the small ones go. And the closed
    sections of an accordion stay (see :func:`_collapsed_panels`; ``controlled``: the ids that the page's
    controls open)."""
    # A node matching several of the selectors is listed once for each.
    hidden = list({node.mem_id: node for node in tree.css(_HIDDEN_CANDIDATES) if _is_hidden(node.attributes)}.values())
    if not hidden:
        return
    lengths = {node.mem_id: len(node.text(strip=True)) for node in hidden}
    total = shown_length = 0
    if max(lengths.values()) >= 250:  # else no hidden element can hold a quarter of a page of 1000
        body = tree.body or tree.root
        total = len(body.text(strip=True)) if body is not None else 0
        shown_length = sum(lengths[node.mem_id] for node in hidden if not _has_ancestor_in(node, lengths))
    shown = total >= 1000 and shown_length >= total * 0.8
    panels = _collapsed_panels(hidden, controlled)
    _decompose_all([
        node for node in hidden
        if not (shown and lengths[node.mem_id] >= total * 0.25) and node.mem_id not in panels
    ])


def _controlled_ids(tree: Any) -> set[str]:
    """The ids that the page's controls name in ``aria-controls`` (the elements a click opens)."""
    controlled: set[str] = set()
    for control in tree.css("[aria-controls]"):
        controlled.update((control.attributes.get("aria-controls") or "").split())
    return controlled


def _collapsed_panels(hidden: list[Any], controlled: frozenset[str] | set[str]) -> set[int]:
    """The ``hidden`` elements that a control on the page opens (their id is ``controlled``) and that hold
    running text: the closed sections of an accordion, which the reader opens with a click. Hidden menus and
    option boxes hold no running text."""
    if not controlled:
        return set()
    return {node.mem_id for node in hidden if node.id in controlled and _prose_length(node) >= _PANEL_PROSE}


_PANEL_PROSE = 80


# A style hides only if it says "none" or "hidden" (in any case; "dden" since \s and re.I fold the "i").
_HIDDEN_CANDIDATES = '[hidden], [aria-hidden="true"], [style*="none" i], [style*="dden" i]'


def _is_hidden(attributes: dict[str, str | None]) -> bool:
    if "hidden" in attributes or attributes.get("aria-hidden") == "true":
        return True
    return _HIDDEN_STYLE.search(attributes.get("style") or "") is not None


def _has_ancestor_in(node: Any, ids: dict[int, int]) -> bool:
    ancestor = node.parent
    while ancestor is not None:
        if ancestor.mem_id in ids:
            return True
        ancestor = ancestor.parent
    return False


def _absolute_links(main: Any, url: str, include_images: bool) -> None:
    """Links (and image sources) made absolute against ``url``; script links lose their target."""
    for node in main.css("a[href]"):
        href = node.attributes.get("href") or ""
        if href.startswith(("javascript:", "data:", "vbscript:")):
            node.unwrap()
        elif href and not href.startswith(("http:", "https:", "mailto:", "#")):
            node.attrs["href"] = urljoin(url, href)
    if include_images:
        for node in main.css("img[src]"):
            node.attrs["src"] = urljoin(url, node.attributes.get("src") or "")


def _drop_image_captions(main: Any) -> None:
    """The short text sharing a small wrapper with a picture: its caption and credit, or a teaser's title.

    Without the picture, that text is a stray line; an image inside a paragraph leaves the paragraph alone,
    but not a card with the picture and links that the paragraph shows on hover (a person's latest stories).
    """
    found = []
    for image in main.css("img"):
        card = _hover_card(image)
        if card is not None:
            found.append(card)
            continue
        holder = image.parent
        for _ in range(2):
            if holder is None or holder.mem_id == main.mem_id or holder.tag in ("td", "th", "li"):
                break
            if _in_running_text(holder):
                break
            text_length = len(holder.text(strip=True))
            if text_length:
                if (text_length < 300 and holder.css_first("h1, h2, h3, ul, ol, table, blockquote") is None
                        and len(holder.css("p")) <= 1):
                    found.append(holder)
                break
            holder = holder.parent
    cards = {holder.mem_id for holder in found if _names_then_describes(holder)}
    if len(cards) >= _MIN_CARDS:
        found = [holder for holder in found if holder.mem_id not in cards]
    _decompose_all(found)


_MIN_CARDS = 3
_SENTENCE_END = (".", "!", "?", ".)", '."', ".”")


def _names_then_describes(holder: Any) -> bool:
    """The text beside the picture opens with a short name (no sentence) and goes on with a sentence or more
    of description: one card of a series (plants, products, terms of a glossary), where a caption says what
    the picture shows, and a credit follows it."""
    texts = [text for node in holder.traverse(include_text=True)
             if node.tag == "-text" and (text := " ".join((node.text_content or "").split()))]
    if len(texts) < 2 or len(texts[0]) > 60 or texts[0].endswith((*_SENTENCE_END, ":")):
        return False
    return any(len(text) >= 80 and text.endswith(_SENTENCE_END) for text in texts[1:])


_INLINE_TAGS = frozenset({"span", "a", "em", "i", "strong", "b", "small", "font"})


def _in_running_text(node: Any) -> bool:
    """``node`` is a paragraph, or an inline element within one: a picture there is part of the text (an icon
    before a product's name), not over a caption. A link around the picture and its text is a card of its own
    (a teaser), wherever it stands."""
    if node.tag == "a":
        return False
    while node is not None and node.tag in _INLINE_TAGS:
        node = node.parent
    return node is not None and node.tag == "p"


def _hover_card(image: Any) -> Any:
    """The innermost inline element around ``image``, inside a paragraph, that holds two links or more."""
    card = None
    holder = image.parent
    for _ in range(6):
        if holder is None or holder.tag not in _INLINE_TAGS:
            break
        if card is None and len(holder.css("a[href]")) >= 2:
            card = holder
        holder = holder.parent
    return card if holder is not None and holder.tag == "p" else None


def _remove_boilerplate(tree: Any) -> None:
    # A banner left unclosed (or a layout misusing the tag) can hold the whole page. What a removal takes
    # never holds main or article, so whether a node holds one can be asked of all of them first.
    _decompose_all([node for node in _boilerplate(tree) if node.css_first("main, article") is None])
    # A page-level <header> is the site's masthead; an <article>'s own header holds its title.
    for node in tree.css("body > header, body > div > header, body > div > div > header"):
        if node.parent is not None and not _holds_prose(node):
            node.decompose()


def _remove_comment_blocks(tree: Any) -> None:
    """Remove the blocks named as comment sections or ad networks (that hold no marked article), before the
    content is chosen: a long discussion under a short story outweighs the story, and the cleaning that
    follows would then remove all of the choice."""
    body = tree.body or tree.root
    if body is None:
        return
    in_code = _in_code(body)
    found = [
        node for node in body.css(":is([class], [id])")
        if node.mem_id not in in_code and _negative_kind(node) == "strong"
    ]
    _decompose_all([node for node in found if node.css_first("main, article, [itemprop=articleBody]") is None])


def _boilerplate(root: Any) -> list[Any]:
    """The navigation, asides, footers and landmark roles in ``root`` (some more than once), but for the asides
    set in the running text (see :func:`_is_note_in_text`)."""
    return [
        node for node in root.css(_BOILERPLATE)
        if (node.tag in _BOILERPLATE_TAGS or node.attributes.get("role") in _BOILERPLATE_ROLE_NAMES)
        and not (node.tag == "aside" and _is_note_in_text(node))
    ]


_ANNOUNCING_FROM = 40


def _announced(listing: Any) -> bool:
    """The paragraph just before ``listing`` is a sentence announcing it ("Here are the courses it offers:"):
    the list is what the article goes on to say, however many of its items are links."""
    sentence = _element_sibling(listing, backwards=True)
    if sentence is None or sentence.tag != "p":
        return False
    text = sentence.text(strip=True)
    return (len(text) >= _ANNOUNCING_FROM and text.endswith(":") and _link_density(sentence, len(text)) < 0.5
            and not _OTHER_READING.search(text))


# A sentence that announces the site's other pages ("If you liked this post you might also like:").
_OTHER_READING = re.compile(
    r"\b(also like|might like|may like|(might|may) (also )?enjoy|found (the following|these)( \w+)? helpful"
    r"|more( \w+)? (articles|posts|stories|guides|reads)\b)",
    re.I,
)


def _is_note_in_text(aside: Any) -> bool:
    """An aside holding paragraphs of running text (two or more), between two paragraphs of running text: a
    note the article sets apart (on a point it makes in passing), where a sidebar stands beside the whole
    article and a pull quote repeats one sentence."""
    return all(
        sibling is not None and sibling.tag == "p" and _is_prose(sibling)
        for sibling in (_element_sibling(aside, backwards=True), _element_sibling(aside, backwards=False))
    ) and sum(map(_is_prose, aside.css("p"))) >= 2


def _holds_prose(node: Any) -> bool:
    """Holds 500 characters or more of running text (paragraphs of 80 or more, few of them links): a
    <header> used as a section of the article (some site builders do), not a masthead or a title block."""
    total = 0
    for paragraph in node.css("p"):
        length = len(paragraph.text(strip=True))
        if length >= 80 and _link_density(paragraph, length) < 0.3:
            total += length
            if total >= 500:
                return True
    return False


def _clean_inside(main: Any, gentle: bool = False, site: str = "") -> None:
    """Remove the boilerplate inside the chosen content: furniture tags, blocks named as furniture
    (only the surest names when ``gentle``), teaser headlines (of this ``site``'s other pages) and blocks that
    are mostly links."""
    _drop_furniture_tags(main)
    _drop_breadcrumbs(main)
    _drop_named_furniture(main, gentle)
    if not gentle:
        _drop_teasers(main, site)
    _drop_link_blocks(main, site)


def _drop_breadcrumbs(main: Any) -> None:
    """A list that is the page's path from the site's home page: two items or more, short, the first a link
    named "Home" (in a few languages)."""
    found = []
    for listing in main.css("ol, ul"):
        items = [child for child in listing.iter(include_text=False) if child.tag == "li"]
        if len(items) < 2 or items[0].css_first("a[href]") is None:
            continue
        if items[0].text(strip=True).lower() in _HOME_NAMES and all(
            len(item.text(strip=True)) <= _CRUMB_MOST for item in items
        ):
            found.append(listing)
    _decompose_all(found)


_HOME_NAMES = frozenset({"home", "homepage", "home page", "start", "inicio", "início", "accueil", "startseite",
                         "главная"})
_CRUMB_MOST = 80


def _drop_furniture_tags(main: Any) -> None:
    _decompose_all([node for node in _boilerplate(main) if node.mem_id != main.mem_id])
    for selector in ("header", "form"):
        for node in main.css(selector):
            if node.parent is None or node.mem_id == main.mem_id:
                continue
            if selector == "form" and len(node.text(strip=True)) > 500:
                continue  # some sites wrap the whole article in one form
            if selector == "header" and _holds_prose(node):
                continue
            node.decompose()


def _drop_named_furniture(main: Any, gentle: bool) -> None:
    total = len(main.text(strip=True)) or 1
    quotes = main.css_first("blockquote") is not None
    spared = _spared_widgets(main, total)  # asked before any removal: it reads blocks a removal frees
    # A code block's classes name its syntax ("hljs-comment" is a comment in the code), not the page's parts.
    in_code = _in_code(main)
    main_prose = -1  # measured when first needed
    for node in main.css(":is([class], [id])"):  # each node once (a list of selectors repeats a node per match)
        if node.parent is None or node.mem_id == main.mem_id or node.mem_id in in_code:
            continue
        kind = _negative_kind(node)
        if kind == "weak" and spared and (node.mem_id in spared or _has_ancestor_in(node, spared)):
            kind = _negative_kind(node, _WIDGET_WORD)
        if kind == "strong":
            node.decompose()
        elif kind == "weak" and not gentle:
            prose = _navigation_prose(node)
            if prose:
                if main_prose < 0:
                    main_prose = _prose_length(main)
                if prose >= main_prose * _NAVIGATION_PROSE_SHARE:
                    continue  # navigation is links, never paragraphs of prose: this is the article
            if not quotes and len(node.text()) < total * 0.4:
                node.decompose()  # the raw text is never shorter than the stripped one
                continue
            text_length = len(node.text(strip=True))
            # Boilerplate is small next to the article; a "widget" holding most of it is the article.
            if (text_length < total * 0.4 or _link_density(node, text_length) > 0.4) and not _is_quotation(
                node, text_length
            ):
                node.decompose()


def _navigation_prose(node: Any) -> int:
    """The running text in ``node`` when only navigation words name it as furniture ("content-nav-section") and it
    holds :data:`_NAVIGATION_PROSE_FROM` characters of it or more, else 0."""
    if _negative_kind(node, _NAVIGATION_WORDS):
        return 0
    prose = _prose_length(node)
    return prose if prose >= _NAVIGATION_PROSE_FROM else 0


_WIDGET_WORD = frozenset({"widget"})
_NAVIGATION_WORDS = frozenset({"nav", "navbar", "navigation", "menu", "toolbar", "pagination", "pager"})
_NAVIGATION_PROSE_FROM = 600
_NAVIGATION_PROSE_SHARE = 0.25


def _in_code(root: Any) -> set[int]:
    """The ``mem_id`` of each element with a class inside a code block in ``root``. (Looking for the code
    blocks first is cheaper than a descendant selector, which walks up from every element with a class.)"""
    return {
        node.mem_id for block in root.css("pre, code") for node in block.css("[class]") if node.mem_id != block.mem_id
    }


def _spared_widgets(main: Any, total: int) -> dict[int, Any]:
    """On a page builder's page, which names every block a "widget", the blocks that only that word marks as
    furniture and that lie within the article: from the first of them holding running text to the last.

    It is such a page when half of the content's text, and half of its running text, or more sit in these
    blocks. The ones before and after that stretch (calls to action, promotions, a sidebar) are still
    furniture."""
    found = {
        node.mem_id: node for node in main.css(_WIDGET_NAMED)
        if node.mem_id != main.mem_id and _negative_kind(node) == "weak" and not _negative_kind(node, _WIDGET_WORD)
    }
    if not found:
        return {}
    outer = [node for node in found.values() if not _has_ancestor_in(node, found)]  # in document order
    if sum(len(node.text()) for node in outer) < total * _WIDGET_PAGE_SHARE:
        return {}  # the raw text, never shorter than the running text: sidebar boxes beside an article
    prose = [_prose_length(node) for node in outer]
    if not any(prose) or sum(prose) < _prose_length(main) * _WIDGET_PAGE_SHARE:
        return {}
    first = next(index for index, length in enumerate(prose) if length)
    while first and _is_heading_block(outer[first - 1]):
        first -= 1  # the heading over the first section
    last = max(index for index, length in enumerate(prose) if length)
    return {node.mem_id: node for node in outer[first:last + 1]}


def _is_heading_block(node: Any) -> bool:
    heading = node.css_first("h1, h2, h3, h4, h5, h6")
    return heading is not None and len(heading.text(strip=True)) == len(node.text(strip=True))


_WIDGET_PAGE_SHARE = 0.5
_WIDGET_NAMED = ':is([class*="widget" i], [id*="widget" i])'


def _prose_length(node: Any) -> int:
    """The length of the running text in ``node``: paragraphs of 80 characters or more, few of them links."""
    total = 0
    for paragraph in node.css("p"):
        length = len(paragraph.text(strip=True))
        if length >= 80 and _link_density(paragraph, length) < 0.3:
            total += length
    return total


def _drop_teasers(main: Any, site: str) -> None:
    # A heading linking to another site and followed by text names what the article lists or cites (a
    # product, a source, a project in a round-up, with what the article says of it), not another story here.
    runs: dict[tuple[int, str], bool] = {}  # a run of cards, told before its first card goes
    for node in main.css("h2, h3, h4, h5, h6"):
        if node.parent is not None and _is_teaser_heading(node) and not (
            _links_off_site(node, site) and _opens_text(node, main)
        ):
            _teaser_card(node, main, runs).decompose()


def _opens_text(heading: Any, main: Any) -> bool:
    """The first thing with text after ``heading`` (within ``main``) is text, not another heading."""
    node = heading
    for _ in range(4):
        sibling = node.next
        while sibling is not None:
            if sibling.tag != "-comment" and sibling.text(strip=True):
                return sibling.tag not in _HEADINGS and sibling.css_first("h1, h2, h3, h4, h5, h6") is None
            sibling = sibling.next
        node = node.parent
        if node is None or node.mem_id == main.mem_id:
            return False
    return False


def _site_of(url: str) -> str:
    """The host of an absolute ``url`` without "www.", else ``""`` (a relative link stays on the site)."""
    if not url.startswith(("http://", "https://", "//")):
        return ""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:  # a malformed address ("http://[x") names no site
        return ""
    return host.removeprefix("www.")


def _links_off_site(heading: Any, site: str) -> bool:
    """The heading's link leads to another site than ``site`` (a subdomain of either counts as the same)."""
    if not site:
        return False
    anchor = heading.css_first("a[href]")
    ancestor = heading.parent
    for _ in range(2):  # or a link around the heading, at most two levels up
        if anchor is not None or ancestor is None:
            break
        anchor = ancestor if ancestor.tag == "a" else None
        ancestor = ancestor.parent
    other = _site_of((anchor.attributes.get("href") or "") if anchor is not None else "")
    return bool(other) and other != site and not other.endswith("." + site) and not site.endswith("." + other)


_LINKED_BLOCKS = ", ".join(f"{tag}:has(a)" for tag in ("ul", "ol", "div", "section", "p", "table", "fieldset", "dl"))


def _drop_link_blocks(main: Any, site: str = "") -> None:
    # Innermost blocks first: a list of links goes before the question whether the block around it is one.
    # A block without a link when the pass starts has none later either (only removals happen).
    blocks = main.css(_LINKED_BLOCKS)
    measured: dict[int, tuple[int, float]] = {}
    kept: set[int] = set()
    for node in blocks:
        # A list the article gives (announced by its sentence, or of other sites' pages) stays whole: the
        # paragraphs of its items are not link lists of their own either.
        if node.tag in ("ul", "ol") and node.mem_id not in kept:
            length = len(node.text(strip=True))
            density = _link_density(node, length)
            measured[node.mem_id] = (length, density)
            if _is_link_block(node, length, density) and (_announced(node) or _links_elsewhere(node, site)):
                kept.update(inner.mem_id for inner in node.css(_LINK_BLOCK_TAGS))
                wrapper = node.parent  # and the wrappers holding just it
                while (wrapper is not None and wrapper.mem_id != main.mem_id
                       and len(wrapper.text(strip=True)) <= length + 20):
                    kept.add(wrapper.mem_id)
                    wrapper = wrapper.parent
    for node in reversed(blocks):
        if node.parent is None or node.mem_id == main.mem_id or node.mem_id in kept:
            continue
        length, density = measured.get(node.mem_id) or _measure(node)
        if length and _is_link_block(node, length, density):
            node.decompose()


_LINK_BLOCK_TAGS = "ul, ol, div, section, p, table, fieldset, dl"


def _measure(node: Any) -> tuple[int, float]:
    length = len(node.text(strip=True))
    return length, _link_density(node, length)


def _is_link_block(node: Any, length: int, density: float) -> bool:
    # A paragraph with a fifth of its words its own is a sentence citing its sources, not a link list.
    short = 60 if node.tag == "p" else 600
    return (density > 0.8 or (length < short and density > 0.6)) and not _is_quotation(node, length)


def _links_elsewhere(listing: Any, site: str) -> bool:
    """Most of the links in ``listing`` (two or more) lead to other sites than ``site``: the sources, tools or
    events the article lists, where a site's own navigation and its other stories stay on the site."""
    if not site:
        return False
    anchors = listing.css("a[href]")
    if len(anchors) < 2:
        return False
    elsewhere = 0
    for anchor in anchors:
        other = _site_of(anchor.attributes.get("href") or "")
        if other and other != site and not other.endswith("." + site) and not site.endswith("." + other):
            elsewhere += 1
    return elsewhere * 4 >= len(anchors) * 3


# Headings that open the page's furniture rather than a part of the article: what follows them up
# to the next heading of the same rank is furniture too (related stories, comments, sharing).
_FURNITURE_HEADING = re.compile(
    r"\W*(you (may|might|will) (also )?(like|love|enjoy|be interested)|related\b|more (from|in|on|stories|news|articles"
    r"|like this|to read|to explore)\b|recommended|read (more|next|also)\b|(most|more) (popular|read|viewed|shared)"
    r"|popular\b|trending|top stories|\d* ?comments?\b|(leave|add|write) a (comment|reply)|post a comment"
    r"|join the (conversation|discussion)|tell us what you think|what do you think|share (this|the|on)\b|subscribe"
    r"|newsletter|sign up"
    r"|follow us|sponsored|advertisement|from (our|the) (partners|web)|around the (web|site)|don'?t miss"
    r"|(leia|veja|lea|lee) (também|tambien|también)|mais lidas|comentários|comentarios|commentaires|kommentare"
    r"|lesen sie auch|mehr zum thema|à lire aussi|a lire aussi|читайте также|комментари|отзывы|похожие|популярн"
    r"|самые|смотрите также|関連|相关|관련|인기)",
    re.I,
)
# A line (not a heading) that opens a box of other stories: "You may also like", "Related articles:".
_RELATED_LINE = re.compile(
    r"\W*(you (may|might|will|'ll) (also )?(like|love|enjoy|be interested)|related (stories|articles|posts"
    r"|content|news)\b|(leia|veja) também|lesen sie auch|à lire aussi|читайте также)[^.!?]*(\.\.\.|…)?$",
    re.I,
)
# A line pointing to another story, mostly its linked headline: "Related: ...", "Read more: ...".
_READ_ALSO = re.compile(
    r"\W*(related( (stories|articles|posts|content|coverage|reading))?|read (more|also|next)|also read|more"
    r"|recommended|watch|listen|leia (também|mais)|veja também|lesen sie auch|à lire aussi|читайте также)\s*:",
    re.I,
)
# The site's note on its earnings from the links in the article.
_AFFILIATE_NOTE = re.compile(
    r"\b(contains? affiliate links|affiliate links?\b.{0,80}\b(commission|earn|compensat)|(earn|receive|make|get) (a )?"
    r"(small )?(commission|affiliate commission)s? (from|on|for|when|if)\b)",
    re.I,
)
# The site's disclaimer: whose views the article gives, what it is not meant as.
_DISCLAIMER = re.compile(
    r"\b(views (and opinions )?expressed .{0,120}\b(are (those of |solely )?(the|their|his|her) (own|authors?'?s?)"
    r"|do not necessarily (reflect|represent))|(is|are) (provided )?for (general )?informational purposes only"
    r"|(not|never) (intended|meant) (as|to (be|serve as|replace)) (a substitute for )?(legal|financial|medical"
    r"|investment|tax|professional)\b|should not be (construed|considered|taken) as (legal|financial|medical"
    r"|investment|tax|professional))",
    re.I,
)
# The site's note that the page is old ("This article is more than 5 years old"), with a sentence on what follows.
_AGE_NOTICE = re.compile(
    r"\W*this (post|article|story|page|piece|entry) is (now )?(over|more than|at least) (a|an|one|two|three|four|five"
    r"|six|seven|eight|nine|ten|\d+) (years?|months?|weeks?) old\b",
    re.I,
)
_AGE_NOTICE_MOST = 200
# The page's own tools, not its text: a table of contents' label, a reading time.
_PAGE_TOOLS_LINE = re.compile(
    r"\W*(table of contents?|contents|in this (article|post|story)|on this page|jump to( section)?"
    r"|\d+\s*(min|mins|minutes?)\.?( to)? read)\W*$",
    re.I,
)
_ADVERT_LABELS = frozenset(
    {
        "ad", "ads", "advert", "adverts", "advertisement", "advertising", "sponsored", "sponsored links",
        "sponsored content", "anzeige", "werbung", "publicidad", "publicidade", "publicité", "реклама",
        "this slideshow requires javascript.", "loading...", "loading", "loading content ...", "loading content...",
        "caption", "close", "back to gallery", "read more", "to read the full story", "continue reading",
        "share", "share this", "share this article", "share this post", "share this story", "tags", "tags:",
        "skip to content", "skip to main content",
    }
)
# A call to action: subscribe, follow, write to us. It leaves the article, so it is not the article.
# Grouped by a word each of the group's phrases contains: only the groups whose word occurs are searched.
_CALLS_TO_ACTION = tuple(
    (hint, re.compile(pattern, re.I))
    for hint, pattern in (
        ("sign", r"\b(sign(ing)? up (for|to) (our|the|free|a free)|sign up (now|today|here)|by signing up\b"
                 r"|thanks? (you )?for signing up|newsletter sign)"),
        ("subscri", r"\b(subscribe (to|now|today|for|here)|by subscribing\b|thanks? (you )?for subscribing)"),
        ("newsletter", r"\b(our|free|daily|weekly) newsletters?\b"),
        ("follow", r"\b(follow (us|me)\b|follow (him|her|them) on|follow \S+ on (twitter|facebook|instagram|x)\b"
                   r"|follow\b.{0,60}\bon (twitter|facebook|instagram)\b|follow \S+ (full )?coverage)"),
        ("hear", r"\blike to hear (from you|what you think)"),
        (" us ", r"\b(find|like|join) us on"),
        ("click", r"\b(click here|click to tweet|by clicking\b)"),
        ("deliver", r"\bdelivered (to|through|straight to) your"),
        ("reach", r"\b((may|can) be reached at|reach (the|our) (reporters?|authors?|writers?|editors?) (at|on|by)\b)"),
        ("tip", r"\bhave a (news )?tip"),
        ("send us", r"\bsend us"),
        ("inbox", r"\b(in|into|to) your inbox"),
        ("app", r"\bdownload (our|the) app"),
        ("join", r"\bjoin (us|our)\b"),
        ("register", r"\bregister (now|for free)"),
        ("write to", r"\bwrite to .{1,60} at \S+@"),
        ("account", r"\b(already have an account|(create|register) (a free |an |your )account)\b"),
        ("already", r"\balready (a|an) (subscriber|member)\b"),
        (" in to ", r"\b(log|sign) in to (continue|keep reading|read|access|comment|unlock)\b"),
        ("unlock", r"\bunlock (this|the full|full|every|all) (article|story|content|access)"),
        ("subscriber", r"\b(exclusive to .{1,40} subscribers|subscribers? only|subscriber-only)\b"),
        ("partnership", r"\bthis (story|article|post|content) (was|is) (developed|produced|created|written"
                        r"|brought to you) in partnership with\b"),
        ("donat", r"\b(donate (via|now|today|here)|kept alive by (reader |your )?donations|make a donation)\b"),
        ("patron", r"\bbecome a (patron|paying member|supporter)\b"),
        ("support", r"\bsupport (us|our (work|journalism|reporting)) (by|with|on|today)\b"),
        (".gov", r"^\W*(official websites use \.gov|secure \.gov websites use https)\b"),
    )
)
_MONTHS = (
    r"jan(uary|vier|eiro|uar)?|feb(ruary|rero|ruar)?|fév(rier)?|fevereiro|mar(ch|zo|ço|s|z)?|märz|apr(il)?|abril|avril"
    r"|may|mayo|maio|mai|june?|junio|junho|juin|juli?|julio|julho|juillet|aug(ust)?|agosto|août|sept?(ember)?"
    r"|septiembre|setembro|oct(ober)?|octubre|outubro|okt(ober)?|nov(ember)?|noviembre|novembro|dec(ember)?"
    r"|diciembre|dezembro|dez(ember)?|déc(embre)?"
)
_DATE = re.compile(
    rf"\b\d{{1,2}}:\d{{2}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}[./-]\d{{1,2}}[./-]\d{{2,4}}\b"
    rf"|\b({_MONTHS})\.? \d{{1,2}}\b|\b\d{{1,2}}(st|nd|rd|th)?\.? (de )?({_MONTHS})\b",
    re.I,
)
_DATE_LABEL = re.compile(
    r"^\W*(published|updated|posted|last modified|publicado|atualizado|actualizado|publié|mis à jour|veröffentlicht"
    r"|aktualisiert|pubblicato|aggiornato|опубликовано|обновлено)\b",
    re.I,
)
_META_LABEL = re.compile(
    r"\b(publicado por|posted by|published by|posted in|filed under|categor(y|ia|ies|ie)\s*:|tags\s*:)", re.I
)
_BYLINE = re.compile(r"^(by|por|von|par|di|автор:?)\s+\w", re.I)
# The article's credits and filing: who else reported it, where it is filed, a gallery's counter.
_CONTRIBUTED = re.compile(r"\bcontributed (to this (report|story|article)|reporting)\b", re.I)
_CREDIT_START = re.compile(
    r"(filed under|posted in|tags|categories|category|topics?)\s*:|(image|photo|picture|slide) \d+ (of|/) \d+$"
    r"|(additional )?(reporting|writing|editing) by\b"
    r"|(view|see) all (posts|articles|stories) by\b|more (posts|articles|stories) (by|from) (the )?author\b"
    r"|(latest|recent) (posts|articles|stories) by\b",
    re.I,
)
# Who wrote or checked the article: the label, then a name ("Reviewed by Dr Lee Kim"; "by the engineers" is prose).
_CREDIT_LABEL = re.compile(
    r"\W*((medically|expertly|editorially) )?(reviewed|fact[- ]?checked|written|edited|verified) by:?\s+(\w)"
    r"|\W*contributions? from:?\s+(\w)",
    re.I,
)
# A line that opens with a link's call to act: the site selling, not the article speaking.
_LINKED_CALL = re.compile(
    r"\W*(learn more|find out more|get started|book a (free )?demo|request a (free )?demo|get a (free )?quote"
    r"|start (your|a) free trial|try (it|\w+) (for )?free)\b",
    re.I,
)
_LONG_WORD = re.compile(r"[^\W\d_]{4,}")
_LONE_URL = re.compile(r"https?://\S+")
_DIGIT = re.compile(r"\d")
_EMPHASIS_TAGS = "em, i, strong, b"


def _drop_clutter(main: Any, author: str = "") -> None:
    """Remove the furniture the class names did not give away, judged by what the text says; with the
    ``author`` of the metadata, the notes about them too (see :func:`_is_author_note`)."""
    _drop_furniture_sections(main)
    authors = _author_names(author) if author else ()
    longest = _AUTHOR_NOTE_MOST if authors else _CLUTTER_MOST
    found = []
    # A container's own lines are judged one by one (and its text is costly to build).
    for node in main.css(_LINE_BLOCKS):
        if node.mem_id == main.mem_id:
            continue
        text = " ".join(node.text().split())
        if not text or len(text) > longest:
            continue
        clutter = len(text) <= _CLUTTER_MOST and _is_clutter_line(node, text)
        if (clutter or (authors and _is_author_note(text, authors))) and (
            node.tag == "p" or _is_leaf_block(node)
        ) and not _inside(node, "blockquote", main):
            found.append(node)  # a quoted post keeps its own date and attribution
    _decompose_all(found)


_CLUTTER_MOST = 400


_SLIDE_COUNTER = re.compile(r"\W*(\d{1,4})\s*(?:/|of|von|de|sur|из)\s*(\d{1,4})\b", re.I)
_MIN_SLIDES = 3


def _drop_slideshows(main: Any) -> None:
    """A slideshow's captions: a list of three items or more, each opening with its place in the show ("1/50",
    "2 of 50", ... counting up from one, out of the same total). The show displays one at a time, over its
    picture; as text, it is a wall of captions around the article. With the list goes the wrapper holding just
    it and the show's title."""
    found = []
    for listing in main.css("ul, ol"):
        items = [child for child in listing.iter(include_text=False) if child.tag == "li"]
        if len(items) >= _MIN_SLIDES and _counts_slides(items):
            found.append(_slideshow_holder(listing, main))
    _decompose_all(found)


def _counts_slides(items: list[Any]) -> bool:
    total = None
    for place, item in enumerate(items, start=1):
        match = _SLIDE_COUNTER.match(item.text())
        if match is None or int(match.group(1)) != place or (total is not None and match.group(2) != total):
            return False
        total = match.group(2)
    return total is not None and int(total) >= len(items)


def _slideshow_holder(listing: Any, main: Any) -> Any:
    """The outermost wrapper of ``listing`` (below ``main``) holding no more than it and one short title."""
    holder = listing
    length = len(listing.text(strip=True))
    ancestor = listing.parent
    while ancestor is not None and ancestor.mem_id != main.mem_id:
        if len(ancestor.text(strip=True)) - length > 80 or len(ancestor.css("h1, h2, h3, h4, h5, h6")) > len(
            listing.css("h1, h2, h3, h4, h5, h6")
        ) + 1:
            break
        holder = ancestor
        ancestor = ancestor.parent
    return holder


_REPEATED_FROM = 80
"""Paragraphs shorter than this may repeat by chance ("Read more", a product's name); longer ones do not."""


def _drop_repeated_blocks(main: Any, prose_lengths: dict[int, int]) -> None:
    """A block whose text repeats an earlier block's word for word: the same content laid out again for
    another screen size (the style sheet shows one of them at a time). Found from its paragraphs: a repeated
    one, widened to the largest block that holds it but not the first, when that block is more than the
    paragraph and its text and the text of the matching block around the first are the same.
    ``prose_lengths``: the lengths of the prose paragraphs (see :func:`_score_candidates`)."""
    # Only paragraphs of the same length can repeat: the lengths the scoring measured rule out most of them
    # (on most pages, all) before any text is built.
    on_page = [length for length in prose_lengths.values() if length >= _REPEATED_FROM]
    if len(set(on_page)) == len(on_page):
        return
    candidates = [paragraph for paragraph in main.css("p")
                  if prose_lengths.get(paragraph.mem_id, 0) >= _REPEATED_FROM]
    counts = Counter(prose_lengths[paragraph.mem_id] for paragraph in candidates)
    first_seen: dict[str, Any] = {}
    found: dict[int, Any] = {}
    for paragraph in candidates:
        if counts[prose_lengths[paragraph.mem_id]] < 2:
            continue
        earlier = first_seen.setdefault(paragraph.text(strip=True), paragraph)
        if earlier.mem_id == paragraph.mem_id or _has_ancestor_in(paragraph, found):
            continue
        block = _repeating_block(earlier, paragraph, main)
        if block is not None:
            found[block.mem_id] = block
    _decompose_all(list(found.values()))


def _repeating_block(earlier: Any, later: Any, main: Any) -> Any:
    """The largest block around ``later`` (below ``main``) not around ``earlier``, if its text is the text of
    the block as far up around ``earlier``."""
    around_earlier: dict[int, Any] = {}
    node = earlier
    while node.parent is not None and node.mem_id != main.mem_id:
        around_earlier[node.parent.mem_id] = node  # the ancestor, and its child on the way to ``earlier``
        node = node.parent
    block = later
    while block.parent is not None and block.parent.mem_id not in around_earlier:
        block = block.parent
    if block.parent is None or block.mem_id == later.mem_id:
        return None  # a paragraph said again among the others (a meal on two days of a plan, a pull quote)
    twin = around_earlier[block.parent.mem_id]
    return block if block.text(strip=True) == twin.text(strip=True) else None


def _decompose_all(nodes: list[Any]) -> None:
    """Remove ``nodes`` (found in document order, before any removal), the innermost first: a node
    inside one already removed is freed with it and must not be touched again."""
    done: set[int] = set()
    for node in sorted(nodes, key=_depth, reverse=True):
        if node.mem_id not in done:
            done.add(node.mem_id)
            node.decompose()


def _depth(node: Any) -> int:
    depth = 0
    ancestor = node.parent
    while ancestor is not None:
        depth += 1
        ancestor = ancestor.parent
    return depth


def _is_clutter_line(node: Any, text: str) -> bool:
    """A short block that is an advert label, a call to action, or a date or byline line."""
    lowered = text.lower()
    if lowered in _ADVERT_LABELS or (lowered.startswith("http") and _LONE_URL.fullmatch(text)):
        return True
    if _is_call_to_action(text, lowered) and (
        len(text) < 160 or node.css_first("a[href]") is not None or _is_emphasised(node, len(text))
    ):
        return True
    if len(text) <= 300 and (
        ("contributed" in lowered and _CONTRIBUTED.search(text)) or _CREDIT_START.match(text)
    ):
        return True
    if len(text) <= 80 and _BYLINE.match(text) and text[-1] not in ".!?":
        return True
    if len(text) <= 200 and text[-1] not in ".!?" and _is_credit_label(text):
        return True
    if len(text) <= 120 and text[-1] not in ".!?" and _LINKED_CALL.match(text) and node.css_first("a[href]"):
        return True
    if len(text) <= 60 and (_RELATED_LINE.match(text) or _PAGE_TOOLS_LINE.match(text)):
        return True
    if len(text) <= 300 and _READ_ALSO.match(text) and _link_density(node, len(text)) >= 0.5:
        return True
    if len(text) <= 300 and ("affiliate" in lowered or "commission" in lowered) and _AFFILIATE_NOTE.search(text):
        return True
    if len(text) <= _AGE_NOTICE_MOST and _AGE_NOTICE.match(text):
        return True
    if len(text) <= 300 and _may_disclaim(lowered) and _DISCLAIMER.search(text):
        return True
    return len(text) <= _DATED_MOST and _is_dated_line(text) and not _in_schedule(node)


def _may_disclaim(lowered: str) -> bool:
    """``lowered`` holds a word that each of :data:`_DISCLAIMER`'s phrasings holds: a line without one is searched
    no further."""
    return ("views" in lowered or "purposes" in lowered or "intended" in lowered or "meant" in lowered
            or "should not be" in lowered)


def _is_dated_line(text: str) -> bool:
    """A short line that is a date with at most a few words (a label, a byline): when the page was written."""
    if len(text) <= _DATED_MOST and _DIGIT.search(text) and _DATE.search(text):
        if _DATE_LABEL.search(text) or _META_LABEL.search(text):
            return True
        rest = _DATE.sub(" ", text)
        return text[-1] not in ".!?" and len(_LONG_WORD.findall(rest)) <= 3
    return False


_DATED_MOST = 120
_MIN_SCHEDULE = 3


def _in_schedule(node: Any) -> bool:
    """``node`` and the blocks just around it of its kind are dated lines, three or more in a row: the dates of
    a schedule or a timeline, which the article lists (a page's own date stands alone)."""
    run = 1
    for backwards in (True, False):
        sibling = _element_sibling(node, backwards)
        while run < _MIN_SCHEDULE and sibling is not None and sibling.tag == node.tag and _is_dated_line(
            " ".join(sibling.text().split())
        ):
            run += 1
            sibling = _element_sibling(sibling, backwards)
    return run >= _MIN_SCHEDULE


def _element_sibling(node: Any, backwards: bool) -> Any:
    """The element before (or after) ``node`` among its siblings, past text and comments."""
    sibling = node.prev if backwards else node.next
    while sibling is not None and sibling.tag in ("-text", "-comment"):
        sibling = sibling.prev if backwards else sibling.next
    return sibling


def _is_credit_label(text: str) -> bool:
    match = _CREDIT_LABEL.match(text)
    return match is not None and (match.group(4) or match.group(5)).isupper()


_CONTAINER_TAGS = ("p", "div", "ul", "ol", "table", "blockquote", "section", "article")
# Paragraphs, and the other blocks (and small print: a date and byline line) that hold no container as a child.
_LINE_BLOCKS = "p, :is(div, span, small, li, h4, h5, h6):not(:has({}))".format(
    ", ".join(f"> {tag}" for tag in _CONTAINER_TAGS)
)


def _is_call_to_action(text: str, lowered: str) -> bool:
    for hint, pattern in _CALLS_TO_ACTION:  # a loop: a generator costs more than the searches it saves
        if hint in lowered and pattern.search(text) is not None:
            break
    else:
        return False
    return True


def _is_leaf_block(node: Any) -> bool:
    """No paragraph, list, table, quotation or division inside (selectolax's css() matches the node too)."""
    return all(inner.mem_id == node.mem_id for inner in node.css("p, div, ul, ol, table, blockquote"))


def _inside(node: Any, tag: str, main: Any) -> bool:
    """``node`` has a ``tag`` element around it, below ``main``."""
    ancestor = node.parent
    while ancestor is not None and ancestor.mem_id != main.mem_id:
        if ancestor.tag == tag:
            return True
        ancestor = ancestor.parent
    return False


def _is_emphasised(node: Any, text_length: int) -> bool:
    """All of the block's text is in italics or bold: a note set apart from the article."""
    emphasised = sum(len(part.text(strip=True)) for part in node.css(_EMPHASIS_TAGS) if part.mem_id != node.mem_id)
    return emphasised >= text_length * 0.9


def _drop_furniture_sections(main: Any) -> None:
    """A heading such as "Related stories" or "Comments", and what follows it up to article prose or the
    next heading of the same or a higher rank (a heading alone in its wrapper counts as the wrapper).

    Such a box sits at the article's end or between its paragraphs: the prose after it is the article
    going on. An element marked as a heading (``role="heading"``) is one, of its ``aria-level``; a paragraph that
    is only the label "About the author" heads the note below it as a heading of the lowest rank would."""
    found = []
    for heading in main.css(_SECTION_HEADS):
        text = " ".join(heading.text().split())
        if not text or len(text) > 60:
            continue
        closing = _CLOSING_HEADING.match(text) is not None
        about_author = _ABOUT_AUTHOR.match(text) is not None
        if heading.tag == "p":
            if not _ABOUT_AUTHOR_LABEL.fullmatch(text):
                continue
        elif not (closing or about_author or _FURNITURE_HEADING.match(text) or _PAGE_TOOLS_LINE.match(text)):
            continue
        rank = _heading_rank(heading)
        start = heading
        while (start.parent is not None and start.parent.mem_id != main.mem_id
               and len(start.parent.text(strip=True)) <= len(text) + 20):
            start = start.parent
        found.append(start)
        # A note about the author is prose itself, and short: it goes on to the next heading, within a length.
        length = 0
        sibling = start.next
        while sibling is not None:
            if sibling.tag in _HEADINGS and _HEADINGS[sibling.tag] <= rank:
                break
            if sibling.tag not in ("-text", "_comment"):
                nested = sibling.css_first("h1, h2, h3")
                if nested is not None and _HEADINGS[nested.tag] <= rank:
                    break
                if about_author:
                    length += len(sibling.text(strip=True))
                    if length > _AUTHOR_NOTE_MOST:
                        break
                elif not closing and _is_prose(sibling):
                    break
            found.append(sibling)
            sibling = sibling.next
    _decompose_all(found)


# The paragraphs among these are asked about only when they hold the words of an author's label.
_SECTION_HEADS = (
    'h1, h2, h3, h4, h5, h6, [role="heading"], p:lexbor-contains("about the" i), p:lexbor-contains("meet the" i)'
)
_LOWEST_RANK = 7


def _heading_rank(heading: Any) -> int:
    """1 for ``<h1>`` to 6 for ``<h6>``; an element marked as a heading has its ``aria-level`` (2 if it states
    none); a label paragraph ranks below every heading."""
    rank = _HEADINGS.get(heading.tag)
    if rank is not None:
        return rank
    if heading.tag == "p":
        return _LOWEST_RANK
    level = (heading.attributes.get("aria-level") or "").strip()
    return int(level) if level.isdigit() and 1 <= int(level) <= 6 else 2


# Headings that open what the site adds after the article, in sentences of its own: a disclaimer, a call to
# contact the business, its clients' praise, its latest posts. The section goes whole, prose and all.
_CLOSING_HEADING = re.compile(
    r"\W*((legal |important |editorial |affiliate )?(disclaimers?|disclosures?)|contact us|get in touch"
    r"|contact (\w+ )?today|talk to (us|our team)|get a free (quote|consultation|estimate)|testimonials?"
    r"|what (our )?(clients|customers|patients|students) (say|are saying)"
    r"|(latest|recent) (news|posts|articles|insights|blogs?|stories)|read this next|keep reading)\W*$",
    re.I,
)
_AUTHOR_LABEL = r"(about|meet) the (authors?|writers?|reviewers?|experts?|contributors?)"
_ABOUT_AUTHOR = re.compile(r"\W*(" + _AUTHOR_LABEL + r"\b|written by)", re.I)
_ABOUT_AUTHOR_LABEL = re.compile(r"\W*" + _AUTHOR_LABEL + r"\W*", re.I)


def _is_prose(node: Any) -> bool:
    """Holds a paragraph of running text: 100 characters or more, few of them links."""
    for paragraph in node.css("p") or [node]:
        length = len(paragraph.text(strip=True))
        if length >= 100 and _link_density(paragraph, length) < 0.3:
            return True
    return False


def _teaser_card(heading: Any, main: Any, runs: dict[tuple[int, str], bool]) -> Any:
    """The story card a teaser heading goes with: the nearest list item or article around it (if small),
    else the smallest wrapper holding just this heading and a little text (an excerpt, an author, a date),
    else the heading alone."""
    small = None
    card = heading.parent
    for _ in range(3):
        if card is None or card.mem_id == main.mem_id:
            break
        if card.tag in ("li", "article"):
            return card if len(card.text(strip=True)) < 500 else small or heading
        if small is None and card.tag == "div" and len(card.css("h1, h2, h3, h4, h5, h6")) == 1 and (
            len(card.text(strip=True)) < len(heading.text(strip=True)) + 120
            or _one_of_a_run_of_cards(card, runs)
        ):
            small = card
        card = card.parent
    return small or heading


_MIN_CARD_RUN = 3
_CARD_MOST = 1500


def _one_of_a_run_of_cards(card: Any, runs: dict[tuple[int, str], bool]) -> bool:
    """``card`` (holding one heading) is one of three or more sibling blocks of its tag and class, each with a
    heading: a list of story cards, each a headline and its excerpt, however long the excerpt. ``runs`` keeps
    the answer for each parent and class, asked before the first of those cards is removed."""
    names = card.attributes.get("class")
    parent = card.parent
    if not names or parent is None or len(card.text(strip=True)) > _CARD_MOST:
        return False
    key = (parent.mem_id, f"{card.tag} {names}")
    if key not in runs:
        runs[key] = _counts_cards(parent, card.tag, names)
    return runs[key]


def _counts_cards(parent: Any, tag: str, names: str) -> bool:
    run = 0
    for sibling in parent.iter(include_text=False):
        if sibling.tag == tag and sibling.attributes.get("class") == names and sibling.css_first(
            "h1, h2, h3, h4, h5, h6"
        ) is not None:
            run += 1
            if run >= _MIN_CARD_RUN:
                return True
    return False


def _is_quotation(node: Any, text_length: int) -> bool:
    """Mostly a quotation: an embedded post the article cites (a tweet), however many links it has."""
    if node.css_first("blockquote") is None:
        return False
    quoted = sum(len(quote.text(strip=True)) for quote in node.css("blockquote"))
    return quoted >= text_length * 0.6


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _drop_title_heading(main: Any, title: str) -> None:
    """Drop the headline repeating the page's title: :class:`ExtractedWebPage` carries it as ``title``.

    The headline is the first ``<h1>`` when it repeats the title, or when it comes before any prose and
    most of its words are in the title (sites shorten or reword one of the two). Any other block that
    repeats the title word for word (a gallery's or a share box's copy) goes too.
    """
    if not title:
        return
    wanted = _words(title)
    heading = main.css_first("h1")
    if heading is not None:
        text = _words(heading.text())
        if text and (text == wanted or (len(text) > 15 and text in wanted) or (
            _overlap(text, wanted) >= 0.4 and not _prose_before(main, heading)
        )):
            heading.decompose()
    if len(wanted) < 20:
        return
    most = len(title) + 10
    first = wanted.split(" ", 1)[0]
    _decompose_all([
        node for node in main.css("h2, h3, h4, h5, h6, p, span, a, li") if _is_copy(node, wanted, first, most)
    ])


_AUTHOR_NOTE_VERB = re.compile(r",? (is|was|has|had|serves|served|joined|writes|wrote|covers|leads|holds|lives)\b")
_AUTHOR_NOTE_MOST = 700
_PERSON_NAME = re.compile(r"[^\W\d_][\w.'\u2019-]*(?: [^\W\d_][\w.'\u2019-]*){1,4}")


def _author_names(author: str) -> tuple[str, ...]:
    """The full names (two words or more) in the metadata's ``author``, each also after "Dr. " and "About ":
    people, not a site's one-word name."""
    names = [name for name in (part.strip() for part in re.split(r",|;| and | & ", author))
             if _PERSON_NAME.fullmatch(name)]
    return tuple(f"{prefix}{name}" for prefix in ("", "Dr. ", "About ") for name in names)


def _is_author_note(text: str, names: tuple[str, ...]) -> bool:
    """``text`` opens with one of the authors' ``names`` and a verb ("Jane Doe is a reporter who covers...",
    "Jane Doe has no position in the stocks mentioned"): a note about who wrote the article, where the article
    speaks of its subject."""
    if not text.startswith(names):  # one test for all the names, before any pattern
        return False
    return any(text.startswith(name) and _AUTHOR_NOTE_VERB.match(text, len(name)) for name in names)


def _is_copy(node: Any, words: str, first: str, most: int) -> bool:
    """``node``'s text, at most ``most`` characters long (stripped), has the same ``words`` (the ``first`` of
    them, looked for before the text is split in words, rules out most nodes)."""
    text = node.text()
    if len(text) > most and len(node.text(strip=True)) > most:  # the raw text is never the shorter
        return False
    return first in text.lower() and _words(text) == words


def _overlap(words: str, other: str) -> float:
    """The share of ``words`` (space-separated) that also occur in ``other``."""
    mine = words.split()
    theirs = set(other.split())
    return sum(word in theirs for word in mine) / len(mine) if mine else 0.0


def _prose_before(main: Any, heading: Any) -> bool:
    """Some paragraph of 80 characters or more comes before ``heading`` in ``main``."""
    for node in main.css("p, h1"):
        if node.mem_id == heading.mem_id:
            return False
        if node.tag == "p" and len(node.text(strip=True)) >= 80:
            return True
    return False


def _is_teaser_heading(heading: Any) -> bool:
    """A heading that is one link to another page: a headline in a list of other stories."""
    text_length = len(heading.text(strip=True))
    if text_length == 0:
        return False
    if _linked_from_outside(heading):
        return True
    linked = 0
    for anchor in heading.css("a[href]"):
        if not (anchor.attributes.get("href") or "").startswith("#"):
            linked += len(anchor.text(strip=True))
    return linked >= text_length * 0.9


def _linked_from_outside(heading: Any) -> bool:
    """The heading sits inside a link to another page (a story card that is one link)."""
    ancestor = heading.parent
    for _ in range(2):
        if ancestor is None:
            return False
        if ancestor.tag == "a":
            return not (ancestor.attributes.get("href") or "#").startswith("#")
        ancestor = ancestor.parent
    return False


def _link_density(node: Any, text_length: int) -> float:
    if text_length == 0:
        return 0.0
    linked = sum(len(a.text(strip=True)) for a in node.css("a"))
    return linked / text_length


def _choose_main(tree: Any) -> tuple[Any, dict[int, int]]:
    """The element holding the article (``None`` if no paragraph scores), and the lengths of the prose
    paragraphs (see :func:`_score_candidates`): paragraphs score their ancestors, like readability does. When
    the best one lies in a comment section (a long discussion outweighs a short story), the choice is made
    again without them."""
    scores, prose_lengths = _score_candidates(tree)
    best = _best_candidate(scores)
    if best is not None and _in_comments(best):
        _remove_comment_blocks(tree)
        scores, prose_lengths = _score_candidates(tree)
        best = _best_candidate(scores)
    if best is None:
        return None, prose_lengths
    chosen = _widen(best, prose_lengths)
    body = tree.body
    if body is not None and _loose_prose(body, prose_lengths) > _held_prose(chosen, prose_lengths):
        # The article's paragraphs stand in <body> itself, in no block: a page from before layouts.
        return body, prose_lengths
    return chosen, prose_lengths


def _in_comments(node: Any) -> bool:
    """``node`` or an element around it is named as a comment section (or an ad network's block)."""
    while node is not None and node.tag not in ("html", "body", "-document"):
        if _negative_kind(node) == "strong":
            return True
        node = node.parent
    return False


# Blocks that set a part of the page apart: a paragraph inside one is not loose in <body>.
_SECTIONING = frozenset({
    "div", "section", "article", "main", "table", "td", "th", "li", "dd", "header", "footer", "form", "aside", "nav",
})


def _loose_prose(body: Any, prose_lengths: dict[int, int]) -> int:
    """The prose in paragraphs that sit in ``body`` outside every block of :data:`_SECTIONING` (in no more than
    quotations, lists' own text, fonts or centring)."""
    total = 0
    for paragraph in body.css("p"):
        length = prose_lengths.get(paragraph.mem_id)
        if not length:
            continue
        ancestor = paragraph.parent
        while ancestor is not None and ancestor.mem_id != body.mem_id and ancestor.tag not in _SECTIONING:
            ancestor = ancestor.parent
        if ancestor is not None and ancestor.mem_id == body.mem_id:
            total += length
    return total


def _held_prose(node: Any, prose_lengths: dict[int, int]) -> int:
    return sum(prose_lengths.get(paragraph.mem_id, 0) for paragraph in node.css("p"))


def _score_candidates(tree: Any) -> tuple[dict[int, list[Any]], dict[int, int]]:
    """Each paragraph credits its parent and the two ancestors above (a half, then a third).

    Returns the candidates (``mem_id`` -> ``[node, score]``, the score starting at its class weight)
    and the lengths of the prose paragraphs (not story teasers: paragraphs in links, or mostly links).
    """
    scores: dict[int, list[Any]] = {}
    prose_lengths: dict[int, int] = {}
    linked = {p.mem_id for p in tree.css("a p")}
    # An article inside another is a part of it (a teaser card, a comment), not the page's article.
    cards = {node.mem_id for node in tree.css("article article")}
    for paragraph in tree.css("p, pre, blockquote, td, li, div"):
        tag = paragraph.tag
        if tag == "div":
            # Text written straight into a div (with <br> between lines) is a paragraph too. The raw text is
            # cheaper to build than the stripped one and never shorter: it rules out most divs.
            if len(paragraph.text(deep=False)) < 60:
                continue
            text = paragraph.text(deep=False, strip=True)
            if len(text) < 60:
                continue
            start = paragraph
        else:
            text = paragraph.text(strip=True)
            start = paragraph.parent
        length = len(text)
        if tag == "p" and length > 60 and paragraph.mem_id not in linked and (
            paragraph.css_first("a") is None or _link_density(paragraph, length) <= 0.5
        ):
            prose_lengths[paragraph.mem_id] = length
        if length < 25 or (tag == "li" and length < 80):
            continue
        # Commas mark clauses of prose; a run of them without spaces is data (a list of domains, numbers).
        score = 1.0 + min(text.count(","), text.count(" ")) + min(length / 100.0, 3.0)
        node = start
        for divisor in (1.0, 2.0, 3.0):
            if node is None or node.tag in ("html", "body"):
                break
            entry = scores.get(node.mem_id)
            if entry is None:
                entry = scores[node.mem_id] = [node, _class_weight(node, node.mem_id in cards)]
            entry[1] += score / divisor
            node = node.parent
    return scores, prose_lengths


def _best_candidate(scores: dict[int, list[Any]]) -> Any:
    """The candidate with the highest score once lowered by its link density."""
    best = None
    best_score = 0.0
    # Link density only lowers a score, so candidates are weighed from the highest raw score down.
    for node, raw in sorted(scores.values(), key=lambda entry: -entry[1]):
        if raw <= best_score:
            break
        text_length = len(node.text(strip=True))
        score = raw * (1.0 - _link_density(node, text_length))
        if score > best_score:
            best, best_score = node, score
    return best


def _widen(best: Any, prose_lengths: dict[int, int]) -> Any:
    """Widen the choice in steps of up to three levels.

    Each step goes to the first ancestor that holds much more prose (split bodies, forum threads),
    else three levels up regardless; it stops where a step would reach <body>, or at the page's one
    marked article. Article text is often split between sibling containers, and the cleaning that
    follows removes the boilerplate a wider choice brings in; going all the way up to <body>'s
    children brings in more than it removes, stopping at the first ancestor without more prose
    loses split article parts.
    """
    measured: dict[int, int] = {}

    def prose(candidate: Any) -> int:
        length = measured.get(candidate.mem_id)
        if length is None:
            length = measured[candidate.mem_id] = sum(prose_lengths.get(p.mem_id, 0) for p in candidate.css("p"))
        return length

    node = best
    own = prose(node)
    while True:
        ancestor = node.parent
        for _ in range(3):
            if ancestor is None or ancestor.tag in ("html", "body"):
                ancestor = None
                break
            if _is_lone_article(node, ancestor):
                ancestor = None  # the page marks its one article; the text around it is something else
                break
            wider = prose(ancestor)
            if wider > own * 1.35 and wider - own > 150:
                break
            if _is_article_mark(ancestor) and ancestor.parent is not None and _is_lone_article(
                ancestor, ancestor.parent
            ):
                # The page's one article: never the text further out, and all of it when it holds
                # more prose than the choice (a body split in blocks); else just the choice.
                return ancestor if wider - own > 150 else node
            ancestor = ancestor.parent
        if ancestor is None or ancestor.tag in ("html", "body"):
            break
        node, own = ancestor, prose(ancestor)
    return _within_main(best, node)


def _within_main(best: Any, chosen: Any) -> Any:
    """``chosen``, or the ``<main>`` around ``best`` when ``chosen`` lies beyond it: the page marks its main
    content, and what stands around that (a sidebar, the site's links) is not part of it."""
    main = best
    while main is not None and main.tag != "main":
        if main.mem_id == chosen.mem_id:
            return chosen  # the choice lies within the main content (or the page marks none)
        main = main.parent
    return main if main is not None and main.mem_id != chosen.mem_id else chosen


def _is_lone_article(node: Any, ancestor: Any) -> bool:
    """``node`` is the page's one marked article (``<article>``, schema.org articleBody) inside ``ancestor``."""
    if not _is_article_mark(node):
        return False
    # selectolax's css() matches the element itself too: the counts include ``node`` on both sides.
    return len(ancestor.css(_ARTICLE_MARKS)) == len(node.css(_ARTICLE_MARKS))


def _is_article_mark(node: Any) -> bool:
    return bool(node.tag == "article" or node.attributes.get("itemprop") == "articleBody")


_ARTICLE_MARKS = 'article, [itemprop="articleBody"]'


def _class_weight(node: Any, card: bool = False) -> float:
    """The weight of ``node``'s tag and names; an article ``card`` (inside another) has no article's weight."""
    attributes = node.attributes
    weight = 25.0 if (node.tag == "article" and not card) or attributes.get("itemprop") == "articleBody" else 0.0
    return weight + _name_weight(f"{attributes.get('class') or ''} {attributes.get('id') or ''}")


@functools.lru_cache(maxsize=4096)
def _name_weight(names: str) -> float:
    """What an element's class and id say: content (+10), boilerplate (-25), comments or ads (-50)."""
    weight = 10.0 if _POSITIVE.search(names) else 0.0
    kind = _negative_kind_of(names)
    if kind:
        weight -= 50 if kind == "strong" else 25
    return weight


_BLOCK_TAGS = frozenset(
    {
        "address", "article", "center", "dd", "details", "div", "dl", "dt", "fieldset", "figure", "figcaption",
        "footer", "form", "header", "hgroup", "legend", "main", "p", "section", "summary", "body", "html",
        "tbody", "thead", "tfoot", "tr", "td", "th", "caption",
    }
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_EMPHASIS = {"strong": "**", "b": "**", "em": "*", "i": "*", "del": "~~", "s": "~~", "strike": "~~"}
_LAYOUT_CELLS = ", ".join(
    f"{cell} {inner}" for cell in ("td", "th")
    for inner in ("table", "p", "div", "ul", "ol", "pre", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6")
)
# The tags the writer does something for; the others stand for their content.
_WRITTEN_TAGS = _BLOCK_TAGS | set(_HEADINGS) | set(_EMPHASIS) | {
    "a", "br", "ul", "ol", "li", "pre", "code", "kbd", "samp", "tt", "blockquote", "hr", "table", "img",
}
_ESCAPE = re.compile(r"\*|(?<!\w)_|_(?!\w)")


class _MarkdownWriter:
    """Markdown straight from selectolax nodes: no second parse of the HTML.

    markdownify (on a BeautifulSoup tree built from serialised HTML) cost about 70% of extract's
    time; articles are headings, paragraphs, lists, quotes, code and tables, written here straight
    from the tree already parsed.
    """

    def __init__(self, include_images: bool) -> None:
        self.include_images = include_images

    def blocks(self, node: Any) -> str:
        """The children of ``node`` as Markdown, blocks separated by blank lines."""
        parts: list[str] = []
        for child in node.iter(include_text=True):
            tag = child.tag
            if tag == "-text":
                text = child.text_content or ""
                if text:
                    text = _collapse_spaces(text)
                    if "*" in text or "_" in text:
                        text = _ESCAPE.sub(r"\\\g<0>", text)
                    parts.append(text)
            elif tag[0] not in "-_!":
                parts.append(self.element(child, tag))
        return "".join(parts)

    def element(self, node: Any, tag: str) -> str:
        if tag not in _WRITTEN_TAGS:  # span, font, mark, ...: only their content
            return self.blocks(node)
        if tag in _BLOCK_TAGS:
            return f"\n\n{self.blocks(node).strip()}\n\n"
        level = _HEADINGS.get(tag)
        if level is not None:
            text = " ".join(self.blocks(node).split())
            return f"\n\n{'#' * level} {text}\n\n" if text else ""
        if tag == "a":
            return self.link(node)
        marker = _EMPHASIS.get(tag)
        if marker is not None:
            text = self.blocks(node)
            inner = text.strip()
            if not inner:
                return text
            lead = " " if text[0].isspace() else ""
            trail = " " if text[-1].isspace() else ""
            return f"{lead}{marker}{inner}{marker}{trail}"
        if tag == "br":
            return "\n"
        if tag in ("ul", "ol"):
            return self.list(node, ordered=tag == "ol")
        if tag == "li":  # outside a list
            return f"\n\n- {self.blocks(node).strip()}\n\n"
        if tag == "pre":
            return self.pre(node)
        if tag in ("code", "kbd", "samp", "tt"):
            code = " ".join((node.text() or "").split())
            if not code:
                return ""
            fence = "``" if "`" in code else "`"
            return f"{fence}{code}{fence}"
        if tag == "blockquote":
            inner = _tidy(self.blocks(node))
            if not inner:
                return ""
            quoted = "\n".join(f"> {line}" if line else ">" for line in inner.split("\n"))
            return f"\n\n{quoted}\n\n"
        if tag == "hr":
            return "\n\n---\n\n"
        if tag == "table":
            if not node.text(strip=True):
                return ""
            if node.css_first(_LAYOUT_CELLS) is not None:
                # A table used for layout: its cells hold paragraphs, lists or more tables.
                return f"\n\n{self.blocks(node).strip()}\n\n"
            return self.table(node)
        if tag == "img":
            if not self.include_images:
                return ""
            alt = " ".join((node.attributes.get("alt") or "").split())
            src = node.attributes.get("src") or ""
            return f"![{alt}]({src})" if src else ""
        return self.blocks(node)

    def link(self, node: Any) -> str:
        text = self.blocks(node)
        inner = " ".join(text.split())
        if "\n" in text.strip():
            # A heading or paragraphs inside a link (a story card): keep the words, not the layout.
            inner = " ".join(_ESCAPE.sub(r"\\\g<0>", node.text() or "").split())
        href = (node.attributes.get("href") or "").strip()
        if not inner:
            return ""
        lead = " " if text[0].isspace() else ""
        trail = " " if text[-1].isspace() else ""
        if not href:
            return f"{lead}{inner}{trail}"
        href = href.replace(" ", "%20").replace(")", "%29").replace("(", "%28")
        title = node.attributes.get("title")
        suffix = f' "{title.replace(chr(34), "")}"' if title else ""
        return f"{lead}[{inner}]({href}{suffix}){trail}"

    def list(self, node: Any, ordered: bool) -> str:
        if _indents_text(node):
            return f"\n\n{self.blocks(node).strip()}\n\n"
        items: list[str] = []
        number = 1
        if ordered:
            start = node.attributes.get("start") or ""
            number = int(start) if start.isdigit() else 1
        for child in node.iter(include_text=False):
            if child.tag in ("ul", "ol"):
                nested = self.list(child, ordered=child.tag == "ol").strip("\n")
                if nested and items:
                    items[-1] += "\n" + "\n".join(f"  {line}" if line else "" for line in nested.split("\n"))
                elif nested:
                    items.append(nested)
                continue
            body = _tidy(self.blocks(child) if child.tag == "li" else self.element(child, child.tag))
            if not body:
                continue
            bullet = f"{number}. " if ordered else "- "
            number += 1
            pad = " " * len(bullet)
            lines = body.split("\n")
            items.append(bullet + lines[0] + "".join(f"\n{pad}{line}" if line else "\n" for line in lines[1:]))
        return "\n\n" + "\n".join(items) + "\n\n" if items else ""

    def table(self, node: Any) -> str:
        """A Markdown table. Markdown cannot merge cells: a merged cell is spread over the grid, its
        text repeated in every row and column it spans, so that each row reads on its own."""
        rows: list[list[str]] = []
        # column -> the text of a cell spanning down into the next rows, and how many rows it still covers
        above: dict[int, tuple[str, int]] = {}
        spare = _MAX_SPREAD_CELLS
        trs = node.css("tr")
        for index, row in enumerate(trs):
            cells: list[str] = []
            for cell in row.iter(include_text=False):
                if cell.tag not in ("td", "th"):
                    continue
                while len(cells) in above:
                    cells.append(_from_above(above, len(cells)))
                text = " ".join(self.blocks(cell).split()).replace("|", "\\|")
                attributes = cell.attributes
                across = max(1, _span(attributes.get("colspan"), 1_000))
                down = min(_span(attributes.get("rowspan"), 65_534) or 65_534, len(trs) - index)  # 0: to the end
                if across * down - 1 > spare:  # spans without end (a hostile page): left unspread
                    across = down = 1
                spare -= across * down - 1
                for column in range(len(cells), len(cells) + across):
                    if down > 1:
                        above[column] = (text, down - 1)
                    cells.append(text)
            for column in range(len(cells), max(above, default=-1) + 1):
                cells.append(_from_above(above, column) if column in above else "")
            if any(cells):
                rows.append(cells)
        if not rows:
            return ""
        width = max(len(row) for row in rows)
        lines = [f"| {' | '.join(row + [''] * (width - len(row)))} |" for row in rows]
        lines.insert(1, "|" + " --- |" * width)
        return "\n\n" + "\n".join(lines) + "\n\n"

    def pre(self, node: Any) -> str:
        for line_break in node.css("br"):  # some pages break a block's lines with <br>, not newlines
            line_break.replace_with("\n")
        code = (node.text(deep=True) or "").strip("\n")
        if not code.strip():
            return ""
        language = ""
        for holder in (node, node.css_first("code")):
            if holder is None:
                continue
            for token in (holder.attributes.get("class") or "").split():
                if token.startswith(("language-", "lang-")):
                    language = token.split("-", 1)[1]
        fence = "````" if "```" in code else "```"
        return f"\n\n{fence}{language}\n{code}\n{fence}\n\n"


_DIGITS = re.compile(r"[0-9]+")
_MAX_SPREAD_CELLS = 100_000
"""Grid cells a table's merged cells may fill; past it, further merged cells are not spread."""
_CODE_FENCE = re.compile(r"^(`{3,}).*?^\1\s*$", re.M | re.S)


def _indents_text(listing: Any) -> bool:
    """``listing`` holds text of its own and no list item: a list tag used to indent a passage (as older pages
    do), which reads as a paragraph, not as a list."""
    loose = False
    for child in listing.iter(include_text=True):
        if child.tag == "li":
            return False
        if child.tag == "-text" and not loose:
            loose = bool((child.text_content or "").strip())
    return loose


def _collapse_spaces(text: str) -> str:
    """Each run of whitespace in ``text`` as one space (``str.split`` and ``\\s`` agree on what is space)."""
    collapsed = " ".join(text.split())
    if collapsed == text:
        return text
    if not collapsed:
        return " "
    if text[0].isspace():
        collapsed = " " + collapsed
    if text[-1].isspace():
        collapsed += " "
    return collapsed


def _tidy(text: str) -> str:
    """Blank lines between blocks, no stray spaces at the line ends or starts (outside code)."""
    if "```" in text:
        pieces = []
        last = 0
        for match in _CODE_FENCE.finditer(text):
            pieces.append(_tidy_prose(text[last:match.start()]))
            pieces.append("\n\n" + match.group(0) + "\n\n")
            last = match.end()
        pieces.append(_tidy_prose(text[last:]))
        text = "".join(pieces)
    else:
        text = _tidy_prose(text)
    if "\n\n\n" in text:
        text = _BLANK_LINES.sub("\n\n", text)
    return text.strip("\n")


def _tidy_prose(text: str) -> str:
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    if text.startswith(" ") or "\n " in text:
        # Inline text starts each line with the space that separated it from the previous tag.
        text = _LINE_START_SPACE.sub("", text)
    return text


_BLANK_LINES = re.compile(r"\n{3,}")
_LINE_START_SPACE = re.compile(r"(?m)^ (?=\S)(?![-*>] |\d+\. )")


def _to_markdown(main: Any, include_images: bool) -> str:
    return _tidy(_MarkdownWriter(include_images).element(main, "div")).strip()


def _span(value: str | None, most: int) -> int:
    """A colspan or rowspan attribute: a whole number up to ``most`` (HTML's limits), else 1."""
    value = (value or "").strip()
    return min(int(value), most) if _DIGITS.fullmatch(value) else 1


def _from_above(above: dict[int, tuple[str, int]], column: int) -> str:
    """The text of the cell above spanning down into ``column`` of this row; one row less to go."""
    text, rows = above.pop(column)
    if rows > 1:
        above[column] = (text, rows - 1)
    return text


def _metadata(tree: Any) -> dict[str, str]:
    metas: dict[str, str] = {}
    scripts = []
    for node in tree.css('meta, script[type="application/ld+json"]'):
        if node.tag != "meta":
            scripts.append(node)
            continue
        attributes = node.attributes
        key = (attributes.get("property") or attributes.get("name") or attributes.get("itemprop") or "").lower()
        content = attributes.get("content")
        if key and content and key not in metas:
            metas[key] = content.strip()
    ld = _json_ld(scripts)

    def first(*keys: str) -> str:
        for key in keys:
            if metas.get(key):
                return metas[key]
        return ""

    title_node = tree.css_first("title")
    h1 = tree.css_first("h1")
    title = first("og:title", "twitter:title") or ld.get("headline", "") or (
        title_node.text(strip=True) if title_node is not None else ""
    ) or (h1.text(strip=True) if h1 is not None else "")
    author = first("author", "article:author", "parsely-author", "sailthru.author", "byl", "dc.creator") or ld.get(
        "author", ""
    )
    if author.startswith(("http://", "https://")):
        author = ld.get("author", "")
    if not author:
        node = tree.css_first('[itemprop="author"], [rel="author"], .author, .byline')
        if node is not None:
            text = node.text(strip=True)
            author = text if len(text) <= 100 else ""
    published = first(
        "article:published_time", "og:published_time", "datepublished", "pubdate", "publishdate", "date",
        "dc.date.issued", "dc.date", "sailthru.date", "parsely-pub-date",
    ) or ld.get("datePublished", "")
    if not published:
        node = tree.css_first("time[datetime]")
        if node is not None:
            published = node.attributes.get("datetime") or ""
    return {
        "title": " ".join(title.split()),
        "description": " ".join(first("description", "og:description", "twitter:description").split())
        or ld.get("description", ""),
        "author": " ".join(author.split()),
        "published": published.strip(),
    }


def _json_ld(scripts: list[Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in scripts:
        try:
            data = json.loads(node.text() or "")
        except ValueError:
            continue
        for item in _ld_items(data):
            for key in ("headline", "datePublished", "description"):
                value = item.get(key)
                if isinstance(value, str) and key not in found:
                    found[key] = value.strip()
            author = item.get("author")
            if "author" not in found and author:
                names = [a.get("name") if isinstance(a, dict) else a for a in (author if isinstance(author, list)
                                                                                else [author])]
                joined = ", ".join(str(n) for n in names if isinstance(n, str) and n)
                if joined:
                    found["author"] = joined
    return found


def _ld_items(data: Any) -> list[dict[str, Any]]:
    if isinstance(data, list):
        return [item for entry in data for item in _ld_items(entry)]
    if isinstance(data, dict):
        items = [data]
        graph = data.get("@graph")
        if isinstance(graph, list):
            items.extend(item for item in graph if isinstance(item, dict))
        return items
    return []


# --- retrieval ------------------------------------------------------------------------------------


def is_html_type(content_type: str) -> bool:
    """True for HTML media types (and a missing type, which is sniffed after reading)."""
    return content_type in HTML_TYPES or content_type == ""


def decode_html(content: bytes, declared_charset: str | None) -> str:
    """Decode an HTML body: the declared charset, else a ``<meta charset>``, else UTF-8."""
    charset = declared_charset
    if not charset:
        match = re.search(rb"""<meta[^>]+charset\s*=\s*["']?([\w.:-]+)""", content[:4096], re.I)
        charset = match.group(1).decode("ascii", "replace") if match else "utf-8"
    try:
        return content.decode(charset, errors="replace")
    except LookupError:
        return content.decode("utf-8", errors="replace")


async def retrieve(
    url: str,
    policy: TargetPolicy = PUBLIC_ONLY,
    *,
    client: SafeHTTPClient | None = None,
    max_bytes: int = DEFAULT_PAGE_MAX_BYTES,
    timeout: float = 20.0,
    content_selector: str | None = None,
    include_images: bool = False,
) -> ExtractedWebPage:
    """Fetch one HTML page under ``policy`` and extract it; the page's ``url`` is the final URL.

    A body longer than ``max_bytes`` is cut there (the start of a page holds its article). Raises
    the :mod:`toolplug.net` errors: ``URLNotAllowedError`` for a refused target,
    ``UnsupportedContentTypeError`` for anything but HTML, and the fetch failures.
    """
    own = client is None
    active = client or SafeHTTPClient(policy, timeout=timeout, max_bytes=max_bytes)
    try:
        response = await active.fetch(
            url, max_bytes=max_bytes, timeout=timeout, accept_content_type=is_html_type, truncate=True
        )
    finally:
        if own:
            await active.aclose()
    if response.looks_binary():
        raise UnsupportedContentTypeError(
            f"{response.final_url} sent a binary body ({response.content_type or 'no Content-Type'}), not an HTML "
            "page.",
            url=response.final_url, content_type=response.content_type or "application/octet-stream",
        )
    html = decode_html(response.content, response.charset)
    if len(html) > 300_000:
        # Large pages take tens of milliseconds to parse; keep the event loop responsive.
        return await asyncio.to_thread(
            extract, html, response.final_url, content_selector=content_selector, include_images=include_images
        )
    return extract(html, response.final_url, content_selector=content_selector, include_images=include_images)


# --- the character budget -------------------------------------------------------------------------


def allocate_budget(lengths: Sequence[int], total: int, minimum: int) -> list[int]:
    """Share ``total`` characters between results of the given lengths, in ranking order.

    Each result first receives up to ``minimum`` (never more than its length), in ranking order while
    the budget lasts; what remains goes to the results in ranking order, each taking what it still
    needs, so a short page passes its unused allocation on to later ones. The sum never exceeds
    ``total``.
    """
    if total < 0 or minimum < 0:
        raise ValueError("total and minimum must not be negative")
    allocation = []
    remaining = total
    for length in lengths:
        share = min(max(length, 0), minimum, remaining)
        allocation.append(share)
        remaining -= share
    for index, length in enumerate(lengths):
        if remaining <= 0:
            break
        extra = min(max(length, 0) - allocation[index], remaining)
        if extra > 0:
            allocation[index] += extra
            remaining -= extra
    return allocation


def truncate_text(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at a paragraph or word boundary, marked ``[…]``."""
    if len(text) <= limit:
        return text
    if limit <= len(TRUNCATION_MARK):
        return text[: max(limit, 0)]
    room = limit - len(TRUNCATION_MARK)
    cut = text[:room]
    boundary = max(cut.rfind("\n\n"), -1)
    if boundary < room * 0.6:
        boundary = cut.rfind(" ")
    if boundary < room * 0.6:
        boundary = room
    return cut[:boundary].rstrip() + TRUNCATION_MARK


# --- the sanitizer --------------------------------------------------------------------------------

_PAGE_FIELDS = ("title", "description", "author", "published", "markdown")


class WebPageContentSanitizer:
    """Passes every field of extracted pages that reaches the model through the guard.

    Call it after truncating: only what the model receives needs checking. All pages (and any extra
    texts, such as search result titles) go to the guard in one batch, so the user sees one report
    per tool call, grouped by page.

    :param guard: the host's guard; None builds one with the built-in filter.
    """

    def __init__(self, guard: PromptInjectionGuard | None = None) -> None:
        self.guard = guard or PromptInjectionGuard.with_builtin_filter()

    async def sanitize(
        self,
        pages: Sequence[ExtractedWebPage],
        context: ToolExecutionContext | None = None,
        extra: Sequence[InjectionText] = (),
    ) -> tuple[list[ExtractedWebPage], list[str]]:
        """The pages with every field filtered, and the filtered ``extra`` texts, in order."""
        batch: list[InjectionText] = []
        for page in pages:
            source = InjectionSource.web_content(page.url)
            batch.extend(InjectionText(getattr(page, name), source) for name in _PAGE_FIELDS)
        batch.extend(extra)
        filtered = await self.guard.filter_texts(batch, context)
        cleaned = []
        for index, page in enumerate(pages):
            values = filtered[index * len(_PAGE_FIELDS): (index + 1) * len(_PAGE_FIELDS)]
            title, description, author, published, markdown = values
            cleaned.append(replace(page, title=title, description=description, author=author, published=published,
                                   markdown=markdown))
        return cleaned, filtered[len(pages) * len(_PAGE_FIELDS):]


__all__ = [
    "DEFAULT_PAGE_MAX_BYTES",
    "ExtractedWebPage",
    "WebPageContentSanitizer",
    "allocate_budget",
    "decode_html",
    "extract",
    "is_html_type",
    "retrieve",
    "truncate_text",
]
