"""Where the article ends: the page's structure (its marked main content, its lists of other pages) bounds it."""

from __future__ import annotations

from _web_story import STORY, paragraphs

from toolplug.web import extract


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


def test_story_cards_go_whole_with_their_long_excerpts_and_sections_with_plain_headings_stay() -> None:
    excerpts = [
        "The new tram line will link the station with the hospital and the university by the end of next year, "
        "and the first trial runs start in the spring after the tracks are laid through the old market square.",
        "Farmers at the weekly market say the dry summer has halved their harvest of apples and pears, and that "
        "prices will stay high until the new orchards planted on the hills start to bear fruit in a few years.",
        "The swimming pool on the river bank reopens after two years of works, with a new roof, heated water and "
        "longer opening hours for schools and clubs, the sports department announced in a letter to residents.",
    ]
    cards = "".join(
        f'<div class="post-item"><h3><a href="/news/{number}/">Other story {number}</a></h3><p>{text}</p></div>'
        for number, text in enumerate(excerpts)
    )
    sections = "".join(
        f'<div class="part"><h3>Part {number}</h3><p>{text}</p></div>' for number, text in enumerate(STORY)
    )
    html = f"""<html><head><title>Old bridge closes</title></head><body>
<div class="c1"><div class="c2">{sections}</div><div class="c3">{cards}</div></div></body></html>"""
    markdown = extract(html).markdown
    for text in STORY:
        assert text in markdown
    for text in excerpts:
        assert text not in markdown


def test_a_scripts_error_message_goes_and_a_section_on_handling_errors_stays() -> None:
    html = f"""<html><head><title>Old bridge closes</title></head><body>
<div class="c1"><div class="c2"><p>{STORY[0]}</p>
<div id="locate-error" class="notice">We are sorry, your location is not available. Please type an address in the
search box or click on the map below.</div>
<h3 id="error-handling">Error handling</h3><p>{STORY[1]}</p>
<p>{STORY[2]}</p></div></div></body></html>"""
    markdown = extract(html).markdown
    for text in STORY:
        assert text in markdown
    assert "### Error handling" in markdown
    assert "location is not available" not in markdown
