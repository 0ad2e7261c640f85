"""Tool search ranking rules, each on a small catalogue where only that rule can decide (LOOP-15).

The support desk below has one tool per action, all about the same thing, so the words of a query
alone cannot choose among them: what the query asks to do must. Other services give the index its
spread of words.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from toolplug.registry import RegisteredTool
from toolplug.tool_search import ToolIndex, _query_intent, _stem, _topic_table, tokenize
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
        ("end the ticket", "delete_ticket"),
        ("amend the ticket", "update_ticket"),
        ("print the tickets", "export_tickets"),
        ("point the ticket at Sam", "update_ticket"),
        ("reply to the customer about the ticket", "create_ticket"),
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
        ("summarize the tickets", "ticket_stats"),
        ("compare tickets by month", "ticket_stats"),
    ],
)
def test_modifiers_anywhere_in_the_query_ask_for_their_action(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("get rid of the ticket", "delete_ticket"),
        ("pull up the ticket", "get_ticket"),
        ("fill in a ticket", "create_ticket"),
        ("put off the ticket", "update_ticket"),
        ("set me up with a ticket", "create_ticket"),  # a pronoun inside the phrasal verb
        ("queue up a ticket", "create_ticket"),
    ],
)
def test_a_phrasal_verb_asks_for_its_action(index: ToolIndex, query: str, tool: str) -> None:
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


# --- rules that read a plugin as one service, and more of the query's grammar -----------------------


def _service_index(specs: list[tuple[str, str, str, dict[str, str]]]) -> ToolIndex:
    """An index of (plugin, name, description, {argument: description}) tools."""
    tools = []
    for plugin, name, description, arguments in specs:
        properties = {key: {"type": "string", "description": text} for key, text in arguments.items()}
        entry = RegisteredTool.from_implementation(
            function_tool(name, description, {"type": "object", "properties": properties}, lambda args: "ok")
        )
        entry.plugin = plugin
        tools.append(entry)
    return ToolIndex(tools)


_AIR = [
    ("air", "list_readings", "List the air quality readings of a city.", {"city": "the city"}),
    ("air", "get_reading", "Get one air quality reading.", {"reading_id": "the id"}),
    ("air", "create_reading", "Create an air quality reading.", {"pollutant": "PM2.5, PM10 or ozone"}),
    ("garden", "list_plants", "List the plants in the garden.", {"bed": "the flower bed"}),
    ("garden", "create_plant", "Add a plant to the garden.", {"species": "the species"}),
]


def _scores(index: ToolIndex, query: str) -> dict[str, float]:
    return {match.name: match.score for match in index.search(query, limit=20)}


# REQ: LOOP-15
def test_a_word_only_the_create_tool_s_arguments_carry_counts_for_its_siblings_too() -> None:
    # "ozone" says which service is meant (only its create tool's schema names it), not which action
    index = _service_index(_AIR)
    plain, ozone = _scores(index, "readings"), _scores(index, "ozone readings")
    assert ozone["list_readings"] > plain["list_readings"]
    assert ozone["create_reading"] - ozone["list_readings"] < ozone["create_reading"] / 4


# REQ: LOOP-15
def test_a_plugin_s_share_finds_no_tool_that_matches_nothing_itself() -> None:
    # an application's own functions share one plugin and may have nothing else in common
    index = _service_index(
        [("app", "get_weather", "Get the weather forecast.", {}), ("app", "count_words", "Count words.", {})]
    )
    assert ranked(index, "weather forecast") == ["get_weather"]


# REQ: LOOP-15
def test_asking_for_one_kind_of_read_raises_the_other_reads(index: ToolIndex) -> None:
    assert set(ranked(index, "show me the ticket")[:3]) == {"get_ticket", "list_tickets", "search_tickets"}


# REQ: LOOP-15
def test_a_read_of_things_in_the_plural_asks_for_the_list(index: ToolIndex) -> None:
    found = ranked(index, "show the urgent tickets")
    assert found[:2] == ["list_tickets", "get_ticket"]  # many things: the list first, one of them next
    assert ranked(index, "show me the tickets from Acme")[0] == "list_tickets"
    # the parts of one thing are no list of things: "the replies of the ticket" are in that ticket
    assert ranked(index, "show the replies of the ticket")[0] == "get_ticket"
    assert ranked(index, "show the replies A1 to A9 of the ticket")[0] == "get_ticket"


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["urgent tickets", "tickets about login", "escalated tickets"])
def test_things_in_the_plural_with_no_verb_prefer_the_list_among_the_lookups(index: ToolIndex, query: str) -> None:
    found = ranked(index, query)
    assert found[0] == "list_tickets"
    assert {"get_ticket", "search_tickets"} <= set(found[:3])  # a faint hint: the other reads stay close


# REQ: LOOP-15
def test_how_much_something_is_asks_its_value_more_than_totals(index: ToolIndex) -> None:
    assert ranked(index, "how many tickets did we get")[0] == "ticket_stats"
    value = _scores(index, "how much is the ticket")  # only a hint: the lookups stay level with totals
    assert value["get_ticket"] > 0.9 * value["ticket_stats"]


# REQ: LOOP-15
def test_letting_someone_see_a_thing_shares_it(index: ToolIndex) -> None:
    assert ranked(index, "let Sam and the team see the ticket")[0] == "share_ticket"
    assert ranked(index, "let me see the ticket")[0] != "share_ticket"


# REQ: LOOP-15
def test_a_question_word_faintly_orders_the_lookups(index: ToolIndex) -> None:
    assert ranked(index, "which ticket did Sam escalate")[0] == "list_tickets"
    assert ranked(index, "where is the ticket from Sam")[0] == "get_ticket"


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["a support ticket for the login outage", "urgent tickets", "the ticket"])
def test_a_request_that_names_no_action_offers_a_new_thing_right_after_the_lookups(
    index: ToolIndex, query: str
) -> None:
    found = ranked(index, query)
    assert set(found[:3]) == {"get_ticket", "list_tickets", "search_tickets"}  # a lookup still comes first
    assert found[3] == "create_ticket"  # then a new thing, before changing or removing what exists


# REQ: LOOP-15
def test_an_action_the_query_names_stays_above_the_new_thing_a_verbless_request_may_want(index: ToolIndex) -> None:
    assert ranked(index, "archive the ticket")[0] == "archive_ticket"
    named = _scores(index, "archive the ticket")
    assert named["create_ticket"] <= named["delete_ticket"]  # an action named: no new thing is lifted
    found = ranked(index, "support tickets this month")  # a hint of totals is an action named
    assert found.index("ticket_stats") < found.index("create_ticket")
    assert ranked(index, "a zxqvw for qqq") == []  # no word of any tool: nothing is lifted into the results


# REQ: LOOP-15
def test_a_verbless_request_lifts_no_create_tool_above_the_tools_it_names() -> None:
    index = _index(_DESK + _OTHERS)
    found = ranked(index, "a support ticket for a customer")
    assert found.index("add_invoice") > found.index("list_tickets")  # "customer" alone names the invoices
    assert found.index("add_invoice") > found.index("delete_ticket")


# REQ: LOOP-15
@pytest.mark.parametrize(
    "query",
    ["raise the ticket priority to 2", "the ticket priority to 2", "set the ticket to 3", "bump my ticket to 1"],
)
def test_taking_a_thing_the_query_names_to_a_number_updates_it(index: ToolIndex, query: str) -> None:
    assert ranked(index, query)[0] == "update_ticket"


# REQ: LOOP-15
@pytest.mark.parametrize(
    "query",
    [
        "book a ticket from 2 to 4",
        "book the ticket from 2 to 4",
        "book the ticket from monday to 3 june",
        "log the 9 to 5 shift as a ticket",
        "send a ticket to 555-0101",
        "raise a ticket",
    ],
)
def test_a_range_or_a_new_thing_sent_to_a_number_is_no_update(index: ToolIndex, query: str) -> None:
    assert ranked(index, query)[0] == "create_ticket"


# REQ: LOOP-15
def test_stop_showing_a_thing_archives_it(index: ToolIndex) -> None:
    assert ranked(index, "stop showing the ticket")[0] == "archive_ticket"
    assert ranked(index, "please stop showing old tickets")[0] == "archive_ticket"


# REQ: LOOP-15
def test_an_acronym_s_plural_is_one_word_its_singular() -> None:
    assert tokenize("SKUs") == ["sku"]
    assert tokenize("open PRs") == tokenize("open PR")
    assert tokenize("listVMs") == ["list", "vm", "list+vm"]
    assert tokenize("IDs of CPUs") == ["id", "cpu", "id+cpu"]
    assert tokenize("ADDRESS") == ["address"]  # a word in capitals is no acronym's plural
    assert tokenize("PMs") == ["pm"] and tokenize("Ms") == ["ms"]
    index = _index([("count_stock", "Count the stock of one SKU."), *_OTHERS])
    assert ranked(index, "SKUs")[0] == "count_stock"


# REQ: LOOP-15
def test_making_something_that_exists_changes_it_and_making_a_thing_creates_it(index: ToolIndex) -> None:
    assert ranked(index, "make the ticket urgent")[0] == "update_ticket"
    assert ranked(index, "make a ticket for the outage")[0] == "create_ticket"


# REQ: LOOP-15
def test_a_hyphenated_pair_is_a_noun_not_a_verb_and_its_particle(index: ToolIndex) -> None:
    assert ranked(index, "set up a ticket")[0] == "create_ticket"
    assert ranked(index, "set-up tickets")[0] in {"list_tickets", "get_ticket", "search_tickets"}


# REQ: LOOP-15
def test_the_thesaurus_reaches_plurals_but_not_the_things_a_verb_names() -> None:
    index = _service_index(
        [
            ("cal", "list_events", "List the calendar events.", {}),
            ("rooms", "reserve_room", "Creates a room reservation.", {}),
            ("library", "list_loans", "List the loans of a library.", {}),
        ]
    )
    assert ranked(index, "meetings this week")[0] == "list_events"  # "meeting" means an event
    assert ranked(index, "book a room")[0] == "reserve_room"  # "book" means reserve
    assert "reserve_room" not in ranked(index, "books on loan")  # but books are no bookings


# REQ: LOOP-15
def test_a_verb_leading_a_later_clause_asks_for_its_action(index: ToolIndex) -> None:
    assert ranked(index, "this is urgent, escalate the ticket")[0] == "update_ticket"
    assert ranked(index, "the printer broke and I need to open a ticket")[0] == "create_ticket"
    assert ranked(index, "this is urgent - escalate the ticket")[0] == "update_ticket"  # a dash between words
    assert ranked(index, "the follow-up ticket")[0] != "update_ticket"  # a hyphen joins, it breaks nothing


# REQ: LOOP-15
def test_the_form_a_tool_uses_tells_words_with_one_stem_apart() -> None:
    # "trainings" and "trains" share the stem "train"; the tool that says "trainings" wins
    index = _service_index(
        [("rail", "list_trains", "List the trains.", {}), ("hr", "list_trainings", "List the trainings.", {})]
    )
    assert ranked(index, "trainings")[0] == "list_trainings"
    assert ranked(index, "trains")[0] == "list_trains"


_ORDERS = [
    ("food", "list_orders", "List the food orders.", {}),
    ("food", "create_order", "Create a food order.", {}),
    ("food", "get_order_status", "Get the order status of a food order.", {}),
    ("tables", "list_reservations", "List the table reservations.", {}),
    ("tables", "get_reservation", "Get one table reservation.", {}),
    ("tables", "create_reservation", "Create a table reservation.", {}),
    ("rail", "list_train_tickets", "List the train tickets.", {}),
    ("rail", "get_train_ticket", "Get one train ticket.", {}),
    ("rail", "create_train_ticket", "Create a train ticket.", {}),
]


# REQ: LOOP-15
def test_a_noun_verb_before_a_word_it_forms_no_known_phrase_with_is_a_verb() -> None:
    index = _service_index(_ORDERS)
    assert ranked(index, "order sushi")[0] == "create_order"  # the catalogue knows no "order sushi"
    assert ranked(index, "order status")[0] != "create_order"  # it knows "order status": a thing


# REQ: LOOP-15
def test_a_party_size_or_a_journey_between_named_places_hints_at_a_booking() -> None:
    index = _service_index(_ORDERS)
    assert ranked(index, "table for two tonight")[0] == "create_reservation"
    assert ranked(index, "table reservations tonight")[0] != "create_reservation"
    assert ranked(index, "train from Paris to Lyon on Friday")[0] == "create_train_ticket"
    assert ranked(index, "train tickets on Friday")[0] != "create_train_ticket"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("what did the team spend", "list_expenses"),
        ("applicants for the job", "list_candidates"),
        ("emails in my inbox", "list_mail"),
        ("sunny tomorrow", "get_forecast"),
        ("a pharmacy near me", "find_shops"),
        ("a van for saturday", "find_cars"),
    ],
)
def test_the_thesaurus_knows_more_everyday_words(query: str, tool: str) -> None:
    index = _service_index(
        [
            ("money", "list_expenses", "List the expense reports.", {}),
            ("hiring", "list_candidates", "List the candidates in hiring.", {}),
            ("mail", "list_mail", "List the mail messages.", {}),
            ("weather", "get_forecast", "Get the weather forecast.", {}),
            ("places", "find_shops", "Find shops nearby.", {}),
            ("rental", "find_cars", "Find rental cars.", {}),
        ]
    )
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_a_time_of_day_is_no_pm_of_a_pollutant() -> None:
    index = _service_index(
        [
            ("air", "create_reading", "Create a PM2.5 or PM10 reading.", {}),
            ("cal", "update_event", "Update a calendar event.", {}),
        ]
    )
    assert ranked(index, "move my 2pm meeting to 4 pm") == ["update_event"]
    assert ranked(index, "PM2.5 readings")[0] == "create_reading"


# --- everyday words no tool uses, and the subjects they talk about -------------------------------------

_HOUSEHOLD = [
    ("billing", "remove_invoice", "Remove an invoice.", {}),
    ("surgery", "list_visits", "List the doctor appointments at the clinic.", {}),
    ("surgery", "new_visit", "Create a doctor appointment at the clinic.", {"doctor": "the physician"}),
    ("surgery", "drop_visit", "Delete a doctor appointment at the clinic.", {"visit_id": "the id"}),
    ("surgery", "remove_visit", "Remove a visit.", {}),
    ("surgery", "surgery_opening_hours", "Opening hours of the practice.", {}),
    ("sky", "get_forecast", "Get the weather forecast for a city.", {"city": "the city"}),
    ("lab", "get_lab_result", "Get one lab test result of a patient.", {"patient": "the patient"}),
    ("heat", "set_thermostat", "Set the thermostat's target temperature.", {"zone": "the heating zone"}),
    ("billing", "list_invoices", "List the invoices sent to customers.", {}),
    ("billing", "create_invoice", "Create an invoice for a customer.", {"customer": "who is billed"}),
]


@pytest.fixture(scope="module")
def household() -> ToolIndex:
    return _service_index(_HOUSEHOLD)


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("drizzle in Leeds", "get_forecast"),
        ("my cholesterol numbers", "get_lab_result"),
        ("the radiators upstairs", "set_thermostat"),
        ("my dermatologist", "list_visits"),
    ],
)
def test_a_word_no_tool_uses_finds_the_service_of_its_subject(household: ToolIndex, query: str, tool: str) -> None:
    assert ranked(household, query)[0] == tool


# REQ: LOOP-15
def test_a_word_of_the_query_counts_above_the_subject_of_another(household: ToolIndex) -> None:
    found = ranked(household, "cholesterol invoices")
    assert found[0] == "list_invoices"  # said outright: invoices
    assert "get_lab_result" in found[:5]  # and the subject of "cholesterol" is still offered
    # "flu" talks of doctors, appointments and clinics: the best of them counts, not all three
    assert ranked(household, "flu invoices")[0] == "list_invoices"


# REQ: LOOP-15
def test_a_word_some_tool_uses_is_taken_at_its_word() -> None:
    index = _service_index([*_HOUSEHOLD, ("kitchen", "drizzle_sauce", "Drizzle a sauce over a dish.", {})])
    assert ranked(index, "drizzle") == ["drizzle_sauce"]  # not the weather that "drizzle" also talks of


# REQ: LOOP-15
def test_the_subject_picks_the_service_and_the_query_picks_the_action(household: ToolIndex) -> None:
    # "physio" names the clinic and no tool says it; "cancel" (no tool says that either) names the
    # action, and the subject raises the clinic's tools alike, so the action decides among them
    assert ranked(household, "cancel the physio")[0] == "drop_visit"
    assert ranked(household, "book the physio")[0] == "new_visit"
    assert set(ranked(household, "the physio")) == {"list_visits", "new_visit", "drop_visit"}
    # a tool of the service that matches the query on its own is raised with its service, even
    # when it does not use the subject itself
    assert ranked(household, "remove the physio")[:2] == ["remove_visit", "remove_invoice"]


# REQ: LOOP-15
def test_a_subject_finds_no_tool_that_uses_neither_it_nor_the_query(household: ToolIndex) -> None:
    # surgery_opening_hours shares the plugin of the clinic's tools but says nothing of doctors
    assert "surgery_opening_hours" not in ranked(household, "the physio")


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["zxqvw", "it please", "the thing", "clear it", "really"])
def test_words_that_name_no_subject_drag_in_nothing(household: ToolIndex, query: str) -> None:
    # "clear" is a word of the weather too ("a clear sky"), but as what to do it names no subject
    assert ranked(household, query) == []


# REQ: LOOP-15
def test_the_topic_table_reads_stems_and_skips_phrases() -> None:
    table = _topic_table()
    assert {"rain", "forecast", "weather"} <= set(table[_stem("drizzling")])  # any form of the word
    assert {"doctor", "sick"} <= set(table[_stem("flu")])  # a word of two lines keeps both subjects
    assert not any("-" in word or " " in word for word in table)  # "check-in" and phrases are skipped
    assert _stem("zxqvw") not in table


# REQ: LOOP-15
def test_the_topic_table_loads_only_when_a_search_needs_it() -> None:
    script = (
        "import sys\n"
        "from toolplug import tool_search as ts\n"
        "from toolplug.registry import RegisteredTool\n"
        "from toolplug.tools import function_tool\n"
        "tool = RegisteredTool.from_implementation(function_tool('get_forecast', 'Get the weather forecast.',"
        " {'type': 'object', 'properties': {}}, lambda args: 'ok'))\n"
        "index = ts.ToolIndex([tool])\n"
        "assert ts._topic_table.cache_info().currsize == 0, 'read at import or index'\n"
        "index.search('weather forecast')\n"
        "assert ts._topic_table.cache_info().currsize == 0, 'read for known words'\n"
        "assert [m.name for m in index.search('drizzle')] == ['get_forecast']\n"
        "assert ts._topic_table.cache_info().currsize == 1\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr


# --- who a thing goes to, and the words that are no subject ------------------------------------------


# REQ: LOOP-15
def test_sending_a_thing_that_exists_to_someone_shares_it(index: ToolIndex) -> None:
    assert ranked(index, "send the ticket to Sam")[:2] == ["share_ticket", "create_ticket"]
    assert ranked(index, "send my ticket to Sam")[0] == "share_ticket"
    # a new thing sent, or nobody to send it to: a new thing
    assert ranked(index, "send a ticket to Sam")[0] == "create_ticket"
    assert ranked(index, "send the ticket")[0] == "create_ticket"


# REQ: LOOP-15
def test_an_email_address_says_who_and_its_words_name_no_service(index: ToolIndex) -> None:
    # "photo" in the address is no photo to find: the ticket is what the query is about
    assert ranked(index, "open a ticket for kim@photo-library.com") == ranked(index, "open a ticket for Kim")
    assert "upload_photo" in ranked(index, "open a ticket for kim about a photo-library")


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["new tickets", "any new tickets", "what's new in the tickets"])
def test_new_things_in_the_plural_or_what_is_new_are_what_came_in(index: ToolIndex, query: str) -> None:
    assert ranked(index, query)[0] == "list_tickets"


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["new ticket", "a new ticket for Acme", "create new tickets"])
def test_a_new_thing_is_still_made(index: ToolIndex, query: str) -> None:
    assert ranked(index, query)[0] == "create_ticket"


# REQ: LOOP-15
def test_the_name_of_a_number_asks_for_no_count(index: ToolIndex) -> None:
    assert ranked(index, "the phone number of the ticket")[0] == "get_ticket"
    assert ranked(index, "phone numbers on tickets")[0] == "list_tickets"
    # a count: "the number of", "the total number of"
    assert ranked(index, "the number of tickets")[0] == "ticket_stats"
    assert ranked(index, "the total number of tickets")[0] == "ticket_stats"
    assert ranked(index, "the exact number of tickets")[0] == "ticket_stats"


_NAMED = [
    ("home", "dim_lights", "Set the brightness of the lamps.", {}),
    ("flags", "create_flag", "Create a feature flag for users.", {"key": "the flag key"}),
    ("flags", "update_flag", "Update a feature flag for users.", {"key": "the flag key", "percent": "the share"}),
    ("flags", "list_flags", "List the feature flags for users.", {}),
]


# REQ: LOOP-15
def test_the_words_of_an_identifier_are_a_name_not_everyday_speech() -> None:
    index = _service_index(_NAMED)
    assert "dim_lights" not in ranked(index, "dark_mode for all users")  # no brightness in a flag's key
    assert ranked(index, "the lamps are too dark for users")[0] == "dim_lights"  # "dark" in speech


# REQ: LOOP-15
def test_a_thing_named_by_its_identifier_taken_to_a_number_is_updated() -> None:
    index = _service_index(_NAMED)
    assert ranked(index, "dark_mode to 25% of users")[0] == "update_flag"  # the name says it exists
    assert ranked(index, "a flag to 25% of users")[0] == "list_flags"  # not named: no update asked


# REQ: LOOP-15
def test_the_thesaurus_reaches_an_abbreviation_s_short_plural() -> None:
    index = _service_index(
        [
            ("cloud", "list_machines", "List the virtual machine instances.", {}),
            ("pay", "list_runs", "List the payroll runs.", {}),
        ]
    )
    assert ranked(index, "my running vms")[0] == "list_machines"  # "vms" are what "vm" means
    assert ranked(index, "my running vm")[0] == "list_machines"
    assert ranked(index, "my running ms")[0] == "list_runs"  # a two-letter word is no plural


# REQ: LOOP-15
def test_the_new_value_a_thing_is_changed_to_is_taken_at_its_word() -> None:
    index = _service_index(
        [
            ("away", "update_leave", "Update a vacation leave request.", {}),
            ("chat", "update_channel", "Update a channel of the team chat.", {"topic": "the channel topic"}),
            ("chat", "list_channels", "List the channels of the team chat.", {}),
            ("cal", "list_events", "List the calendar events.", {}),
        ]
    )
    # the topic becomes "Holiday plans": no vacation is asked about
    assert ranked(index, "change the topic of the channel to Holiday plans")[0] == "update_channel"
    assert ranked(index, "set the channel topic to vacation")[0] == "update_channel"
    # a holiday the query is about, before "to", is still a vacation
    assert ranked(index, "change my holiday in the channel to June")[0] == "update_leave"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("what did the team claim back for meals", "expense_stats"),
        ("how many days off did the team take", "leave_stats"),
        ("headcount of the team", "staff_stats"),
        ("the head count of the team", "staff_stats"),
    ],
)
def test_two_words_together_name_a_thing_in_other_words(query: str, tool: str) -> None:
    index = _service_index(
        [
            ("money", "expense_stats", "Report totals of expense reimbursement requests.", {}),
            ("claims", "claim_stats", "Report totals of insurance claims.", {}),
            ("away", "leave_stats", "Report totals of vacation leave requests.", {}),
            ("days", "day_stats", "Report totals of the days.", {}),
            ("people", "staff_stats", "Report totals of employees on the staff.", {}),
        ]
    )
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_the_words_of_a_phrase_apart_keep_their_own_meaning() -> None:
    index = _service_index(
        [
            ("money", "expense_stats", "Report totals of expense reimbursement requests.", {}),
            ("claims", "claim_stats", "Report totals of insurance claims.", {}),
        ]
    )
    assert ranked(index, "claim stats, back pay")[0] == "claim_stats"


# REQ: LOOP-15
def test_setting_a_new_thing_makes_it_and_setting_a_known_thing_changes_it(index: ToolIndex) -> None:
    assert ranked(index, "set a ticket for Acme")[0] == "create_ticket"
    assert ranked(index, "set the ticket priority")[0] == "update_ticket"


_ADDING = [
    ("shop", "create_shopping_list", "Create a shopping list of groceries.", {}),
    ("shop", "update_shopping_list", "Update a shopping list of groceries.", {}),
    ("people", "create_contact", "Create a contact in the address book.", {}),
    ("people", "update_contact", "Update a contact in the address book.", {}),
    ("books", "update_book_loan", "Update a library book loan.", {}),
    ("books", "create_book_loan", "Create a library book loan.", {}),
]


# REQ: LOOP-15
def test_adding_to_one_thing_a_tool_acts_on_changes_it() -> None:
    index = _service_index(_ADDING)
    assert ranked(index, "add milk and eggs to my shopping list")[0] == "update_shopping_list"
    assert ranked(index, "please add oat milk to the shopping list, thanks")[0] == "update_shopping_list"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("add Maria to my contacts", "create_contact"),  # a collection: a new one in it
        ("add Maria to my address book", "create_contact"),  # what holds contacts, not a book loan
        ("add a shopping list for the party", "create_shopping_list"),  # nothing added to
    ],
)
def test_adding_to_a_collection_or_to_what_holds_things_makes_a_new_one(query: str, tool: str) -> None:
    assert ranked(_service_index(_ADDING), query)[0] == tool


# REQ: LOOP-15
@pytest.mark.parametrize(
    "query", ["the latest on ticket #4821", "how many replies did ticket TK-12 get", "what is up with ticket tk_77"]
)
def test_a_thing_named_by_its_id_with_no_verb_asks_for_that_thing(index: ToolIndex, query: str) -> None:
    assert ranked(index, query)[0] == "get_ticket"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("the latest tickets", "list_tickets"),  # no id
        ("how many tickets from I-95", "ticket_stats"),  # a road, no id of a ticket
        ("drop ticket #12", "delete_ticket"),  # the verb says what to do with it
        ("escalate ticket #12", "update_ticket"),
    ],
)
def test_no_id_or_a_verb_leaves_the_action_to_the_query(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_taking_a_thing_down_for_good_deletes_it() -> None:
    index = _service_index(
        [
            ("video", "archive_video", "Archive a video so it no longer shows in lists.", {}),
            ("video", "delete_video", "Delete a video permanently.", {}),
            ("video", "get_video", "Get one video by its id.", {}),
        ]
    )
    assert ranked(index, "take down the video for good")[0] == "delete_video"
    assert ranked(index, "take down the video")[0] == "archive_video"  # for now: it may come back
    assert ranked(index, "is the video good for kids")[0] == "get_video"


# REQ: LOOP-15
def test_wiring_money_makes_a_transfer() -> None:
    index = _service_index(
        [
            ("bank", "list_transfers", "List the bank transfers (wire, SEPA).", {}),
            ("bank", "get_transfer", "Get one bank transfer (wire, SEPA).", {}),
            ("bank", "create_transfer", "Create a bank transfer (wire, SEPA).", {"amount": "the sum"}),
        ]
    )
    assert ranked(index, "wire 500 euros to my landlord")[0] == "create_transfer"
    assert ranked(index, "wired payments this month")[0] == "list_transfers"  # a wire done, no verb


_PLACES = [
    ("places", "places_get_place", "Get one place such as a museum by its id.", {}),
    ("places", "places_create_place", "Create a new place such as a museum.", {}),
    ("places", "places_delete_place", "Delete a place such as a museum.", {}),
    ("maps", "maps_create_route", "Create a route to a museum.", {}),
]


# REQ: LOOP-15
def test_a_tool_name_says_its_verb_as_it_is_not_in_the_plural_of_its_plugin() -> None:
    index = _service_index(_PLACES)
    # "places" is no "place" (a verb of making): each tool keeps the action its own verb names
    assert ranked(index, "save the museum as a place")[0] == "places_create_place"
    assert ranked(index, "the museum place")[0] == "places_get_place"


# REQ: LOOP-15
def test_getting_to_a_place_is_a_journey_not_a_read() -> None:
    index = _service_index(_PLACES)
    assert ranked(index, "how do I get to the museum")[0] == "maps_create_route"
    assert ranked(index, "get the museum place")[0] == "places_get_place"


# REQ: LOOP-15
def test_a_clitic_names_nothing() -> None:
    index = _service_index(
        [
            ("drive", "list_files", "List the files in the user's drive.", {}),
            ("music", "list_songs", "List the songs of a playlist.", {}),
        ]
    )
    assert tokenize("what's Tom's phone") == tokenize("what Tom phone")
    assert tokenize("we'll see, don't wait") == tokenize("we see, do wait")
    # the "s" of "what's" and "Kim's" is no "s" of "user's": nothing is asked of the drive
    assert ranked(index, "what's Kim's latest") == []
    assert ranked(index, "Kim's files") == ["list_files"]


# REQ: LOOP-15
def test_two_words_written_apart_meet_the_one_word_in_any_form() -> None:
    index = _service_index(
        [
            ("todo", "todo_add_task", "Add a task to the todo list.", {}),
            ("medication", "medication_add_reminder", "Add a reminder to take doses of a medicine.", {}),
            ("fitness", "fitness_log_workout", "Log a workout.", {}),
            ("timesheets", "timesheets_log_hours", "Log the hours worked.", {}),
        ]
    )
    assert ranked(index, "my to-dos")[0] == "todo_add_task"  # not the "doses" of a medicine
    assert ranked(index, "the doses")[0] == "medication_add_reminder"
    assert ranked(index, "log 40 minutes working out")[0] == "fitness_log_workout"
    assert ranked(index, "log 40 minutes working")[0] == "timesheets_log_hours"


# REQ: LOOP-15
def test_an_email_address_stands_for_someone_who_may_be_let_see(index: ToolIndex) -> None:
    assert ranked(index, "let kim@photo-library.com see ticket 4412")[0] == "share_ticket"
    assert ranked(index, "let Kim see ticket 4412")[0] == "share_ticket"
    assert ranked(index, "kim@photo-library.com: see ticket 4412")[0] == "get_ticket"


def _share_everything() -> list[tuple[str, str, str, dict[str, str]]]:
    """Twelve services with a share tool each, in one template that says "by email", a mailbox and jobs."""
    things = ["invoice", "photo", "note", "song", "flight", "room_booking", "recipe", "budget", "survey"]
    things += ["route", "trip", "deal"]
    specs: list[tuple[str, str, str, dict[str, str]]] = [
        ("mail", "mail_list_email_messages", "List the email messages in the mailbox.", {}),
        ("jobs", "jobs_list_postings", "List the open job postings.", {}),
    ]
    for thing in things:
        words = thing.replace("_", " ")
        specs.append((thing, f"{thing}_list", f"List the {words}s.", {}))
        specs.append((thing, f"{thing}_share", f"Share a {words} with another person by email.", {}))
    return specs


# REQ: LOOP-15
def test_a_word_every_service_has_in_one_action_s_template_is_still_rare_for_a_service() -> None:
    index = _service_index(_share_everything())
    # "email" is in every share tool, but as a thing only the mailbox has it: it weighs as rare as
    # "open", which only the job postings have
    assert ranked(index, "open email 99812")[0] == "mail_list_email_messages"
    assert ranked(index, "open postings")[0] == "jobs_list_postings"
    assert ranked(index, "share the room booking by email")[0] == "room_booking_share"


# REQ: LOOP-15
def test_a_quoted_title_says_what_a_thing_is_called_not_what_it_is() -> None:
    index = _service_index(
        [
            ("sheets", "sheets_create_spreadsheet", "Create a spreadsheet with rows and columns.", {}),
            ("sheets", "sheets_list_spreadsheets", "List the spreadsheets.", {}),
            ("sheets", "sheets_update_spreadsheet", "Update a spreadsheet.", {}),
            ("budgets", "budgets_create_budget", "Create a team budget.", {}),
            ("budgets", "budgets_list_budgets", "List the team budgets.", {}),
        ]
    )
    assert ranked(index, 'create a spreadsheet "Team budget 2025"')[0] == "sheets_create_spreadsheet"
    assert ranked(index, "create a spreadsheet team budget 2025")[0] == "budgets_create_budget"
    # a quotation alone still finds what its words name
    assert ranked(index, '"Team budget"')[0].startswith("budgets_")


# REQ: LOOP-15
def test_the_letters_of_an_id_name_a_series_not_a_service() -> None:
    index = _service_index(
        [
            ("bugs", "bugs_update_issue", "Update a bug issue: its labels, such as regression.", {}),
            ("tokens", "tokens_update_api_token", "Update an API token.", {}),
        ]
    )
    assert ranked(index, "tag API-88 as a regression")[0] == "bugs_update_issue"
    assert ranked(index, "tag the API token as a regression")[0] == "tokens_update_api_token"


# REQ: LOOP-15
def test_a_verb_that_ends_a_query_of_keywords_asks_for_its_action(index: ToolIndex) -> None:
    assert ranked(index, "ticket 7781 cancel")[0] == "delete_ticket"
    assert ranked(index, "support ticket create")[0] == "create_ticket"
    # a verb that is a thing too, or the end of a sentence, asks for nothing
    assert ranked(index, "ticket 7781 record")[0] == "get_ticket"
    assert ranked(index, "the ticket that I want to cancel")[0] != "delete_ticket"


# REQ: LOOP-15
def test_an_email_is_a_thing_of_the_mailbox_though_every_share_tool_sends_by_email() -> None:
    specs = [spec for spec in _share_everything() if spec[0] != "mail"]
    index = _service_index([*specs, ("mail", "mail_list_messages", "List the messages in the mailbox.", {})])
    assert ranked(index, "my emails from Delta")[0] == "mail_list_messages"
    assert ranked(index, "share the flight by email")[0] == "flight_share"


# REQ: LOOP-15
def test_a_british_doubled_l_meets_its_verb() -> None:
    assert _stem("labelled") == _stem("label") and _stem("cancelled") == _stem("cancel")
    assert _stem("spelled") == _stem("spell") and _stem("installed") == _stem("install")
    assert _stem("called") == _stem("call")


def _ids_index() -> ToolIndex:
    return _service_index(
        [
            ("reviews", "reviews_update_customer_review", "Update a customer review.", {}),
            ("calendar", "calendar_update_event", "Update an event in the calendar.", {}),
            ("places", "places_get_place", "Get one place.", {}),
            ("stores", "stores_get_product_listing", "Get one product listing.", {}),
            ("jobs", "jobs_get_job_posting", "Get one job posting.", {}),
            ("taxes", "taxes_get_tax_return", "Get one tax return.", {}),
            ("bank", "bank_get_bank_transfer", "Get one bank transfer.", {}),
        ]
    )


# REQ: LOOP-15
def test_the_letters_of_an_id_that_shorten_a_thing_s_name_name_that_thing() -> None:
    index = _ids_index()
    assert ranked(index, "update evt_4471")[0] == "calendar_update_event"  # the skeleton of "event"
    event = _scores(index, "update evt_4471")["calendar_update_event"]
    assert event > 1.5 * _scores(index, "update abc_4471")["calendar_update_event"]  # "abc" shortens nothing
    assert ranked(index, "get jp_45")[0] == "jobs_get_job_posting"  # the initials of "job posting"
    assert ranked(index, "get pl_45")[0] == "stores_get_product_listing"


# REQ: LOOP-15
def test_id_letters_the_query_already_says_in_its_words_add_nothing() -> None:
    index = _ids_index()
    # "pl" begins "place", "tr" begins "transfer": no product listing, no tax return
    assert ranked(index, "get place pl_8812")[0] == "places_get_place"
    assert ranked(index, "get transfer tr_551")[0] == "bank_get_bank_transfer"


# REQ: LOOP-15
def test_the_subject_of_an_everyday_word_outweighs_another_service_s_argument_word() -> None:
    index = _service_index(
        [
            ("sports", "sports_get_score", "Get the score of a match.", {"venue": "the stadium or the field"}),
            ("weather", "weather_get_forecast", "Get the weather forecast for a city.", {}),
        ]
    )
    assert ranked(index, "drizzle at the field")[0] == "weather_get_forecast"  # drizzle: rain, forecast
    assert ranked(index, "score at the field")[0] == "sports_get_score"


# REQ: LOOP-15
def test_a_path_names_a_place_not_the_service_its_words_name() -> None:
    index = _service_index(
        [
            ("projects", "projects_get_project", "Get one project.", {}),
            ("drive", "drive_list_files", "List the files in the cloud drive folders.", {}),
        ]
    )
    assert ranked(index, "what's in my /Projects/2024 folder")[0] == "drive_list_files"
    assert ranked(index, "what's in my Projects 2024 folder")[0] == "projects_get_project"
    assert ranked(index, "/Projects/2024")[0] == "projects_get_project"  # a path alone still finds its words


# REQ: LOOP-15
def test_a_word_one_slip_from_a_known_word_is_read_as_that_word_but_a_name_is_not() -> None:
    index = _service_index(
        [
            ("dining", "delete_table_reservation", "Delete a table reservation at a restaurant.", {}),
            ("hotels", "delete_hotel_reservation", "Delete a hotel reservation.", {}),
            ("air", "list_sensors", "List the pollution sensors.", {}),
            ("people", "list_contacts", "List the contacts of the address book.", {}),
        ]
    )
    assert ranked(index, "cancel resturant reservation")[0] == "delete_table_reservation"  # a letter left out
    assert ranked(index, "cancel restuarant reservation")[0] == "delete_table_reservation"  # two swapped
    assert "list_sensors" in ranked(index, "contacts named sensorr")  # a letter added
    assert ranked(index, "contacts named Sensorr") == ["list_contacts"]  # a capitalised word: a name


# REQ: LOOP-15
def test_the_particle_of_a_phrasal_verb_is_no_word_of_a_thing() -> None:
    index = _service_index(
        [
            ("cars", "list_rentals", "List the hire cars picked up at a rental desk.", {}),
            ("cars", "get_rental", "Get one hire car picked up at a rental desk.", {}),
            ("news", "search_articles", "Search news articles by keywords.", {}),
        ]
    )
    assert ranked(index, "look up articles")[0] == "search_articles"
    assert ranked(index, "look up articles") == ["search_articles"]  # "up" finds no hire cars


# REQ: LOOP-15
def test_a_day_named_off_is_a_day_off() -> None:
    index = _service_index(
        [
            ("away", "create_leave", "Create a vacation leave request.", {}),
            ("cal", "create_event", "Create a calendar event for Friday.", {}),
        ]
    )
    assert ranked(index, "take Friday off")[0] == "create_leave"
    assert ranked(index, "I want to take next friday off")[0] == "create_leave"


_MONEY = [
    ("bank", "create_transfer", "Create a bank transfer of money between accounts.", {"amount": "the sum"}),
    ("fx", "get_rate", "Get one currency exchange rate.", {}),
]


# REQ: LOOP-15
def test_a_sum_in_a_currency_is_money_and_two_currencies_are_a_rate() -> None:
    index = _service_index(_MONEY)
    assert ranked(index, "send 200 dollars to my sister")[0] == "create_transfer"
    assert ranked(index, "how many yen is 100 dollars")[0] == "get_rate"
    assert ranked(index, "the dollar this week")[0] == "get_rate"


# REQ: LOOP-15
def test_my_schedule_is_my_calendar_and_a_watering_schedule_is_not() -> None:
    index = _service_index(
        [
            ("calendar", "list_events", "List the events in the calendar.", {}),
            ("garden", "list_watering_schedules", "List the watering schedules of the sprinklers.", {}),
            ("heating", "list_thermostat_schedules", "List the thermostat schedules.", {}),
        ]
    )
    assert ranked(index, "what's on my schedule tomorrow")[0] == "list_events"
    assert ranked(index, "what's on the watering schedule")[0] == "list_watering_schedules"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [("tuck away the ticket", "archive_ticket"), ("ticket 12 is done, tuck it away", "archive_ticket")],
)
def test_putting_a_thing_away_archives_it(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_a_greeting_before_the_verb_leaves_the_verb_leading(index: ToolIndex) -> None:
    assert ranked(index, "hey can you cancel my ticket")[0] == "delete_ticket"
    assert ranked(index, "ok so archive the ticket")[0] == "archive_ticket"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("a visit to Dr Patel", "clinic_create_visit"),
        ("my trades this year", "brokerage_list_stock_orders"),
        ("rent one for the weekend", "carrental_create_car_rental"),
        ("put lunch in my diary", "calendar_create_event"),
    ],
)
def test_everyday_shortenings_and_words_name_the_thing(query: str, tool: str) -> None:
    index = _service_index(
        [
            ("vet", "vet_create_visit", "Create a pet visit.", {}),
            ("clinic", "clinic_create_visit", "Create a doctor visit.", {}),
            ("brokerage", "brokerage_list_stock_orders", "List the stock orders for shares.", {}),
            ("taxes", "taxes_list_tax_returns", "List the tax returns of this year.", {}),
            ("carrental", "carrental_create_car_rental", "Create a car rental, hire cars.", {}),
            ("calendar", "calendar_create_event", "Create a calendar event.", {}),
            ("food", "food_create_order", "Create a food order for lunch.", {}),
        ]
    )
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_what_was_eaten_is_a_meal_log_not_a_food_order() -> None:
    index = _service_index(
        [
            ("delivery", "list_food_orders", "List the food orders for takeaway meals.", {}),
            ("nutrition", "list_meal_logs", "List the meal logs of what the user ate.", {}),
        ]
    )
    assert ranked(index, "what did I eat today")[0] == "list_meal_logs"
    assert ranked(index, "food I ordered today")[0] == "list_food_orders"


# REQ: LOOP-15
def test_time_spent_is_no_money_spent() -> None:
    index = _service_index(
        [
            ("expenses", "expense_stats", "Report totals of expense reports, the cost of what was spent.", {}),
            ("calendar", "event_stats", "Report totals of calendar events.", {}),
        ]
    )
    assert ranked(index, "how many hours did I spend in meetings")[0] == "event_stats"
    assert ranked(index, "how much did I spend last month")[0] == "expense_stats"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("sick days taken by the team", "leave_stats"),
        ("Noah's marks", "list_grades"),
        ("shirts left in stock", "get_inventory_item"),
        ("what broke today", "list_incidents"),
        ("watch hours", "video_stats"),
        ("leads from the trade show", "list_leads"),
        ("my trades", "list_stock_orders"),
    ],
)
def test_more_everyday_words_and_phrases_name_the_thing(query: str, tool: str) -> None:
    index = _service_index(
        [
            ("chat", "team_stats", "Report totals of team chat rooms.", {}),
            ("leave", "leave_stats", "Report totals of vacation leave requests.", {}),
            ("loans", "list_loans", "List loan applications for a term in months.", {"mark": "a bookmark"}),
            ("grades", "list_grades", "List student grades with the score of each exam.", {}),
            ("brokerage", "list_stock_orders", "List stock orders for shares on the exchange.", {}),
            ("brokerage", "export_stock_orders", "Export stock orders for shares on the exchange.", {}),
            ("warehouse", "get_inventory_item", "Get one inventory item in the warehouse.", {}),
            ("oncall", "list_incidents", "List incidents, outages in production.", {}),
            ("hotels", "list_stays", "List hotel stays.", {}),
            ("video", "video_stats", "Report totals of videos on a channel.", {}),
            ("leads", "list_leads", "List the sales leads.", {}),
            ("shows", "list_shows", "List the shows.", {}),
        ]
    )
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_near_me_asks_for_a_place() -> None:
    index = _service_index(
        [
            ("dining", "search_table_reservations", "Search table reservations at restaurants.", {}),
            ("places", "search_places", "Search places such as shops and cafés.", {}),
        ]
    )
    assert ranked(index, "restaurants nearby")[0] == "search_places"
    assert ranked(index, "restaurants near me")[0] == "search_places"
    assert ranked(index, "my restaurant reservations")[0] == "search_table_reservations"


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["support tickets per stage", "support tickets by stage"])
def test_figures_broken_down_by_a_field_hint_at_totals(index: ToolIndex, query: str) -> None:
    assert ranked(index, "support tickets").index("ticket_stats") > 3
    assert ranked(index, query).index("ticket_stats") < 3
    assert ranked(index, "support tickets by Sam").index("ticket_stats") > 3  # by someone: no breakdown


# REQ: LOOP-15
def test_a_food_diary_is_a_meal_log_not_a_calendar() -> None:
    index = _service_index(
        [
            ("calendar", "list_events", "List the calendar events.", {}),
            ("nutrition", "list_meal_logs", "List the meal logs.", {}),
        ]
    )
    assert ranked(index, "show my food diary")[0] == "list_meal_logs"
    assert ranked(index, "show my diary")[0] == "list_events"


# REQ: LOOP-15
def test_when_something_happened_names_no_thing() -> None:
    index = _service_index(
        [
            ("hotels", "list_stays", "List hotel stays by the night.", {"nights": "number of nights"}),
            ("sports", "list_results", "List match results of the games played.", {}),
            ("calendar", "list_events", "List the calendar events.", {}),
        ]
    )
    assert ranked(index, "how did the team play last night")[0] == "list_results"
    assert ranked(index, "hotel nights")[0] == "list_stays"
    # "morning" is a word of calendars, "yesterday morning" a time
    assert ranked(index, "a morning slot") == ["list_events"]
    assert "list_events" not in ranked(index, "how did the team play yesterday morning")


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("dig up the ticket about the refund", "search_tickets"),
        ("track down the ticket from Acme", "search_tickets"),
        ("hunt down the ticket from Acme", "search_tickets"),
        ("nuke the ticket", "delete_ticket"),
        ("axe that ticket", "delete_ticket"),
    ],
)
def test_more_everyday_verbs_ask_for_their_action(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("set the color of the lamp", "update_light"),
        ("machines in the Frankfurt data center", "list_machines"),
        ("the product catalog", "list_products"),
        ("organize the products", "list_products"),
        ("license plate of my car", "list_parking"),
    ],
)
def test_british_and_american_spellings_meet(query: str, tool: str) -> None:
    index = _service_index(
        [
            ("lights", "update_light", "Update a smart light: brightness and colour.", {}),
            ("cloud", "list_machines", "List the virtual machines in a data centre region.", {}),
            ("shop", "list_products", "List the products of the shop catalogue, organised by category.", {}),
            ("parking", "list_parking", "List parking spots by licence plate.", {}),
        ]
    )
    assert ranked(index, query)[0] == tool
    assert tokenize("colour centre catalogue organisation licence programme") == tokenize(
        "color center catalog organization license program"
    )


_RELEASES = [
    ("shipping", "create_shipment", "Create a parcel shipment sent by courier.", {}),
    ("deploys", "create_deployment", "Create a deployment of an application release.", {"version": "the version"}),
    ("charging", "create_session", "Create a charging session.", {}),
    ("calendar", "create_event", "Create a calendar event.", {"attendees": "email addresses of the guests"}),
]


# REQ: LOOP-15
def test_a_version_number_names_a_release() -> None:
    index = _service_index(_RELEASES)
    assert ranked(index, "ship checkout 2.4.1 to prod")[0] == "create_deployment"
    assert ranked(index, "ship v3 to the customers")[0] == "create_deployment"
    assert ranked(index, "ship 2 parcels to the customers")[0] == "create_shipment"


# REQ: LOOP-15
def test_inviting_people_asks_for_an_event_with_guests() -> None:
    index = _service_index(_RELEASES)
    assert ranked(index, "9am tomorrow, invite sara@northwind.io and lee@northwind.io")[0] == "create_event"
    assert ranked(index, "set up a session")[0] == "create_session"


_DETAILS_INDEX = [
    ("sms", "list_texts", "List the texts sent to phone numbers.", {"phone_number": "the phone number"}),
    ("sms", "create_text", "Send a text to a phone number.", {"phone_number": "the phone number"}),
    ("crm", "search_contacts", "Search the contacts, people in the address book.", {}),
    ("crm", "create_contact", "Create a contact.", {"phone": "a phone number"}),
]


# REQ: LOOP-15
@pytest.mark.parametrize(
    "query", ["what's Tom Becker's phone number", "phone number of Dieter at Siemens", "Sarah's email address"]
)
def test_a_detail_of_someone_is_kept_with_their_contact(query: str) -> None:
    index = _service_index(_DETAILS_INDEX)
    assert ranked(index, query)[0] in {"search_contacts", "create_contact"}
    scores = _scores(index, query)  # the number is no number to send a text to
    assert scores.get("list_texts", 0.0) < scores["search_contacts"] / 2


_COMPANIES = [
    ("weather", "get_forecast", "Get the weather forecast: rain, wind.", {}),
    ("crm", "search_contacts", "Search the contacts, people and companies.", {"company": "the employer"}),
    ("hours", "list_entries", "List the hours worked.", {}),
]


# REQ: LOOP-15
@pytest.mark.parametrize("query", ["who do we know at Umbrella Corp?", "who works at Globex"])
def test_people_at_a_company_are_its_contacts(query: str) -> None:
    assert ranked(_service_index(_COMPANIES), query)[0] == "search_contacts"


# REQ: LOOP-15
def test_a_name_s_words_mean_no_thing() -> None:
    index = _service_index(_COMPANIES)
    assert ranked(index, "bring an umbrella?")[0] == "get_forecast"  # the everyday word
    assert "get_forecast" not in ranked(index, "notes on Umbrella Holdings")  # a name
    assert "get_forecast" in ranked(index, "Bring Umbrella Tomorrow")  # every word capitalised: no name


# REQ: LOOP-15
def test_out_of_office_is_away() -> None:
    index = _service_index(
        [
            ("rooms", "list_bookings", "List the office room bookings.", {}),
            ("leave", "list_leave", "List the vacation leave requests.", {}),
        ]
    )
    assert ranked(index, "who is out of office next week")[0] == "list_leave"
    assert ranked(index, "who is out of town")[0] == "list_leave"
    assert ranked(index, "who is in the office next week")[0] == "list_bookings"


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("cancle my ticket", "delete_ticket"),
        ("archvie the ticket", "archive_ticket"),
        ("delte the ticket", "delete_ticket"),
    ],
)
def test_a_leading_verb_one_slip_off_still_asks_for_its_action(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_a_place_to_stay_is_a_hotel() -> None:
    index = _service_index(
        [
            ("places", "search_places", "Search places such as museums and cafés.", {}),
            ("hotels", "create_reservation", "Create a hotel reservation.", {}),
        ]
    )
    assert "create_reservation" in ranked(index, "need a place to stay in Lisbon")
    assert "create_reservation" not in ranked(index, "a place to eat in Lisbon")


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("never mind, scrap it", "delete_ticket"),
        ("tuck it away", "archive_ticket"),
        ("let Priya read it as well", "share_ticket"),
        ("how many came in this quarter", "ticket_stats"),
    ],
)
def test_within_one_plugin_a_request_naming_no_thing_still_finds_its_action(
    index: ToolIndex, query: str, tool: str
) -> None:
    # no word of these requests is in any desk tool: searched within the plugin, every one of its tools
    # is a candidate, ordered by what the request asks to do
    assert tool not in ranked(index, query)[:1]
    within = [match.name for match in index.search(query, limit=3, plugin="desk")]
    assert tool in within
    assert all(match.plugin == "desk" for match in index.search(query, limit=20, plugin="desk"))


# REQ: LOOP-15
def test_within_one_plugin_a_tool_that_matches_the_words_ranks_above_those_that_do_not(index: ToolIndex) -> None:
    within = [match.name for match in index.search("the figures, please", limit=10, plugin="desk")]
    assert within[0] == "ticket_stats"  # its description says "figures"
    assert len(within) == 10
    assert [match.name for match in index.search("zzqx wvvy", limit=3, plugin="desk")] != []
    assert index.search("zzqx wvvy", limit=3) == []  # no filter: a request that matches nothing finds nothing


# REQ: LOOP-15
@pytest.mark.parametrize(
    ("query", "tool"),
    [
        ("call the whole ticket off", "delete_ticket"),
        ("put this ticket away", "archive_ticket"),
    ],
)
def test_a_phrasal_verb_split_by_its_object_asks_for_its_action(index: ToolIndex, query: str, tool: str) -> None:
    assert ranked(index, query)[0] == tool


# REQ: LOOP-15
def test_a_particle_far_from_the_verb_is_no_phrasal_verb() -> None:
    # "call" leads and "off" ends the clause, but nine words apart: no call is called off
    assert "delete" not in _query_intent("call the customer who opened the ticket when the power went off")
    assert _query_intent("call the customer's ticket off") == {"delete": 1.0}
