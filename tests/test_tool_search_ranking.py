"""Tool search ranking rules, each on a small catalogue where only that rule can decide (LOOP-15).

The support desk below has one tool per action, all about the same thing, so the words of a query
alone cannot choose among them: what the query asks to do must. Other services give the index its
spread of words.
"""

from __future__ import annotations

import pytest

from toolplug.registry import RegisteredTool
from toolplug.tool_search import ToolIndex, tokenize
from toolplug.tools import function_tool

_DESK = [
    ("list_tickets", "List support tickets, newest first."),
    ("get_ticket", "Get one support ticket by its id."),
    ("create_ticket", "Create a support ticket for a customer."),
    ("update_ticket", "Update the fields of a support ticket."),
    ("delete_ticket", "Delete a support ticket."),
    ("search_tickets", "Search support tickets by keywords."),
    ("export_tickets", "Export support tickets to a file."),
    ("share_ticket", "Share a support ticket with a colleague."),
    ("archive_ticket", "Archive a support ticket."),
    ("ticket_stats", "Report figures on support tickets over a date range."),
]
_OTHERS = [
    ("list_photos", "List the photos in the photo library."),
    ("upload_photo", "Upload a photo to the photo library."),
    ("find_places", "Find cafés, shops and museums nearby."),
    ("forecast", "Fetches the weather forecast for a city."),
    ("list_invoices", "List invoices sent to customers."),
    ("add_invoice", "Add an invoice for a customer."),
]


def _index(specs: list[tuple[str, str]]) -> ToolIndex:
    tools = []
    for name, description in specs:
        entry = RegisteredTool.from_implementation(
            function_tool(name, description, {"type": "object", "properties": {}}, lambda args: "ok")
        )
        entry.plugin = "desk" if "ticket" in name else "other"
        tools.append(entry)
    return ToolIndex(tools)


@pytest.fixture(scope="module")
def index() -> ToolIndex:
    return _index(_DESK + _OTHERS)


def ranked(index: ToolIndex, query: str) -> list[str]:
    return [match.name for match in index.search(query, limit=20)]


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("cancel my ticket", "delete_ticket"),
        ("remove the ticket for Acme", "delete_ticket"),
        ("change the ticket priority", "update_ticket"),
        ("escalate the ticket to urgent", "update_ticket"),
        ("open a ticket for a customer", "create_ticket"),
        ("forward the ticket to Sam", "share_ticket"),
        ("download the tickets", "export_tickets"),
        ("look up tickets about login", "search_tickets"),
        ("please could you cancel the ticket", "delete_ticket"),
        ("how do I archive a ticket", "archive_ticket"),
    ],
)
def test_the_leading_verb_picks_the_tool_that_does_it_among_tools_about_one_thing(
    index: ToolIndex, query: str, tool: str
) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_a_tool_without_a_verb_in_its_name_takes_its_action_from_its_description() -> None:
    # the same words but the verb, and no verb in either name: only the descriptions tell them apart
    index = _index([("forecast_one", "Deletes the city forecast."), ("forecast_two", "Fetches the city forecast.")])
    assert ranked(index, "city forecast")[0] == "forecast_two"  # asks nothing: the lookup
    assert ranked(index, "remove the city forecast")[0] == "forecast_one"


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["cancelled tickets", "tickets cancelled yesterday", "escalated tickets"])
def test_a_verb_that_describes_things_instead_of_asking_is_no_action(index: ToolIndex, query: str) -> None:
    # "cancelled tickets" asks to see tickets, not to cancel one: a lookup wins
    assert ranked(index, query)[0] in {"list_tickets", "get_ticket", "search_tickets"}


# REQ: LOOP-15
def test_a_word_that_is_a_noun_as_often_as_a_verb_asks_only_with_an_object(index: ToolIndex) -> None:
    assert ranked(index, "open a ticket")[0] == "create_ticket"
    open_tickets = ranked(index, "open tickets")
    assert open_tickets[0] in {"list_tickets", "get_ticket", "search_tickets"}
    assert open_tickets.index("create_ticket") < 5  # still offered: it may have been a verb


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("ticket totals", "ticket_stats"),
        ("average tickets", "ticket_stats"),
        ("how many tickets did we get", "ticket_stats"),
        ("number of tickets", "ticket_stats"),
        ("tickets as csv", "export_tickets"),
        ("all tickets", "list_tickets"),
        ("ticket details", "get_ticket"),
    ],
)
def test_modifiers_anywhere_in_the_query_ask_for_their_action(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_a_period_hints_at_totals_without_displacing_the_lookups(index: ToolIndex) -> None:
    plain, period = ranked(index, "support tickets"), ranked(index, "support tickets this month")
    assert plain.index("ticket_stats") > 3  # no hint: the lookups and the rest come first
    assert period.index("ticket_stats") < 3
    assert {"list_tickets", "search_tickets"} <= set(period[:4])


# REQ: LOOP-15
def test_a_query_that_asks_nothing_prefers_a_lookup(index: ToolIndex) -> None:
    assert ranked(index, "support tickets")[0] in {"list_tickets", "get_ticket", "search_tickets"}
    assert ranked(index, "invoices")[0] == "list_invoices"


# REQ: LOOP-15
def test_the_stemmer_meets_every_form_of_a_word_alike() -> None:
    forms = ["rate", "rates", "rating", "ratings", "rated"]
    assert len({tokenize(form)[0] for form in forms}) == 1
    assert tokenize("string")[0] == "string"  # no vowel before -ing: not a verb form
    assert tokenize("entries")[0] == tokenize("entry")[0]
    assert tokenize("scheduled")[0] == tokenize("schedule")[0]


# REQ: LOOP-15
def test_accents_fold_so_resume_finds_an_accented_resume() -> None:
    index = _index([("parse_cv", "Parses a résumé into fields."), *_OTHERS])
    assert ranked(index, "resume")[0] == "parse_cv"
    assert ranked(index, "résumé")[0] == "parse_cv"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [("pictures from the trip", "list_photos"), ("coffee near me", "find_places"), ("will it be rainy", "forecast")],
)
def test_everyday_words_find_tools_that_use_the_proper_name(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
@pytest.mark.parametrize(
    "query", ["", "   ", "please", "the of and", "?!…", "🙂🙂", "x" * 10_000, "cancel " * 400, "日本語"]
)
def test_a_query_of_nothing_searchable_finds_nothing_and_never_fails(index: ToolIndex, query: str) -> None:
    matches = index.search(query, limit=5)
    assert len(matches) <= 5 and all(match.name for match in matches)


# REQ: LOOP-15
def test_words_in_other_scripts_stay_searchable() -> None:
    index = _index(
        [
            ("wetter", "Liefert die Wettervorhersage für eine Straße."),
            ("tenki", "天気予報を取得する"),
            ("punctuation", "…"),
            *_OTHERS,
        ]
    )
    assert ranked(index, "Straße")[0] == "wetter"
    assert ranked(index, "strasse") == []  # ß is its own letter, not folded away
    assert ranked(index, "stra") == []  # and "Straße" is one word, not "stra" and "ße"
    assert ranked(index, "天気予報を取得する")[0] == "tenki"
