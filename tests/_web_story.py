"""A short news story of our own, in paragraphs, for the extraction tests to build pages around."""

from __future__ import annotations

from toolplug.web import extract

STORY = [
    "The council voted on Tuesday to close the old bridge to cars, after engineers found cracks in two of its "
    "supporting piers during the spring inspection.",
    "Buses will take a detour through the northern ring road, which adds about ten minutes to the journey, while "
    "cyclists and pedestrians can still cross on the footpath.",
    "Repairs are expected to take eighteen months and to cost about four million euros, most of it paid by the "
    "regional government, the mayor said.",
]


def paragraphs(items: list[str]) -> str:
    """``items`` as HTML paragraphs."""
    return "".join(f"<p>{text}</p>" for text in items)


def story_kept(body: str) -> str:
    """The Markdown extracted from a page titled after the story with ``body`` in two plain wrappers, once it is
    checked that every paragraph of :data:`STORY` is in it."""
    html = f"""<html><head><title>Old bridge closes</title></head><body>
<div class="c1"><div class="c2">{body}</div></div></body></html>"""
    markdown = extract(html).markdown
    for text in STORY:
        assert text in markdown
    return markdown
