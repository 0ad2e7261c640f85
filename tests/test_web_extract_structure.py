"""Where the article ends: the page's structure (its marked main content, its lists of other pages) bounds it."""

from __future__ import annotations

from _web_story import STORY, paragraphs, story_kept

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
    markdown = story_kept(f"""<p>{STORY[0]}</p>
<div id="locate-error" class="notice">We are sorry, your location is not available. Please type an address in the
search box or click on the map below.</div>
<h3 id="error-handling">Error handling</h3><p>{STORY[1]}</p>
<p>{STORY[2]}</p>""")
    assert "### Error handling" in markdown
    assert "location is not available" not in markdown


# REQ: WEB-3
def test_a_block_named_as_navigation_that_holds_the_articles_prose_stays_and_a_menu_goes() -> None:
    more = [
        "Shops on the southern bank fear losing customers during the works, and the chamber of commerce has asked "
        "the council for a temporary footbridge and for free parking in the market square until the bridge reopens.",
        "The engineers' report, published on the council's website, describes the cracks in detail and recommends "
        "replacing both piers rather than repairing them, which would extend the life of the bridge by fifty years.",
        "A public meeting on the detours is planned for next month in the town hall, where residents can put their "
        "questions to the engineers, the bus company and the councillors who voted for the closure.",
        "The bridge was opened in 1911 and carried trams until the fifties; it has been listed as a monument since "
        "1985, so every repair must be approved by the heritage office, which has promised a quick decision.",
        "Until then the ferry that stopped running when the bridge was built will cross the river again, twice an "
        "hour from seven in the morning until nine at night, with tickets at the price of a bus fare.",
        "The regional government will decide in the autumn whether the new piers are built of steel or of stone, "
        "after a study of the river bed that divers from the port authority began this week.",
        "Local schools have been asked to plan their excursions around the works, since the coaches that take the "
        "pupils to the museum on the other bank will also have to use the northern ring road.",
    ]
    menu = "".join(f'<a href="/{word}/">{word}</a> ' for word in ("news", "sport", "weather", "travel"))
    html = f"""<html><head><title>Old bridge closes</title></head><body>
<div class="c1"><div class="c2"><div class="content-nav-section">{paragraphs(STORY + more[:1])}</div>
<div class="rtf">{paragraphs(more[1:])}</div>
<div class="site-nav">{menu} Follow the council's other work</div></div></div>
</body></html>"""
    markdown = extract(html).markdown
    for text in STORY + more:
        assert text in markdown
    assert "weather" not in markdown and "other work" not in markdown


# REQ: WEB-3
def test_an_element_marked_as_a_heading_opens_a_furniture_section_as_a_heading_would() -> None:
    comments = ('<div class="c5" role="heading" aria-level="2">3 Comments</div>'
                '<div class="c6"><p>Great news, about time!</p><p>Who pays for this?</p></div>')
    markdown = story_kept(f"{paragraphs(STORY)}{comments}")
    for furniture in ("Comments", "about time", "Who pays"):
        assert furniture not in markdown


# REQ: WEB-3
def test_a_paragraph_labelled_about_the_author_goes_with_the_note_under_it() -> None:
    note = ("Dana Reyes covers transport and the town council for the paper, and before that reported on the "
            "regional economy for ten years.")
    markdown = story_kept(f"{paragraphs(STORY)}<p>About the Author:</p><p>{note}</p>")
    assert "About the Author" not in markdown and "Dana Reyes" not in markdown


# REQ: WEB-3
def test_the_lines_that_file_the_article_under_a_category_or_topic_go() -> None:
    filing = ('<div class="meta-row">Category: <a href="/category/transport/">Transport</a></div>'
              '<div class="mt-4">Topic: <span class="tag">Roads and bridges</span></div>')
    markdown = story_kept(f"{paragraphs(STORY)}{filing}")
    assert "Category" not in markdown and "Roads and bridges" not in markdown


# REQ: WEB-3
def test_a_list_tag_that_only_indents_a_passage_keeps_its_text_and_a_list_stays_a_list() -> None:
    aside = ("(Really the goal is to <i>walk</i> across by the summer, but a ferry ticket will do until the engineers "
             "are done with the piers.)")
    markdown = story_kept(f"""{paragraphs(STORY)}<ul> {aside} </ul>
<ul><li>Northern ring road</li><li>Footpath on the bridge</li></ul>""")
    assert "(Really the goal is to *walk* across by the summer" in markdown
    assert "- Northern ring road\n- Footpath on the bridge" in markdown


# REQ: WEB-3
def test_the_pages_path_from_the_home_page_goes_and_a_list_of_places_stays() -> None:
    path = ('<ol><li><a href="/">Home</a></li><li><a href="/news/">News</a></li><li><a href="/news/town/">Town</a>'
            '</li><li>Old bridge closes</li></ol>')
    crumbs = ('<div class="entry-crumbs"><a href="/">Start</a> &rsaquo; <a href="/roads/">Roads and transport</a> '
              '&rsaquo; <span>Closure of the old bridge to cars</span></div>')
    places = "<ul><li><a href='/places/home'>Home</a> of the town's oldest market</li><li>The station</li></ul>"
    markdown = story_kept(f"{path}{crumbs}{paragraphs(STORY)}{places}")
    for crumb in ("News", "Town", "Roads and transport", "Closure of the old bridge"):
        assert crumb not in markdown
    assert "oldest market" in markdown and "The station" in markdown



# REQ: WEB-3
def test_the_sites_note_that_the_page_is_old_goes_and_a_sentence_about_age_stays() -> None:
    note = "This article is more than 5 years old. Some of its facts may have changed since it was written."
    age = ("This bridge is more than 100 years old, and the engineers say its stone piers were never meant to carry "
           "the weight of modern lorries.")
    markdown = story_kept(f"<p>{note}</p>{paragraphs(STORY)}<p>{age}</p>")
    assert "5 years old" not in markdown and age in markdown


# REQ: WEB-3
def test_the_line_linking_to_the_authors_latest_posts_goes() -> None:
    markdown = story_kept(f"""{paragraphs(STORY)}
<div class="c9">Latest posts by Dana Reyes (<a href="/author/dana/">see all</a>)</div>""")
    assert "Latest posts" not in markdown
