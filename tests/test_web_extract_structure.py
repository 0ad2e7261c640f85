"""Where the article ends: the page's structure (its marked main content, its lists of other pages) bounds it."""

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
    return "".join(f"<p>{text}</p>" for text in items)


def test_the_choice_stays_within_the_pages_main_content_and_leaves_the_column_beside_it() -> None:
    beside = [
        "Hello, I am Dana, and I have written about the towns of this valley for twenty years, from the markets "
        "to the council chamber, and I answer every letter my readers send.",
        "When I am not writing I walk the hills with my two dogs, grow tomatoes that never ripen in time, and read "
        "old maps of the region in the county library on Saturday mornings.",
    ]
    html = f"""<html><head><title>Old bridge closes</title></head><body>
<div class="c1"><div class="c2"><main>{paragraphs(STORY)}</main>
<div class="c3"><div class="c4">{paragraphs(beside)}</div></div></div></div></body></html>"""
    markdown = extract(html).markdown
    for text in STORY:
        assert text in markdown
    assert "Hello, I am Dana" not in markdown
    assert "old maps" not in markdown


def test_a_box_of_links_set_in_a_fieldset_goes_as_a_list_of_links_would() -> None:
    topics = "".join(f'<font size="1"><a href="/topics/{word}/">{word}</a></font> ' for word in (
        "bridges", "buses", "cycling", "council", "elections", "footpaths", "markets", "roads", "schools", "trains",
        "budgets", "weather",
    ))
    html = f"""<html><head><title>Old bridge closes</title></head><body>
<div class="c1"><div class="c2">{paragraphs(STORY)}<fieldset><legend>Topics</legend>{topics}</fieldset></div></div>
</body></html>"""
    markdown = extract(html).markdown
    for text in STORY:
        assert text in markdown
    assert "footpaths" not in markdown
