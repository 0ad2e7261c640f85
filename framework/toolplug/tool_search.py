"""Tool search: a large catalogue offered to the model a few tools at a time.

Selection decides which tools are runnable; this module decides which of the runnable tools are sent
now. Tools are *deferred* by their author (``ToolDefinition.deferred``), by the admin (plugin or tool
ids) or by a threshold (``offer_at_most``). The model finds deferred tools through the client-side
``search_tools`` tool (BM25 over each definition's text), or through the provider's own tool search
where the provider supports it; found tools join the offered tools from the next step on. Search only
ever sees runnable tools, so it can never widen what selection allows.
"""

from __future__ import annotations

import dataclasses
import functools
import heapq
import itertools
import json
import math
import re
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toolplug.definitions import ToolDefinition
from toolplug.errors import InvalidArgumentError, NoSuchToolError, ToolCallError
from toolplug.registry import RegisteredTool
from toolplug.tools import ToolImplementation, function_tool

SEARCH_TOOL_NAME = "search_tools"
"""The function name of the client-side search tool."""

NATIVE_SEARCH_TOOLS = {
    "anthropic": ("anthropic.tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    "openai-responses": ("openai.tool_search", "tool_search"),
}
"""Per API, the provider-defined search tool (id, function name) used for provider-native search."""

_MAX_QUERY_CHARS = 500
_SYNONYM_WEIGHT = 0.8
_LOOKUP_BONUS = 1.15
_INTENT_BOOST = 0.6
_FORM_WEIGHT = 0.3  # a query word in the very form a tool uses, beyond the stem they share
_RELATED_LOOKUP = 0.3  # asked for one kind of read, the other reads rise a little
_SERVICE_SHARE = 0.35  # of a matching tool's score, the part its plugin's best match for each word gives
_TOPIC_WEIGHT = 0.5  # a subject word, looked up for a query word no tool uses (a query word weighs 1)
_BOILERPLATE_PLUGINS = 10  # an action's template text: in that action's tools of at least this many plugins
_BOILERPLATE_SHARE = 0.3  # and of at least this share of the plugins with such a tool
_QUOTED_WEIGHT = 0.3  # a word of a quoted title, of a query word's weight
_CODE_WEIGHT = 0.3  # the letters of an id ("API-88"), of a query word's weight
_ABBREVIATION_WEIGHT = 1.0  # letters of an id that shorten a thing's name ("evt_4471": an event), per word
_TOPIC_CACHE_SIZE = 4096
_TYPO_WEIGHT = 0.8  # a known word one slip from a query word no tool uses ("resturant"), shared among such words
_TYPO_SHORTEST = 5  # a word of this many letters or fewer, or a stem shorter, is too close to too many others
# name, plugin, title, description, argument names, argument descriptions
_FIELD_WEIGHTS = (3.0, 1.0, 2.0, 1.0, 0.5, 0.3)
_MAX_RESULTS_CAP = 20
_UNMATCHED = 1e-6  # searched within a plugin or tag: the score of a tool no query word matches


@dataclass(frozen=True, slots=True)
class ToolSearchOptions:
    """How a run defers tools and lets the model search for them.

    Search is on when any tool is deferred: by ``deferred``, by ``offer_at_most``, or by the tool's
    author. The user's selection and ``always`` are never deferred.
    """

    deferred: tuple[str, ...] = ()
    """Plugin or tool ids whose tools are deferred (``mcp`` covers ``mcp.github``)."""
    offer_at_most: int | None = None
    """When more tools are runnable than this, the rest are deferred."""
    always: tuple[str, ...] = ()
    """Tool ids always sent up front."""
    max_results: int = 5
    """Matches one search returns (at most 20)."""
    native: bool = True
    """Use the provider's own tool search where its profile says the model supports it; False forces
    the client-side ``search_tools`` tool."""
    serve_deferred: bool = True
    """``toolplug serve`` lists deferred tools too (MCP clients select for themselves)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "deferred", tuple(self.deferred))
        object.__setattr__(self, "always", tuple(self.always))
        self.validate()

    def validate(self) -> None:
        """Raise InvalidArgumentError for options that cannot work."""
        limit = self.offer_at_most
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
            raise InvalidArgumentError("tool_search.offer_at_most", f"must be a positive integer, got {limit!r}")
        results = self.max_results
        if isinstance(results, bool) or not isinstance(results, int) or not 1 <= results <= _MAX_RESULTS_CAP:
            raise InvalidArgumentError(
                "tool_search.max_results", f"must be an integer from 1 to {_MAX_RESULTS_CAP}, got {results!r}"
            )
        for name in ("deferred", "always"):
            for entry in getattr(self, name):
                if not isinstance(entry, str) or not entry:
                    raise InvalidArgumentError(f"tool_search.{name}", f"holds ids, not {entry!r}")


# --- deferral --------------------------------------------------------------------------------------


def _covers(entry: str, tool: RegisteredTool) -> bool:
    plugin = tool.plugin
    return entry in (tool.id, tool.name) or plugin == entry or plugin.startswith(entry + ".")


def split_offer(
    tools: Sequence[RegisteredTool],
    options: ToolSearchOptions | None,
    selected: Collection[str] = (),
) -> tuple[list[RegisteredTool], list[RegisteredTool]]:
    """The tools sent up front and the deferred ones, each in the given order.

    ``selected`` (the user's explicit selection, tool ids) and ``options.always`` stay up front. Then
    author-deferred and admin-deferred tools are deferred, and past ``offer_at_most`` the rest too.
    """
    opts = options or ToolSearchOptions()
    keep = set(selected) | set(opts.always)
    pinned: list[RegisteredTool] = []
    candidates: list[RegisteredTool] = []
    deferred: list[RegisteredTool] = []
    for tool in tools:
        if tool.id in keep or tool.name in keep:
            pinned.append(tool)
        elif tool.definition.deferred or any(_covers(entry, tool) for entry in opts.deferred):
            deferred.append(tool)
        else:
            candidates.append(tool)
    if opts.offer_at_most is not None:
        room = max(opts.offer_at_most - len(pinned), 0)
        deferred = candidates[room:] + deferred
        candidates = candidates[:room]
    upfront_ids = {tool.id for tool in pinned} | {tool.id for tool in candidates}
    upfront = [tool for tool in tools if tool.id in upfront_ids]
    order = {tool.id: index for index, tool in enumerate(tools)}
    deferred.sort(key=lambda tool: order[tool.id])
    return upfront, deferred


# --- ranking ---------------------------------------------------------------------------------------

# A word with a letter beyond ASCII stays whole ("Straße"); ASCII identifiers split at camelCase.
_WORD = re.compile(
    r"[A-Za-z]*[^\W\d_A-Za-z][^\W\d_]*|[A-Z]{2,}s(?![a-z])|[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+|[^\W\d_]+"
)


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_STOP_WORDS = _word_set(
    "a an and are as at be by can do does for from get has have how i in is it its me my of on or our please "
    "show some that the their them this to was what when where which who will with you your"
)
_CURRENCY_WORDS = "dollar dollars euro euros pound pounds yen usd eur gbp"
_CURRENCIES = _word_set(_CURRENCY_WORDS)
_AMOUNT = ("money", "amount")
_SPENDING = _word_set("spend spent spending")
_TIME_UNITS = _word_set("time minute minutes min mins hour hours hrs day days week weeks")
# Query words that name a thing in other words: everyday words and abbreviations for what tool
# definitions call by its proper name. Applied to queries only, at _SYNONYM_WEIGHT. What a query asks
# to *do* is not here: _query_intent reads that.
_SYNONYM_GROUPS: Mapping[str, str] = {
    "book reserve": "reservation booking",
    "buy": "order purchase",
    "remind": "reminder task",
    "jot memo memos": "note",
    "ip": "address",
    "www website": "domain site",
    "subdomain subdomains": "domain",
    "apply": "application",
    "pay": "payment",
    "salary salaries wage wages payslip payslips paycheck": "payroll salary pay",
    "money cash": "payment transfer",
    _CURRENCY_WORDS: "currency money exchange",
    "convert": "conversion exchange",
    "house": "home",
    "car": "driving vehicle",
    "holiday vacation pto": "vacation leave holiday",
    "phone": "mobile call",
    "text texts": "sms message",
    "meeting": "event",
    "appointment checkup": "visit booking appointment",
    "job role vacancy": "job position",
    "pic pics picture pictures image images": "photo",
    "footage": "video recording clip",
    "movie film": "video",
    "plane airplane fly": "flight airline",
    "server servers vm": "server instance machine",
    "repo repos": "repository",
    "pr prs": "pull request",
    "doc": "document",
    "deck presentation": "slide",
    "portfolio holdings": "stock shares",
    "warm warmer hot heat cold colder freezing chilly cool cooler": "temperature heating",
    "dim dimmer bright brighter dark darker": "brightness light",
    "lamp lamps bulb bulbs": "light",
    "umbrella rainy raining": "rain forecast",
    "windy": "wind",
    "smog polluted": "pollution air",
    "near nearby": "nearby place",
    "coffee": "cafe",
    "cat cats dog dogs puppy kitten": "pet animal",
    "gp physician": "doctor",
    "meds pills pill medicine": "medication",
    "exercise jog gym": "workout",
    "ate eat eaten eating": "meal ate",
    "protein carbs": "macros",
    "staff colleague coworker starter hire hires newcomer offboard onboard offboarding onboarding": "employee",
    "headcount": "employee staff",
    "cv": "resume",
    "company employer": "company employer",
    "client": "customer",
    "defect crash": "bug",
    "outage downtime": "incident outage",
    "receipt receipts reimburse": "expense",
    "mortgage": "loan",
    "package packages": "parcel shipment",
    "promo voucher": "coupon discount",
    "questionnaire poll": "survey",
    "agenda": "calendar",
    "headline headlines": "news",
    "directions navigate": "route",
    "gig theatre theater opera": "concert ticket",
    "game": "match",
    "say": "translate",
    "selfie selfies": "photo",
    "song songs tune tunes": "music song",
    "workbook": "spreadsheet",
    "chore chores errand errands": "task",
    "bill bills": "invoice",
    "apartment flat": "home",
    "automobile auto": "car vehicle",
    "shop shops store stores": "shop store",
    "purchase purchases": "order",
    "credential credentials": "password login",
    "worker workers personnel": "employee staff",
    "buyer buyers shopper shoppers": "customer",
    "basket baskets trolley": "cart",
    "sunny snow snowing snowy storm stormy cloudy humid humidity": "weather forecast",
    "owe owes owed unpaid overdue outstanding": "due payment",
    "inbox": "email mail",
    "email emails": "mail mailbox",  # every share tool sends by email: the word alone is weak for the mail
    "attachment attachments": "file",
    "case cases": "ticket",
    "glitch glitches": "bug",
    "spend spent spending": "expense cost",
    "equity equities": "stock",
    "btc": "bitcoin",
    "ethereum eth": "ether",
    "boardroom": "meeting room",
    "pharmacy pharmacies chemist bakery bakeries": "shop",
    "prospect prospects": "lead",
    "opportunity opportunities": "deal",
    "deadline deadlines": "milestone due",
    "applicant applicants": "candidate",
    "lesson lessons tutorial tutorials": "course training",
    "cook cooking bake baking": "recipe",
    "dine dining": "restaurant dinner",
    "takeout": "takeaway food",
    "rail railway": "train",
    "feedback": "review comment",
    "membership memberships": "subscription plan",
    "jam jams gridlock": "traffic congestion",
    "cctv doorbell webcam": "camera",
    "jazz pop rock hiphop classical techno": "music song",
    "van vans truck trucks minivan": "car vehicle",
    "arena arenas stadium stadiums": "venue",
    "dr": "doctor",
    "trades trading traded": "stock order shares",  # not "trade": a trade show, a trade union
    "rent rents rented renting": "rental hire",
    "diary": "calendar",
    "corp inc ltd llc gmbh plc": "company",
    "invite invites invitation invitations": "attendee guest",  # who is asked to come: an event's
    "marks": "grade score",  # a plural noun; "mark" is a verb
    "english german spanish french italian korean japanese chinese portuguese dutch arabic russian": "language",
}
# Two words that together name a thing in other words (each word in the singular).
_PHRASE_SYNONYMS: Mapping[tuple[str, str], tuple[str, ...]] = {
    ("claim", "back"): ("expense", "reimbursement"),
    ("day", "off"): ("vacation", "leave"),
    ("head", "count"): ("employee", "staff"),
    ("sick", "day"): ("vacation", "leave"),
    ("work", "at"): ("company", "employer"),  # who works at Globex: its people
    ("food", "diary"): ("meal", "log"),
    ("food", "journal"): ("meal", "log"),
    ("in", "stock"): ("inventory", "warehouse"),  # goods on hand, not shares
    ("of", "stock"): ("inventory", "warehouse"),
    ("personal", "day"): ("vacation", "leave"),
}
# Nouns that, bare after "my", "our"..., name one thing in other words ("my schedule" is my calendar,
# where "the watering schedule" is a watering schedule).
_OWN_NOUN_SYNONYMS: Mapping[str, tuple[str, ...]] = {"schedule": ("calendar", "event")}
_POSSESSIVES = _word_set("my our your his her their today tomorrow")
_DAY_NAMES = _word_set(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thurs fri sat sun"
)
# Three words that together name a thing in other words.
_THREE_WORD_PHRASES: Mapping[tuple[str, str, str], tuple[str, ...]] = {
    ("out", "of", "office"): ("vacation", "leave"),
    ("out", "of", "town"): ("vacation", "leave"),
    ("place", "to", "stay"): ("hotel", "accommodation"),
}
_PHRASE_ENDS = frozenset(second for _, second in _PHRASE_SYNONYMS)
_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    word: tuple(means.split()) for words, means in _SYNONYM_GROUPS.items() for word in words.split()
}


_DOUBLED_KEEP = frozenset("lsz")
_INFLECTED = ("s", "ed", "ing", "e")  # endings that stemming may take off
_INVARIANT = frozenset({"news", "series", "species", "analysis", "status", "always"})


def _undouble(stem: str) -> str:
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _DOUBLED_KEEP:
        return stem[:-1]  # logged -> log, running -> run
    if len(stem) >= 6 and stem.endswith("ell"):
        return stem[:-1]  # labelled -> label, cancelled -> cancel (but spelled -> spell)
    return stem


_VOWELS = frozenset("aeiouy")


@functools.lru_cache(maxsize=65536)
def _singular(word: str) -> str:
    """``word`` without a plural ending ("entries" → "entry", "trainings" → "training")."""
    if len(word) <= 3 or word in _INVARIANT:
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A light English stemmer, applied alike to tools and queries: a plural, then -ing or -ed, then a
    final -e, so that rate/rates/rating/ratings/rated all meet ("rat")."""
    if len(word) <= 3 or word in _INVARIANT:
        return word
    word = _singular(word)
    for suffix, shortest in (("ing", 6), ("ed", 5)):
        stem = word[: -len(suffix)]
        if word.endswith(suffix) and len(word) >= shortest and _VOWELS & set(stem) and not word.endswith("eed"):
            word = _undouble(stem)
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return _one_spelling(word)


# British and American spellings of one word meet: colour/color, centre/center, catalogue/catalog,
# organise/organize, analyse/analyze, licence/license, programme/program (after the stemmer's cuts)
_SPELLINGS = (
    (re.compile(r"(?<=\w{3})our$"), "or"),
    (re.compile(r"(?<=\w)(?<=[aen])tr$"), "ter"),
    (re.compile(r"(?<=\w\w)ogu$"), "og"),
    (re.compile(r"(?<=\w)iz(?=(?:ation)?$)"), "is"),
    (re.compile(r"(?<=\w)yz$"), "ys"),
    (re.compile(r"(?<=\w\w)enc$"), "ens"),
    (re.compile(r"(?<=\w\w)mm$"), "m"),
)


def _one_spelling(stem: str) -> str:
    for pattern, replacement in _SPELLINGS:
        changed = pattern.sub(replacement, stem)
        if changed != stem:
            return changed
    return stem


# "Tom's", "we'll", "don't": the clitic says nothing of what is meant (no "s" of "user's" to match)
_CLITIC = re.compile(r"(?<=[^\W\d_])['\u2019](?:s|ll|ve|re|d|m|t)\b|(?<=[^\W\d_])n['\u2019]t\b", re.IGNORECASE)


def _words(text: str) -> list[str]:
    if "'" in text or "\u2019" in text:
        text = _CLITIC.sub("", text)
    if not text.isascii():  # "café" meets "cafe"; other scripts stay as they are
        text = "".join(char for char in unicodedata.normalize("NFKD", text) if not unicodedata.combining(char))
    return [_unplural_acronym(word).lower() for word in _WORD.findall(text)]


_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")


def _unplural_acronym(word: str) -> str:
    """An acronym's plural as its singular ("PRs" → "PR", "SKUs" → "SKU"); other words unchanged."""
    return word[:-1] if _ACRONYM_PLURAL.fullmatch(word) else word


def tokenize(text: str) -> list[str]:
    """Lower-case word stems of ``text``: identifiers split at ``_`` and camelCase, stop words dropped,
    then each pair of neighbouring stems as one phrase term (``time off`` → ``time+off``)."""
    return _tokens(_words(text))


def _tokens(words: Iterable[str]) -> list[str]:
    stems = [_stem(word) for word in words if word not in _STOP_WORDS]
    return stems + [f"{first}+{second}" for first, second in itertools.pairwise(stems)]


def _plural_synonyms(word: str) -> tuple[str, ...]:
    """The synonyms of a plural's singular ("meetings" means what "meeting" does); not of a verb's
    -s form, which names a thing ("books" are not bookings). Abbreviations have short plurals ("vms")."""
    if len(word) < 3 or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return ()
    for singular in (word[:-1], word[:-2], word[:-3] + "y"):
        means = _SYNONYMS.get(singular)
        if means:
            return () if _stem(singular) in _LEAD_VERBS else means
    return ()


def _surface_forms(words: Iterable[str]) -> list[str]:
    """The singular of each word that stemming changes further ("=training" for "trainings"): the stem
    joins a word's forms, and this term still tells "training" from "train"."""
    forms = []
    for word in words:
        if word not in _STOP_WORDS:
            singular = _singular(word)
            if singular != _stem(word):
                forms.append("=" + singular)
    return forms


# "kim@home.net" says who, not what: its words ("home", "mail") name no service; it stands as a
# pronoun, so that "let kim@home.net see it" still reads as giving someone access
_PERSON = "them"
_EMAIL_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
# "2pm", "8 a.m.": a time of day, not the "PM" of "PM2.5"
_TIME_OF_DAY = re.compile(r"\b\d{1,2}(?:[:.]\d\d)?\s?(?:[ap]m\b|[ap]\.m\.)", re.IGNORECASE)


# "the task "renew passport"": a title or a value, which says what the thing is called, not what it is
_QUOTED = re.compile(r'"([^"]*)"|\u201c([^\u201d]*)\u201d')
_QUOTED_STAND_IN = "it"


# "my /Projects/2024 folder": a path, which names a place as a title names a thing
_PATH = re.compile(r"(?<![\w/:.])/[^\W_][\w.-]*(?:/[\w.-]+)*/?")


def _unquote(query: str) -> tuple[str, str]:
    """``query`` with each quotation and path as "it", and their text: taken at a fraction of its words'
    weight, never for what they ask to do nor for their subject ("put "dentist" in my calendar")."""
    quoted = ""
    if '"' in query or "\u201c" in query:
        quoted = " ".join(first or second for first, second in _QUOTED.findall(query))
        query = _QUOTED.sub(_QUOTED_STAND_IN, query)
    if "/" in query:
        quoted = " ".join([quoted, *_PATH.findall(query)])
        query = _PATH.sub(_QUOTED_STAND_IN, query)
    return query, quoted


_IDENTIFIER = re.compile(r"\b[^\W_]+(?:_[^\W_]+)+\b")


@functools.lru_cache(maxsize=256)
def _identifier_words(query: str) -> frozenset[str]:
    """The words of the identifiers in ``query`` ("dark_mode") and of the names in it ("Umbrella Corp"):
    a name, taken at its word only, never for what its words mean in everyday speech (no "dark"
    brightness, no "umbrella" rain) nor for their subject."""
    names = _proper_names(query)
    if "_" not in query:
        return names
    return names | frozenset(word for name in _IDENTIFIER.findall(query) for word in _words(name))


_TITLE_WORD = re.compile(r"[A-Z][a-z]+")


def _proper_names(query: str) -> frozenset[str]:
    """The words of runs of two or more capitalised words after the first word ("at Umbrella Corp",
    "Tom Becker's"), unless the whole query is written so ("Create Calendar Event"); not the words
    that say what kind of name it is ("Corp", "Dr")."""
    raw = query.split()
    if len(raw) < 3 or not any(_TITLE_WORD.match(word) for word in raw[1:]):
        return frozenset()
    titled = [bool(_TITLE_WORD.match(word)) for word in raw]
    if all(titled):
        return frozenset()
    found: set[str] = set()
    for at in range(1, len(raw) - 1):
        if titled[at] and titled[at + 1]:
            found.update(_words(raw[at]) + _words(raw[at + 1]))
    return frozenset(found - _NAME_KINDS)


_NAME_KINDS = _word_set("dr mr mrs ms prof corp inc ltd llc gmbh plc")  # "Dr Patel" is a doctor

_NEW_VALUE = re.compile(r"^\W*(?:please )?(\w+) (?:the|my|our|this|that|its|their) .+? to (.+)$", re.IGNORECASE)


def _new_value_words(query: str) -> frozenset[str]:
    """The words after "to" in "change the X to Y" (an update verb, a thing named as known): what X
    becomes, taken at its word, not for what the thesaurus says it means ("change the topic to
    Holiday schedule" asks for no vacation)."""
    match = _NEW_VALUE.match(query)
    if not match or _LEAD_VERBS.get(_stem(match[1].lower())) != "update":
        return frozenset()
    return frozenset(_words(match[2]))


_PARTICLES = _word_set("up off down out in back away on")


def _without_particles(words: Sequence[str]) -> list[str]:
    """``words`` without the particle of each phrasal verb: "look up", "pick up" say what to do, and
    their "up" is no word of a thing ("picked up at the desk")."""
    return [
        word
        for at, word in enumerate(words)
        if not (at and word in _PARTICLES and (words[at - 1], word) in _CUE_PHRASES)
    ]


# what is kept of a person, and the words of where it is kept
_DETAILS = frozenset(
    {("phone", "number"), ("email", "address"), ("mobile", "number"), ("home", "address"), ("contact", "details")}
)
_WHOSE = ("contact", "people")
_DETAIL_WEIGHT = 0.5
# "2.4.1", "v3.2": a version of software, the words of releases
_VERSION = re.compile(r"(?<![\w.])(?:v\d+(?:\.\d+)*|\d+\.\d+\.\d+)(?![\w.])", re.IGNORECASE)
_VERSION_WORDS = ("version", "release")


def _query_terms(query: str) -> Counter[str]:
    words = _words(_TIME_OF_DAY.sub(" ", query))
    terms: Counter[str] = Counter(_tokens(_without_particles(words)))
    details = _DETAILS.intersection(itertools.pairwise(words))
    if details:
        for word in _WHOSE:  # "Tom's phone number": a detail of someone, kept with their contact
            terms[_stem(word)] += 1
        for first, second in details:  # and no number to send a message to
            for term in (_stem(first), _stem(second), f"{_stem(first)}+{_stem(second)}", first + second):
                if term in terms:
                    terms[term] = min(terms[term], _DETAIL_WEIGHT)  # type: ignore[assignment]
    if _VERSION.search(query):
        for word in _VERSION_WORDS:
            terms[_stem(word)] += _SYNONYM_WEIGHT  # type: ignore[assignment]
    for before, word in itertools.pairwise(words):
        if before in _WHEN_OPENERS and _stem(word) in _WHEN_WORDS:  # "last night", "next week": when, not what
            for stem in (_stem(before), _stem(word)):
                if stem in terms:
                    terms[stem] = min(terms[stem], _WHEN_WEIGHT)  # type: ignore[assignment]
    for first, second in itertools.pairwise(words):
        terms[first + second] += 1  # "on call" also asks for "oncall", "to do" for "todo"
        head = _stem(first)
        if head != first or second.endswith(_INFLECTED):  # "to-dos": "todo", "working out": "workout"
            joined = _stem(head + second)
            if joined != first + second:
                terms[joined] += 1
        if _singular(second) in _PHRASE_ENDS:  # "claim back": reimburse
            head = "day" if first in _DAY_NAMES else _singular(first)  # "take Friday off": a day off
            for synonym in _PHRASE_SYNONYMS.get((head, _singular(second)), ()):
                terms[_stem(synonym)] += _SYNONYM_WEIGHT  # type: ignore[assignment]
    for phrase in zip(words, words[1:], words[2:], strict=False):
        for synonym in _THREE_WORD_PHRASES.get(phrase, ()):  # "out of office": away
            terms[_stem(synonym)] += _SYNONYM_WEIGHT  # type: ignore[assignment]
    names = _identifier_words(query) | _new_value_words(query)
    for first, second in itertools.pairwise(words):
        if first in _POSSESSIVES and _singular(second) in _OWN_NOUN_SYNONYMS:  # "my schedule": my calendar
            for synonym in _OWN_NOUN_SYNONYMS[_singular(second)]:
                terms[_stem(synonym)] += _SYNONYM_WEIGHT  # type: ignore[assignment]
    for at, word in enumerate(words):
        if word in names:
            continue
        means = _SYNONYMS.get(word) or _plural_synonyms(word)
        if word in _SPENDING and _TIME_UNITS.intersection(words):
            continue  # "hours spent in meetings": time, not money
        if word in _CURRENCIES and at and words[at - 1].isdigit() and len(_CURRENCIES.intersection(words)) == 1:
            means = _AMOUNT  # "200 dollars": a sum of money, not a rate ("how many yen is 100 dollars")
        for synonym in means:
            terms[_stem(synonym)] += _SYNONYM_WEIGHT  # type: ignore[assignment]
    for form in _surface_forms(words):
        terms[form] += _FORM_WEIGHT  # type: ignore[assignment]
    return terms


@functools.cache
def _topic_table() -> dict[str, tuple[str, ...]]:
    """The stems of everyday words and of the subjects they talk about, read once from
    topic_words.txt (``weather rain: drizzle umbrella ...``); only single words are kept, and a word
    of several lines keeps each line's subject."""
    from importlib import resources  # only a search that meets an unknown word pays for it

    text = resources.files("toolplug").joinpath("topic_words.txt").read_text(encoding="utf-8")
    subjects: dict[str, list[str]] = {}
    for line in text.splitlines():
        subject, colon, words = line.partition(":")
        if not colon or line.startswith("#"):
            continue
        stems = [_stem(word) for word in _words(subject)]
        for word in words.split():
            if _words(word) == [word]:
                known = subjects.setdefault(_stem(word), [])
                known.extend(stem for stem in stems if stem not in known)
    return {word: tuple(stems) for word, stems in subjects.items()}


# --- what a query asks to do -------------------------------------------------------------------------
#
# Most tools do one of a few things to a thing: list, get, search, create, update, delete, export,
# share, archive, report on. Ten tools about invoices differ only in that, so a query that says
# which (in its own words) must pick the tool that does it. A tool's action comes from the verb of its
# name (``crm_update_contact``), else the first word of its description ("Creates a contact ...").

_TOOL_VERB_WORDS: Mapping[str, str] = {
    verb: family
    for family, verbs in {
        "list": "list browse enumerate",
        "get": "get fetch retrieve read show describe view inspect info detail details",
        "search": "search find query lookup filter",
        "create": "create add new make insert post send submit book schedule open start register upload "
        "generate issue place write log record compose clone copy duplicate fork subscribe",
        "update": "update edit modify set change patch rename move assign mark toggle enable disable "
        "configure replace upsert adjust merge resolve reopen restore approve reject",
        "delete": "delete remove destroy cancel drop revoke purge erase unregister uninstall clear deregister",
        "export": "export download dump print",
        "share": "share invite grant forward",
        "archive": "archive close hide deactivate retire unpublish",
        "stats": "stats statistics report reports summary summarize summarise aggregate analytics metrics count totals",
    }.items()
    for verb in verbs.split()
}
_TOOL_VERBS: Mapping[str, str] = {_stem(verb): family for verb, family in _TOOL_VERB_WORDS.items()}


# What a query asks to do. A verb counts where an imperative stands, as the query's first word (after
# "please", "can you"...) and in its base form: "cancel my booking" asks to delete, "cancelled
# bookings" and "emails" do not. Modifiers ("all", "total", "csv") count anywhere.
def _families(table: Mapping[str, str]) -> dict[str, str]:
    return {_stem(word): family for family, words in table.items() for word in words.split()}


_LEAD_VERBS = _families(
    {
        "list": "list browse",
        "get": "get fetch retrieve show view display check read track see tell",
        "search": "search find look lookup query locate",
        "create": "create add new make book reserve schedule write draft send submit file log record save buy "
        "order post publish reply remind open enroll register generate request apply start launch declare raise "
        "issue compose upload import enter put place rent hire borrow ship page alert notify text email "
        "message invoice bill jot plan arrange organise organize host deploy provision run charge purchase sell "
        "subscribe join note capture store clone copy duplicate fork reimburse claim report snapshot backup mail wire",
        "update": "update edit change modify set rename move adjust extend reschedule renew mark assign "
        "reassign approve reject enable disable increase decrease lower reduce turn switch toggle upgrade "
        "downgrade fix correct postpone delay resize restock escalate pin dim brighten arm disarm lock unlock "
        "pause resume mute unmute skip replace refund pay promote complete finish tag label push amend revise "
        "alter tweak bump shift swap accept decline confirm snooze silence restart reboot rotate restore "
        "reopen resolve acknowledge merge dismiss attach point redirect",
        "delete": "delete remove cancel revoke terminate drop destroy withdraw void discard erase purge "
        "unsubscribe kill wipe uninstall offboard end clear trash scrap ditch fire deregister discontinue nuke axe",
        "export": "export download print extract",
        "share": "share invite grant forward",
        "archive": "archive close unpublish hide retire deactivate shelve",
    }
)
_MODIFIERS = _families(
    {
        "list": "all recent recently latest lately upcoming history past newest",
        "get": "details detail info information status",
        "search": "matching containing",
        "create": "new",
        "export": "csv pdf excel xlsx",
        "stats": "stats statistics total totals average mean sum count volume trend breakdown analytics metrics "
        "summary summarize summarise analyze analyse analysis compare comparison tally chart graph overview headcount",
    }
)
# Modifiers that only lean one way ("results" of a survey are its statistics, of a match its list).
_WEAK_MODIFIERS = _families({"stats": "results rate numbers performance growth revenue kpi insights"})
# Words that are verbs as often as nouns ("open a ticket", "open tickets"): as the first word they ask
# for their action only when an object follows ("the", "my", "a", a number).
_NOUN_VERBS = _word_set(
    "open close book file log record order post reply request text email message page alert invoice bill plan "
    "host issue report run charge place ship rent lock mark tag label pin push check track view list search "
    "query export share archive release change skip pay refund draft return start transfer claim call review "
    "test schedule set switch turn backup snapshot mail point"
)
_OBJECT_WORDS = _word_set(
    "a an the my our your his her their its this that these those all some every each another me us him them it "
    "new one two three"
)
_LET_SEE = re.compile(r"\blet (?!me\b|us\b)(?:\w+ ){1,4}(?:see|view|edit|access|read)\b", re.IGNORECASE)
_JOURNEY = re.compile(r"\bfrom [A-Z][\w-]*(?: [A-Z][\w-]*)* to [A-Z]")
_NUMBERS = _word_set("two three four five six seven eight nine ten")
_PERIOD_OPENERS = _word_set("this last past per each every")
_PERIODS = _word_set("day week month quarter year")
_WHEN_WEIGHT = 0.3
_WHEN_WORDS = frozenset(map(_stem, _word_set("night week month quarter year weekend morning evening time")))
_WHEN_OPENERS = _word_set("last this next every past tomorrow yesterday")  # "last night": a time
_CUE_PHRASES: Mapping[tuple[str, str], str] = {
    ("how", "many"): "stats",
    ("how", "much"): "stats",
    ("how", "often"): "stats",
    ("how", "far"): "stats",
    ("number", "of"): "stats",
    ("set", "up"): "create",
    ("spin", "up"): "create",
    ("sign", "up"): "create",
    ("kick", "off"): "create",
    ("shut", "down"): "delete",
    ("take", "down"): "archive",
    ("turn", "on"): "update",
    ("turn", "off"): "update",
    ("switch", "on"): "update",
    ("switch", "off"): "update",
    ("look", "up"): "search",
    ("dig", "up"): "search",
    ("track", "down"): "search",
    ("hunt", "down"): "search",
    ("give", "access"): "share",
    ("get", "rid"): "delete",
    ("get", "to"): "create",  # "how do I get to the museum": a journey to plan, no thing to read
    ("for", "good"): "delete",
    ("clean", "up"): "delete",
    ("call", "off"): "delete",
    ("tear", "down"): "delete",
    ("opt", "out"): "delete",
    ("pull", "up"): "get",
    ("bring", "up"): "get",
    ("back", "up"): "create",
    ("write", "down"): "create",
    ("note", "down"): "create",
    ("jot", "down"): "create",
    ("tuck", "away"): "archive",
    ("put", "away"): "archive",
    ("file", "away"): "archive",
    ("fill", "in"): "create",
    ("fill", "out"): "create",
    ("hand", "in"): "create",
    ("send", "out"): "create",
    ("put", "off"): "update",
    ("push", "back"): "update",
    ("move", "up"): "update",
    ("roll", "back"): "delete",
    ("close", "out"): "archive",
    ("stop", "showing"): "archive",
    ("spin", "down"): "delete",
    ("queue", "up"): "create",
}
_FILLERS = _word_set(
    "please can could would you i we want need like to help me let us go ahead and just how do hey hi hello ok okay so"
)
# words that say what to do, not what about: never looked up as a subject
_NOT_TOPICAL = frozenset(_LEAD_VERBS) | frozenset(_MODIFIERS) | frozenset(_stem(word) for word in _FILLERS)
_LOOKUP_FAMILIES = frozenset({"list", "get", "search"})
_WEAK_CUE = 0.4
_FAINT_CUE = 0.12  # orders the lookups among themselves, and no more
_UNASKED_CREATE = 0.15  # no action asked: after the lookups, a new thing ("a deck for the board meeting")
_PLURAL_GET = 0.5  # "show" with things in the plural: one of them may still be meant
_ADDED_TO = "added to"  # the family of the tools that change the thing a query adds to
_ADDED_TO_EDGE = 1.05  # the update of the thing added to, just above the new thing "add" asks for
_AMBIGUOUS_LEAD = 0.2  # below the lookup bonus: "open tickets" still lists first


# "sign-up form", "check-up": a hyphenated pair is one word (a noun), not a verb and its particle.
_HYPHENATED = re.compile(r"(?<=[^\W\d_])-(?=[^\W\d_])")


def _tool_family(definition: ToolDefinition) -> str:
    """The action family of a tool ("create", "list", ...), or "" when its name and description name none.
    A name says its verb as it is ("places_create_place": create, not the "place" of "places"); a
    description's first word may be any form of one ("Creates ...")."""
    for word in _words(definition.function.name):
        family = _TOOL_VERB_WORDS.get(word)
        if family:
            return family
    words = _words(definition.function.description_for_llm[:80])
    return _TOOL_VERBS.get(_stem(words[0]), "") if words else ""


def _thing_words(definition: ToolDefinition) -> tuple[str, ...]:
    """The words of what a tool acts on, from its name after its verb (``music_update_playlist``:
    playlist)."""
    words = _words(definition.function.name)
    at = next((i for i, word in enumerate(words) if word in _TOOL_VERB_WORDS), len(words))
    return tuple(words[at + 1 :])


def _thing_stems(definition: ToolDefinition) -> list[str]:
    """The stems of what a tool acts on (``_thing_words``)."""
    return [_stem(word) for word in _thing_words(definition)]


_ADD_TO = re.compile(r"^\W*(?:please )?add\b.+?\bto (?:the|my|our|your|this|that) ([^,;.!?:]+)", re.IGNORECASE)


def _added_to(query: str) -> frozenset[str]:
    """The stems of the one thing ``query`` adds to ("add milk to my shopping list": shopping, list),
    a change to it; none for a collection ("to my contacts"), where the added thing is a new one."""
    match = _ADD_TO.match(query)
    if not match:
        return frozenset()
    words = list(itertools.takewhile(lambda word: word not in _PREPOSITIONS, _words(match[1])))
    return frozenset(_stem(word) for word in words) if words and not _is_plural(words[-1]) else frozenset()


def _query_intent(query: str, known: Collection[str] = ()) -> dict[str, float]:
    """The action families ``query`` asks for, each with a weight up to 1 (empty: none asked)."""
    text = _HYPHENATED.sub("", query[:_MAX_QUERY_CHARS])
    words = _join_phrasal(_words(text))
    intent: dict[str, float] = {}
    for clause in _CLAUSE_BREAK.split(text):  # "my car is dented, claim it": each clause may lead with a verb
        for family, weight in _lead_intent(_join_phrasal(_words(clause)), known).items():
            intent[family] = max(intent.get(family, 0.0), weight)
    if not intent:
        intent = _trailing_verb(words)
    led = bool(intent)
    for at, word in enumerate(words):
        stem = _stem(word)
        for table, weight in ((_MODIFIERS, 1.0), (_WEAK_MODIFIERS, _WEAK_CUE)):
            modified = table.get(stem)
            if modified == "create" and not _names_one_new_thing(words[at + 1 : at + 2]):
                modified = "list"  # "new emails", "what's new in my inbox": what came in lately
            elif stem == "number" and _names_a_number(words[at - 1] if at else ""):
                modified = None  # "phone numbers" are no figures
            if modified:
                intent[modified] = max(intent.get(modified, 0.0), weight)
    if not intent and words and words[0] in _QUESTIONS:
        intent[_QUESTIONS[words[0]]] = _FAINT_CUE  # "which invoices...": a list; "where is...": one thing
    elif not intent and _plural_object(words):
        intent["list"] = _FAINT_CUE  # "unread emails": several things, perhaps a list of them
    if _LET_SEE.search(text):
        intent["share"] = 1.0  # "let the team see the doc": give access
    if _JOURNEY.search(text) and "create" not in intent:
        intent["create"] = _WEAK_CUE  # "from Paris to Lyon": a journey to book or plan
    if _sets_a_value(text):
        intent["update"] = 1.0  # "raise the cap to 50k": a new value for what exists, not a new thing
        if intent.get("create", 0.0) >= 1.0:
            intent["create"] = _WEAK_CUE
    for at, (first, second) in enumerate(itertools.pairwise(words)):
        cued = _CUE_PHRASES.get((first, second))
        if first == "number" and _names_a_number(words[at - 1] if at else ""):
            continue  # "the phone number of Dieter": which number, not how many
        if cued == "stats" and first == "how" and words[at + 2 : at + 3] in (["is"], ["are"], ["does"]):
            intent["stats"] = max(intent.get("stats", 0.0), _WEAK_CUE)  # "how much is a pound": its value
        elif cued:
            intent[cued] = 1.0
        elif first in _PERIOD_OPENERS and _stem(second) in _PERIODS and "stats" not in intent:
            intent["stats"] = _WEAK_CUE  # "this month", "per week": perhaps totals over a period
        elif _groups_by(first, second) and "stats" not in intent:
            intent["stats"] = _WEAK_CUE  # "per project", "by stage": perhaps totals broken down
        elif first == "for" and (second.isdigit() or second in _NUMBERS) and "create" not in intent:
            intent["create"] = _WEAK_CUE  # "a table for two", "for 3 nights": the size of a booking
    if not led and _NAMED_ONE.search(text):
        _ask_for_the_named_one(intent)
    return intent


_KEYWORDS_AT_MOST = 5
_GROUPINGS = _word_set(
    "stage stages department departments team teams category categories region regions country countries product "
    "products customer customers source sources status project projects channel channels plan plans type types"
)


def _groups_by(first: str, second: str) -> bool:
    """Whether "per" or "by" and the next word break figures down by a field: "per project", "by stage"."""
    if first == "per":
        return second.isalpha() and second not in _OBJECT_WORDS
    return first == "by" and second in _GROUPINGS


def _trailing_verb(words: Sequence[str]) -> dict[str, float]:
    """What the verb that ends a query of keywords asks for: "parking 7781 cancel", "calendar event
    create"; not a verb that is a thing too ("inventory value report"), nor a sentence's last word."""
    if not words or len(words) > _KEYWORDS_AT_MOST or any(word in _STOP_WORDS for word in words):
        return {}
    last = words[-1]
    family = _LEAD_VERBS.get(_stem(last)) if _is_base_form(last) and last not in _NOUN_VERBS else None
    return {family: 1.0} if family else {}


_COUNT_ADJECTIVES = _word_set("exact rough overall large small huge growing same")


def _names_a_number(before: str) -> bool:
    """Whether ``before`` "number" makes the name of one ("phone number", "tracking number"), not a
    count ("the number of", "total number of")."""
    return bool(before) and before not in _OBJECT_WORDS and before not in _COUNT_ADJECTIVES and (
        _stem(before) not in _MODIFIERS
    )


# "ticket #48213", "bug WEB-1432", "token tok_51": the id of one thing
_NAMED_ONE = re.compile(r"(?<![\w-])(?:#\d+|[A-Za-z]{2,5}-\d[\w-]*|[A-Za-z]+_\d+)(?![\w-])")


def _code_letters(query: str) -> list[str]:
    """The letters of the ids in ``query`` ("tag API-88", "hotel booking HR-2231"): the name of a series,
    which seldom names the service as a word ("API-88" is an issue, not an API token) but may as a
    shortening of its thing's name ("evt_4471" is an event)."""
    return [word for code in _NAMED_ONE.findall(query) for word in _words(code) if not word.isdigit()]


def _shortened(letters: str, name: Sequence[str]) -> tuple[str, ...]:
    """The words of a thing's name (``name``) that ``letters`` shorten: all of them for its initials
    ("jp": job posting); else each word that ``letters`` begin ("vid": video, "res": reservation) or
    whose skeleton they are: its first letter, then some of its consonants in order, ending with its
    last ("evt": event, "msg": message)."""
    if len(name) > 1 and letters == "".join(word[0] for word in name):
        return tuple(name)
    if len(letters) < 3:
        return ()
    return tuple(word for word in name if len(word) > len(letters) and _shortens(letters, word))


def _says(letters: str, words: Sequence[str]) -> bool:
    """Whether ``words`` say what ``letters`` shorten: a word they begin or a run of words they are the
    initials of ("pl_88" of a place, "sl_9" of a shopping list)."""
    if any(len(word) > len(letters) and word.startswith(letters) for word in words):
        return True
    size = len(letters)
    return any("".join(word[0] for word in words[at : at + size]) == letters for at in range(len(words) - size + 1))


def _shortens(letters: str, word: str) -> bool:
    if word.startswith(letters):
        return True
    consonants = [letter for letter in word[1:] if letter not in _VOWELS]
    if letters[0] != word[0] or not consonants or letters[-1] != consonants[-1]:
        return False
    rest = iter(consonants)
    return all(letter in rest for letter in letters[1:])


def _ask_for_the_named_one(intent: dict[str, float]) -> None:
    """A query that names one thing by its id and no verb asks for that thing: "how much energy did
    session CS-1029 deliver" reads its details, "the latest on bug WEB-1432" is that bug's."""
    for family in ("list", "stats"):
        if family in intent:
            intent[family] = min(intent[family], _WEAK_CUE)
    intent["get"] = 1.0


_QUESTIONS: Mapping[str, str] = {"which": "list", "where": "get", "is": "get"}
_TO_VALUE = re.compile(r"\bto [-+$€£]?\d")


def _sets_a_value(text: str) -> bool:
    """Whether ``text`` takes a thing it names as known ("the", "my"...) to a number: "set the heating
    to 21", "raise my limit to 5k"; not a range ("from 2 to 4", "9 to 5") nor "a text to 555-0101"."""
    for match in _TO_VALUE.finditer(text):
        head = text[: match.start()]
        before = _words(head)
        named = _DEFINITE.intersection(before) or _IDENTIFIER.search(head)  # "dark_mode to 25%" exists
        if before and not before[-1].isdigit() and "from" not in before and named:
            return True
    return False


_PRONOUNS = _word_set("me it them us him her this that")
_DEFINITE = _word_set("the my our your his her their this that these those it them")
_ADJECTIVE_VERBS = _word_set("open close closed set")
_CLAUSE_BREAK = re.compile(r"[,;.!?:]|\s[-\u2013\u2014]\s|\b(?:and|then|but)\b", re.IGNORECASE)


def _join_phrasal(words: list[str]) -> list[str]:
    """``words`` without a pronoun inside a phrasal verb: "set me up" reads as "set up"."""
    return [
        word
        for i, word in enumerate(words)
        if not (word in _PRONOUNS and 0 < i < len(words) - 1 and (words[i - 1], words[i + 1]) in _CUE_PHRASES)
    ]


def _lead_intent(words: Sequence[str], known: Collection[str]) -> dict[str, float]:
    """What the imperative verb that leads ``words`` (after "please", "can you"...) asks for."""
    at = next((i for i, word in enumerate(words) if word not in _FILLERS), len(words))
    lead = words[at] if at < len(words) else ""
    after = words[at + 1] if at + 1 < len(words) else ""
    phrasal = _CUE_PHRASES.get((lead, after)) or _separated_phrasal(lead, words[at + 1 :])
    if phrasal:
        return {phrasal: 1.0}  # "put off" is one verb: to postpone, not to put
    family = _LEAD_VERBS.get(_stem(lead)) if _is_base_form(lead) else None
    if not family and len(lead) >= _TYPO_SHORTEST and lead.isalpha() and _is_base_form(lead):
        family = _misspelt_verb(_stem(lead))  # "cancle my booking", "shcedule a call"
    if not family:
        return {}
    if lead == "new" and not _names_one_new_thing(words[at + 1 : at + 2]):
        return {"list": 1.0}  # "new tickets since Monday": what came in
    named = after.isdigit() or after in _OBJECT_WORDS  # "open a ticket", "book 2 seats"
    # "open tickets" may be tickets that are open; "book loans" is a thing the catalogue knows (a phrase
    # of its tools), "order sushi" is not
    ambiguous = lead in _NOUN_VERBS and not named
    if ambiguous and lead not in _ADJECTIVE_VERBS and known:
        ambiguous = f"{_stem(lead)}+{_stem(after)}" in known
    if lead == "set" and after in _INDEFINITE:
        family = "create"  # "set a reminder": a new thing; "set the heating to 21": a new value
    if lead == "make" and after in _DEFINITE:
        family = "update"  # "make the repository public": change what exists; "make a playlist": create
    if lead in _PASS_ON and after in _DEFINITE and "to" in words[at + 2 :]:
        # "send the photo to my sister": a thing that exists goes to someone; "send a text to ..." is new
        return {"share": 1.0, "create": _WEAK_CUE}
    intent = {family: _AMBIGUOUS_LEAD if ambiguous else 1.0}
    if family == "get" and _plural_object(words[at + 1 :]):
        intent["list"] = intent[family]  # "show the open tickets": many things, perhaps not one
        if not _parts_of_one(words[at + 1 :]):
            intent["get"] = intent[family] * _PLURAL_GET  # so a list before any one of them
    return intent


_SEPARATED_AT_MOST = 4  # words between a phrasal verb and its particle: "call the whole thing off"


def _separated_phrasal(lead: str, rest: Sequence[str]) -> str | None:
    """The family of a phrasal verb whose particle ends the clause after its object ("turn the lights
    off", "call the whole thing off"), if ``lead`` and that last word make one."""
    if not rest or len(rest) > _SEPARATED_AT_MOST + 1 or rest[-1] not in _PARTICLES:
        return None
    return _CUE_PHRASES.get((lead, rest[-1]))


@functools.lru_cache(maxsize=1024)
def _misspelt_verb(stem: str) -> str | None:
    """The family of the one leading verb one slip from ``stem`` (a stem no verb has), if just one is."""
    if stem in _LEAD_VERBS:
        return None
    near = {family for verb, family in _LEAD_VERBS.items() if verb[0] == stem[0] and _one_edit(stem, verb)}
    return near.pop() if len(near) == 1 else None


_PASS_ON = _word_set("send email mail")
_INDEFINITE = _word_set("a an another")
_PREPOSITIONS = _word_set("from for in on at with of about since over by to that which who where when under")


def _plural_object(words: Sequence[str]) -> bool:
    """Whether the object (the words before the first preposition) names things in the plural."""
    for word in words:
        if word in _PREPOSITIONS:
            return False
        if _is_plural(word):
            return True
    return False


def _names_one_new_thing(following: Sequence[str]) -> bool:
    """Whether "new" before ``following`` makes a thing ("a new invoice"), not describes things that
    came in ("new emails", "what's new in ...")."""
    return bool(following) and following[0] not in _PREPOSITIONS and not _is_plural(following[0])


def _parts_of_one(words: Sequence[str]) -> bool:
    """Whether the plural object is the parts of one thing: "the results of my test", "cells A1 to C10
    of the sheet" (a range's "to" does not end the object)."""
    for at, word in enumerate(words):
        if word in _PREPOSITIONS:
            return False
        if _is_plural(word):
            return next((w for w in words[at + 1 :] if w in _PREPOSITIONS and w != "to"), "") == "of"
    return False


def _is_plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")) and word not in _INVARIANT


def _is_base_form(word: str) -> bool:
    """Not a plural, past or -ing form: "ship" and "cancel", not "ships", "cancelled", "booking"."""
    return not word.endswith(("s", "ed", "ing")) or word.endswith(("ss", "us"))


def _split_compounds(terms: list[str], vocabulary: frozenset[str], known: dict[str, list[str]]) -> list[str]:
    """``terms`` plus the two halves of each unknown compound made of known words (``fooddelivery``).

    ``known`` caches the split of each term across the tools of one index.
    """
    extra: list[str] = []
    for term in terms:
        if "+" in term or term in vocabulary or len(term) < 5:
            continue
        halves = known.get(term)
        if halves is None:
            halves = []
            for cut in range(2, len(term) - 1):
                head, tail = term[:cut], _stem(term[cut:])
                if head in vocabulary and tail in vocabulary:
                    halves = [head, tail]
                    break
            known[term] = halves
        extra += halves
    return terms + extra


def _deletes(word: str) -> set[str]:
    """``word`` with one letter left out, each way."""
    return {word[:at] + word[at + 1 :] for at in range(len(word))}


def _one_edit(first: str, second: str) -> bool:
    """Whether ``second`` is ``first`` with one letter left out, added or changed, or two neighbours
    swapped."""
    if abs(len(first) - len(second)) > 1:
        return False
    if len(first) > len(second):
        first, second = second, first
    at = next((i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b), len(first))
    if len(first) < len(second):
        return first[at:] == second[at + 1 :]
    if first[at + 1 :] == second[at + 1 :]:
        return True
    return first[at : at + 2] == second[at : at + 2][::-1] and first[at + 2 :] == second[at + 2 :]


def _definition_fields(definition: ToolDefinition, plugin: str = "") -> list[tuple[str, float]]:
    """The searchable text of a definition, each field with its weight."""
    parameters = definition.function.parameters
    properties = parameters.get("properties") if isinstance(parameters, Mapping) else None
    argument_names: list[str] = []
    argument_texts: list[str] = []
    if isinstance(properties, Mapping):
        for name, spec in properties.items():
            argument_names.append(str(name))
            if isinstance(spec, Mapping) and isinstance(spec.get("description"), str):
                argument_texts.append(spec["description"])
    texts = [
        definition.function.name,
        plugin.replace(".", " "),
        definition.title or "",
        definition.function.description_for_llm,
        " ".join(argument_names),
        " ".join(argument_texts),
    ]
    return list(zip(texts, _FIELD_WEIGHTS, strict=True))


@dataclass(frozen=True, slots=True)
class SearchMatch:
    """One tool a search found."""

    id: str
    name: str
    title: str
    description: str
    """The first line (or sentence) of the description the model reads."""
    plugin: str
    score: float

    def as_dict(self) -> dict[str, str]:
        """The match as the model reads it."""
        return {"name": self.name, "title": self.title, "description": self.description}


def _one_line(text: str, limit: int = 160) -> str:
    line = text.strip().split("\n", 1)[0]
    sentence = re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


class ToolIndex:
    """BM25 over the name, title, description and argument text of a set of tools, with each
    plugin's matching tools sharing part of the evidence (a plugin is mostly one service: its tools'
    words describe what they all work on)."""

    K1 = 1.2
    B = 0.3

    def __init__(self, tools: Iterable[RegisteredTool]) -> None:
        self._tools: list[RegisteredTool] = list(tools)
        self._families = [_tool_family(tool.definition) for tool in self._tools]
        self._things = [frozenset(_thing_stems(tool.definition)) for tool in self._tools]
        self._thing_names = frozenset(_thing_words(tool.definition) for tool in self._tools)
        self._shortened: dict[str, tuple[str, ...]] = {}
        groups: dict[str, int] = {}
        self._group = [groups.setdefault(tool.plugin, len(groups)) for tool in self._tools]
        weights, lengths = self._term_weights()
        average = sum(lengths) / len(lengths) if lengths else 1.0
        # per term: (tool, saturated term frequency); per plugin the best of its tools', when first asked
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._service: dict[str, list[tuple[int, float]]] = {}
        self._topic_cache: dict[str, tuple[str, ...]] = {}
        self._deletions: dict[str, list[str]] | None = None
        scale = self.K1 + 1
        for index, tool_weights in enumerate(weights):
            norm = self.K1 * (1 - self.B + self.B * lengths[index] / average)
            for term, weight in tool_weights.items():
                posting = (index, weight * scale / (weight + norm))
                postings = self._postings.get(term)
                if postings is None:
                    self._postings[term] = [posting]
                else:
                    postings.append(posting)
        self._frequency = self._boilerplate() if _BOILERPLATE_SHARE > 0 else {}

    def _idf(self, term: str, postings: Sequence[tuple[int, float]]) -> float:
        """The inverse document frequency of ``term``, counting its tools as ``_boilerplate`` says."""
        count = len(self._tools)
        frequency = self._frequency.get(term, len(postings))
        return math.log(1 + (count - frequency + 0.5) / (frequency + 0.5))

    def _boilerplate(self) -> dict[str, int]:
        """For each word that one action's template text brings to the tools of most plugins ("by
        email" in every share tool), the number of its tools outside that action: that it describes
        every share tool says nothing of how rare it is as a service's word (the mail tools')."""
        plugins_of: dict[str, set[int]] = {}
        for index, family in enumerate(self._families):
            plugins_of.setdefault(family, set()).add(self._group[index])
        frequencies: dict[str, int] = {}
        for term, postings in self._postings.items():
            if len(postings) < _BOILERPLATE_PLUGINS:
                continue
            spread: dict[str, set[int]] = {}
            for index, _ in postings:
                spread.setdefault(self._families[index], set()).add(self._group[index])
            template = [
                family
                for family, groups in spread.items()
                if family and len(groups) >= max(_BOILERPLATE_PLUGINS, _BOILERPLATE_SHARE * len(plugins_of[family]))
            ]
            if len(template) == 1:
                rest = sum(1 for index, _ in postings if self._families[index] != template[0])
                if rest:
                    frequencies[term] = rest
        return frequencies

    def _service_postings(self, term: str, postings: Sequence[tuple[int, float]]) -> list[tuple[int, float]]:
        """Per plugin, the best saturated frequency of ``term`` among its tools (built once per term)."""
        cached = self._service.get(term)
        if cached is None:
            best: dict[int, float] = {}
            groups = self._group
            for index, saturated in postings:
                group = groups[index]
                if saturated > best.get(group, 0.0):
                    best[group] = saturated
            cached = self._service[term] = list(best.items())
        return cached

    def _term_weights(self) -> tuple[list[Counter[str]], list[float]]:
        """Each tool's terms with their field-weighted counts, and each tool's weighted length."""
        words = [
            [(_words(text), weight) for text, weight in _definition_fields(tool.definition, tool.plugin)]
            for tool in self._tools
        ]
        fields = [[(_tokens(field), weight) for field, weight in tool_words] for tool_words in words]
        forms = [[(_surface_forms(field), weight) for field, weight in tool_words] for tool_words in words]
        # words of the descriptions (field 3), to split identifiers such as "fooddelivery" against
        vocabulary = frozenset(term for tool_fields in fields for term in tool_fields[3][0] if "+" not in term)
        splits: dict[str, list[str]] = {}
        all_weights: list[Counter[str]] = []
        lengths: list[float] = []
        for tool_fields, tool_forms in zip(fields, forms, strict=True):
            weights: Counter[str] = Counter()
            for surface, weight in tool_forms:
                for form in surface:
                    weights[form] += weight  # type: ignore[assignment]
            length = 0.0
            for tokens, weight in tool_fields:
                terms = _split_compounds(tokens, vocabulary, splits)
                for term in terms:
                    weights[term] += weight  # type: ignore[assignment]
                if weight >= 1.0:  # argument text matches but does not dilute: long schemas are no worse
                    length += weight * len(terms)
            all_weights.append(weights)
            lengths.append(length or 1.0)
        return all_weights, lengths

    def __len__(self) -> int:
        return len(self._tools)

    @property
    def tools(self) -> list[RegisteredTool]:
        """The indexed tools, in order."""
        return list(self._tools)

    def search(
        self, query: str, *, limit: int = 5, plugin: str | None = None, tag: str | None = None
    ) -> list[SearchMatch]:
        """The best ``limit`` matches for ``query``, optionally within one plugin or tag."""
        text, quoted = _unquote(_EMAIL_ADDRESS.sub(_PERSON, query[:_MAX_QUERY_CHARS]))
        terms = _query_terms(text)
        for term in _tokens(_words(quoted)):
            terms[term] += _QUOTED_WEIGHT  # type: ignore[assignment]
        self._add_code_letters(text, terms)
        self._add_misspelt(text, terms)
        own, service = self._scores(terms)
        self._add_topics(text, own, service)
        multipliers = _multipliers(_query_intent(text, self._postings))
        changed = self._changed_by_adding(text, own)
        if plugin or tag:
            own = self._within(own, plugin, tag)
        ranked = self._rank(own, service, multipliers, limit, changed)
        matches: list[SearchMatch] = []
        for index, score in ranked:
            tool = self._tools[index]
            definition = tool.definition
            matches.append(
                SearchMatch(
                    tool.id,
                    tool.name,
                    definition.title or tool.name,
                    _one_line(definition.function.description_for_llm),
                    tool.plugin,
                    round(score, 4),
                )
            )
        return matches

    def _add_code_letters(self, query: str, terms: Counter[str]) -> None:
        """Weigh the letters of the ids in ``query``: a word that tools use at ``_CODE_WEIGHT`` ("API-88"),
        a shortening of a thing's name as that thing's words ("evt_4471"), unless the query says that
        thing in words that tools know ("transfer tr_551", "shopping list sl_9")."""
        codes = _code_letters(query)
        if not codes:
            return
        known = [word for word in _words(query) if _stem(word) in self._postings]
        for letters in codes:
            term = _stem(letters)
            if term in self._postings:
                if terms.get(term, 0.0) >= 1.0:
                    terms[term] -= 1 - _CODE_WEIGHT  # type: ignore[assignment]
            elif not _says(letters, known):
                for word in self._shortened_words(letters):
                    terms[word] += _ABBREVIATION_WEIGHT  # type: ignore[assignment]

    def _add_misspelt(self, query: str, terms: Counter[str]) -> None:
        """Read a word that no tool uses and that no table knows as the known words one slip away
        ("resturant": restaurant, "invioce": invoice; a letter left out, added or changed, or two
        swapped), never a name (a capitalised word inside the query, an identifier's word)."""
        for at, raw in enumerate(_WORD.findall(query)):
            word = raw.lower()
            if len(word) <= _TYPO_SHORTEST or not word.isalpha() or (at and raw[0].isupper()):
                continue
            stem = _stem(word)
            if len(stem) < _TYPO_SHORTEST or stem in self._postings or word in _SYNONYMS or stem in _NOT_TOPICAL:
                continue
            if stem in _topic_table() or word in _identifier_words(query):
                continue
            near = self._one_slip(stem)
            for known in near:
                terms[known] += _TYPO_WEIGHT / len(near)  # type: ignore[assignment]

    def _one_slip(self, stem: str) -> list[str]:
        """The known single-word stems one edit from ``stem`` that begin as it does."""
        if self._deletions is None:
            self._deletions = {}
            for term in self._postings:
                if len(term) >= _TYPO_SHORTEST and term.isalpha():
                    for variant in _deletes(term):
                        self._deletions.setdefault(variant, []).append(term)
        deletions = self._deletions
        found = set(deletions.get(stem, ()))  # a letter left out
        for variant in _deletes(stem):
            if variant in self._postings:
                found.add(variant)  # a letter added
            found.update(deletions.get(variant, ()))  # a letter changed, two swapped (or two edits)
        return sorted(term for term in found if term[0] == stem[0] and term != stem and _one_edit(stem, term))

    def _shortened_words(self, letters: str) -> tuple[str, ...]:
        """The stems of the thing names of this index that ``letters`` shorten (cached per index)."""
        cached = self._shortened.get(letters)
        if cached is None:
            stems = (_stem(word) for name in self._thing_names for word in _shortened(letters, name))
            cached = tuple(dict.fromkeys(stems))
            if len(self._shortened) >= _TOPIC_CACHE_SIZE:
                self._shortened.clear()
            self._shortened[letters] = cached
        return cached

    def _add_topics(self, query: str, own: dict[int, float], service: dict[int, float]) -> None:
        """Raise the plugins that the query's unknown words talk about (``drizzle`` → rain → the
        weather plugin). Per word and plugin the best of its subject words counts, at ``_TOPIC_WEIGHT``
        of a query word: it picks the service, equally for each of its tools that use the subject, and
        leaves the action to the query's other words. A word the thesaurus knows is taken from there."""
        if _TOPIC_WEIGHT <= 0:
            return  # a zero weight adds nothing, not even tools at no score
        names = _identifier_words(query)
        words = _words(query)
        times = {word for before, word in itertools.pairwise(words) if before in _WHEN_OPENERS}
        for word in dict.fromkeys(words):
            stem = _stem(word)
            if word in _STOP_WORDS or word in _SYNONYMS or stem in self._postings or stem in _NOT_TOPICAL:
                continue
            if word in names or word in times:  # a name's words are no subject, nor "last night" a stay
                continue
            best: dict[int, float] = {}
            for subject in self._topics(word):
                postings = self._postings[subject]
                idf = self._idf(subject, postings)
                for group, saturated in self._service_postings(subject, postings):
                    best[group] = max(best.get(group, 0.0), idf * saturated)
                for index, _ in postings:
                    own.setdefault(index, 0.0)  # a tool that uses the subject ranks as if it matched
            for group, value in best.items():
                service[group] = service.get(group, 0.0) + _TOPIC_WEIGHT * value

    def _topics(self, word: str) -> tuple[str, ...]:
        """The subject stems of ``word`` that some tool of this index uses (cached per index)."""
        cached = self._topic_cache.get(word)
        if cached is None:
            table = _topic_table()
            subjects = table.get(_stem(word), ())
            cached = tuple(stem for stem in subjects if stem in self._postings)
            if len(self._topic_cache) >= _TOPIC_CACHE_SIZE:
                self._topic_cache.clear()
            self._topic_cache[word] = cached
        return cached

    def _changed_by_adding(self, query: str, own: Mapping[int, float]) -> frozenset[int]:
        """The matching update tools of the thing ``query`` adds to ("add an extra night to my hotel
        stay": the hotel reservation's update, not a library's for "add Maria to my address book")."""
        target = _added_to(query)
        if not target:
            return frozenset()
        families, things = self._families, self._things
        return frozenset(index for index in own if families[index] == "update" and things[index] & target)

    def _rank(
        self,
        own: Mapping[int, float],
        service: Mapping[int, float],
        multipliers: Mapping[str, float],
        limit: int,
        changed: Collection[int] = (),
    ) -> list[tuple[int, float]]:
        """The best ``limit`` (tool, score) pairs, best first, ties in catalogue order.

        Only tools that match on their own (a word of the query, or the subject of one) rank: a plugin's
        share raises them, it finds no others (the tools of one plugin may have nothing else in common,
        as an application's own functions)."""
        families, groups = self._families, self._group
        if changed:  # the thing added to: its change rises just above what the query's verb asked for
            top = max(multipliers.values(), default=1.0) * _ADDED_TO_EDGE
            multipliers = {**multipliers, _ADDED_TO: top}
            families = [_ADDED_TO if index in changed else family for index, family in enumerate(families)]
        totals = (
            (index, (value + service.get(groups[index], 0.0)) * multipliers.get(families[index], 1.0))
            for index, value in own.items()
        )
        return heapq.nsmallest(limit, totals, key=lambda item: (-item[1], item[0]))

    def _scores(self, terms: Mapping[str, float]) -> tuple[dict[int, float], dict[int, float]]:
        """BM25 of each matching tool's own text, and of each plugin's: a plugin scores, per term, its
        best tool's match. A matching tool gets ``_SERVICE_SHARE`` of its plugin's score and the rest of
        its own. A word that only one tool's arguments carry ("ozone", in the create tool's schema) says
        which service is meant, not which of its actions."""
        own: dict[int, float] = {}
        service: dict[int, float] = {}
        for term, query_weight in terms.items():
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = self._idf(term, postings)
            weight = query_weight * idf * (1 - _SERVICE_SHARE)
            for index, saturated in postings:
                own[index] = own.get(index, 0.0) + weight * saturated
            shared = query_weight * idf * _SERVICE_SHARE
            for group, saturated in self._service_postings(term, postings):
                service[group] = service.get(group, 0.0) + shared * saturated
        return own, service

    def _within(self, own: Mapping[int, float], plugin: str | None, tag: str | None) -> dict[int, float]:
        """``own`` for the tools of ``plugin`` and ``tag`` only, each of them a candidate: searched within
        one plugin, a request may name no thing at all ("cancel it, plans changed"), and what it asks to
        do still tells the plugin's tools apart. A tool that matches no word ranks below every one that
        does."""
        return {
            index: own.get(index, _UNMATCHED)
            for index in range(len(self._tools))
            if self._admits(index, plugin, tag)
        }

    def _admits(self, index: int, plugin: str | None, tag: str | None) -> bool:
        tool = self._tools[index]
        if plugin and not (tool.plugin == plugin or tool.plugin.startswith(plugin + ".")):
            return False
        return not tag or tag in _tags(tool.definition)


def _multipliers(intent: Mapping[str, float]) -> dict[str, float]:
    """What each action family's tools are multiplied by: the families asked for rise; with no action
    asked, a question about things ("unread emails") wants a lookup."""
    asked = max(intent.values(), default=0.0)
    lookups = _LOOKUP_BONUS if asked < 1.0 else 1.0  # nothing, or a hint, asked
    if asked < _WEAK_CUE and _UNASKED_CREATE > 0:
        # a request that names no action is a lookup first, else most often a new thing (ordered by
        # that, ahead of the tools that change or remove what exists)
        intent = {**intent, "create": max(intent.get("create", 0.0), _UNASKED_CREATE)}
    if any(intent.get(family, 0.0) >= 1.0 for family in _LOOKUP_FAMILIES):
        # a read was asked for: the other reads may well answer it ("show the tickets" → list them)
        intent = {**dict.fromkeys(_LOOKUP_FAMILIES, _RELATED_LOOKUP), **intent}
    multipliers = dict.fromkeys(_LOOKUP_FAMILIES, lookups)
    for family, weight in intent.items():
        multipliers[family] = multipliers.get(family, 1.0) * (1 + _INTENT_BOOST * weight)
    return multipliers


def _tags(definition: ToolDefinition) -> tuple[str, ...]:
    tags = definition.metadata.get("tags")
    return tuple(str(tag) for tag in tags) if isinstance(tags, list | tuple) else ()


class DeferredToolNotFoundError(NoSuchToolError):
    """The model called a deferred tool that no search has found yet."""

    def __init__(self, tool_name: str, *, tool_call_id: str | None = None) -> None:
        ToolCallError.__init__(
            self,
            f"Unknown tool {tool_name!r}: it is not available yet. Call {SEARCH_TOOL_NAME} with words "
            "describing the task to find it; found tools can be called from the next step on.",
            tool_name=tool_name,
            tool_call_id=tool_call_id,
        )
        self.available_tools = None


# --- the search tool --------------------------------------------------------------------------------


def search_tool_description(deferred: Sequence[RegisteredTool]) -> str:
    """What the model reads about ``search_tools``: how many tools it covers and how to ask.

    It depends only on the deferred catalogue, so it stays byte-identical while the catalogue does
    (and the provider's prompt cache holds).
    """
    plugins = sorted({tool.plugin for tool in deferred})
    shown = ", ".join(plugins[:30]) + (", ..." if len(plugins) > 30 else "")
    return (
        f"Search {len(deferred)} more tools that are available but not listed yet. "
        "Call it with a few words describing the task (for example 'create calendar event' or "
        "'convert currency'); optionally give `plugin` to search one plugin's tools. "
        "The matching tools become callable from your next step on. "
        f"Plugins covered: {shown}."
    )


def _search_schema(plugins: Sequence[str]) -> dict[str, Any]:
    plugin_schema: dict[str, Any] = {"type": "string", "description": "Search only this plugin's tools."}
    if plugins:
        plugin_schema["enum"] = list(plugins)
    return {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words describing what the tool should do.", "maxLength": 500},
            "plugin": plugin_schema,
        },
        "required": ["query"],
        "additionalProperties": False,
    }


def build_search_tool(index: ToolIndex, *, max_results: int = 5) -> ToolImplementation:
    """The client-side ``search_tools`` tool over ``index``.

    Its result is JSON: ``{"query": ..., "found": [names], "matches": [{name, title, description}]}``;
    the loop reads ``found`` to offer those tools from the next step on.
    """
    plugins = sorted({tool.plugin for tool in index.tools})

    def search(arguments: Mapping[str, Any]) -> dict[str, Any]:
        query = str(arguments.get("query") or "")
        plugin = arguments.get("plugin")
        matches = index.search(query, limit=max_results, plugin=plugin if isinstance(plugin, str) else None)
        return {
            "query": query,
            "found": [match.name for match in matches],
            "matches": [match.as_dict() for match in matches],
        }

    return function_tool(
        SEARCH_TOOL_NAME,
        search_tool_description(index.tools),
        _search_schema(plugins),
        search,
        title="Search tools",
        metadata={"toolplug": {"tool_search": True}},
    )


# --- what a run found --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ToolSearchRecord:
    """One search in a run: which call asked, what, and which tools it found."""

    call_id: str
    query: str
    found: tuple[str, ...]
    native: bool = False
    """The provider ran the search (its own tool search)."""


def found_by_result(tool_name: str, call_input: Mapping[str, Any], output: Any) -> tuple[str, tuple[str, ...]] | None:
    """(query, found names) when ``tool_name``'s result is a tool search's, else None.

    Reads the client-side ``search_tools`` result and the providers' own search results (Anthropic's
    ``tool_references``, the Responses API's loaded ``tools``).
    """
    if tool_name == SEARCH_TOOL_NAME:
        value = _as_json(output)
        if isinstance(value, Mapping) and isinstance(value.get("found"), list):
            return str(value.get("query", "")), tuple(str(name) for name in value["found"])
        return None
    if tool_name in {name for _, name in NATIVE_SEARCH_TOOLS.values()}:
        value = _as_json(output)
        query = str(call_input.get("query") or call_input.get("pattern") or call_input.get("paths") or "")
        return query, _native_found(value)
    return None


def _native_found(value: Any) -> tuple[str, ...]:
    names: list[str] = []
    if isinstance(value, Mapping):
        for reference in value.get("tool_references") or ():
            if isinstance(reference, Mapping) and reference.get("tool_name"):
                names.append(str(reference["tool_name"]))
        for tool in value.get("tools") or ():
            if isinstance(tool, Mapping) and tool.get("name"):
                names.append(str(tool["name"]))
    return tuple(names)


def _as_json(output: Any) -> Any:
    if isinstance(output, str):
        try:
            return json.loads(output)
        except ValueError:
            return None
    return output


_SEARCH_CACHE: OrderedDict[tuple[Any, ...], tuple[ToolIndex, RegisteredTool]] = OrderedDict()
_SEARCH_CACHE_SIZE = 8


def _cached_search(deferred: tuple[RegisteredTool, ...], max_results: int) -> tuple[ToolIndex, RegisteredTool]:
    """The index and search tool for a set of deferred tools, built once per set (runs of one host
    share them). The cached index holds the tools, so the ids in the key stay theirs."""
    key = (max_results, *((tool.name, tool.plugin, id(tool.definition)) for tool in deferred))
    cached = _SEARCH_CACHE.get(key)
    if cached is not None:
        _SEARCH_CACHE.move_to_end(key)
        return cached
    index = ToolIndex(deferred)
    built = (index, RegisteredTool.from_implementation(build_search_tool(index, max_results=max_results)))
    _SEARCH_CACHE[key] = built
    if len(_SEARCH_CACHE) > _SEARCH_CACHE_SIZE:
        _SEARCH_CACHE.popitem(last=False)
    return built


@dataclass(slots=True)
class ToolSearchState:
    """A run's search: the deferred tools, the index over them, and what was found so far."""

    deferred: dict[str, RegisteredTool]
    """The deferred tools by function name."""
    index: ToolIndex
    search_tool: RegisteredTool
    native: bool = False
    found: list[str] = field(default_factory=list)
    """Names found so far, in the order they were found."""

    @classmethod
    def create(
        cls, deferred: Sequence[RegisteredTool], options: ToolSearchOptions | None, *, native: bool = False
    ) -> ToolSearchState:
        """The state for a run whose ``deferred`` tools are not sent until found."""
        max_results = (options or ToolSearchOptions()).max_results
        index, search_tool = _cached_search(tuple(deferred), max_results)
        return cls({tool.name: tool for tool in deferred}, index, search_tool, native=native)

    def is_hidden(self, name: str) -> bool:
        """True for a deferred tool that no search has found yet (in client-side search)."""
        return not self.native and name in self.deferred and name not in self.found

    def learn(self, names: Iterable[str]) -> None:
        """Mark ``names`` found; unknown names (not deferred here) are ignored."""
        for name in names:
            if name in self.deferred and name not in self.found:
                self.found.append(name)

    def learn_from(self, parts: Iterable[Any]) -> None:
        """Mark found what the searches among ``parts`` (calls and results, in order) found."""
        for record in searches_in(parts):
            self.learn(record.found)

    def learn_from_messages(self, messages: Iterable[Any]) -> None:
        """Mark found what earlier searches of the conversation found (found tools stay found)."""
        self.learn_from(part for message in messages for part in getattr(message, "content", None) or ())


def searches_in(content: Iterable[Any]) -> list[ToolSearchRecord]:
    """Every tool search among ``content`` (the parts of a run's steps): client and provider-native."""
    from toolplug.messages import ToolCallPart, ToolResultPart

    calls: dict[str, Any] = {}
    records: list[ToolSearchRecord] = []
    for part in content:
        if isinstance(part, ToolCallPart):
            calls[part.tool_call_id] = part
        elif isinstance(part, ToolResultPart) and not part.is_error:
            call = calls.get(part.tool_call_id)
            call_input = call.input if call is not None and isinstance(call.input, Mapping) else {}
            found = found_by_result(part.tool_name, call_input, part.output)
            if found is not None:
                records.append(ToolSearchRecord(part.tool_call_id, found[0], found[1], part.provider_executed))
    return records


def native_search_tool(api: str) -> ToolImplementation:
    """The provider-defined search tool of ``api`` (``anthropic`` or ``openai-responses``)."""
    from toolplug.tools import provider_defined_tool

    tool_id, name = NATIVE_SEARCH_TOOLS[api]
    return provider_defined_tool(tool_id, name, title="Tool search")


def prepare_search(
    tools: dict[str, RegisteredTool], options: ToolSearchOptions | None, native_api: str | None
) -> ToolSearchState | None:
    """Set up a run's search over ``tools`` (changed in place), or None when nothing is deferred.

    Client-side: the ``search_tools`` tool joins ``tools`` and deferred tools stay hidden until found.
    Provider-native (``native_api`` set and ``options.native``): the provider's search tool joins, and the
    deferred tools are sent marked ``deferred`` for the provider to search.
    """
    deferred = split_offer(list(tools.values()), options)[1]
    if not deferred:
        return None
    use_native = native_api in NATIVE_SEARCH_TOOLS and (options is None or options.native)
    state = ToolSearchState.create(deferred, options, native=use_native)
    added = (
        RegisteredTool.from_implementation(native_search_tool(native_api or "")) if use_native else state.search_tool
    )
    if added.name in tools:
        raise InvalidArgumentError("tools", f"a tool is called {added.name!r}, the name tool search needs")
    if use_native:
        for tool in deferred:
            if not tool.definition.deferred:
                tools[tool.name] = dataclasses.replace(
                    tool, definition=tool.definition.model_copy(update={"deferred": True})
                )
    tools[added.name] = added
    return state


def offered_names(
    state: ToolSearchState, tools: Mapping[str, RegisteredTool], active: Sequence[str] | None
) -> list[str]:
    """The names to send this step: up-front tools in order, then the search tool, then found tools
    in the order they were found (new ones go last, so the start of the list stays cached)."""
    names = list(tools) if active is None else list(active)
    wanted = set(names)
    search_names = {name for _, name in NATIVE_SEARCH_TOOLS.values()} | {SEARCH_TOOL_NAME}
    upfront = [n for n in names if n not in state.deferred and n not in search_names]
    search = [n for n in tools if n in search_names and (active is None or n in wanted)]
    if state.native:
        deferred = [n for n in names if n in state.deferred]
        return upfront + search + deferred
    found = [n for n in state.found if active is None or n in wanted]
    return upfront + search + found


__all__ = [
    "NATIVE_SEARCH_TOOLS",
    "SEARCH_TOOL_NAME",
    "DeferredToolNotFoundError",
    "SearchMatch",
    "ToolIndex",
    "ToolSearchOptions",
    "ToolSearchRecord",
    "ToolSearchState",
    "build_search_tool",
    "found_by_result",
    "native_search_tool",
    "offered_names",
    "prepare_search",
    "search_tool_description",
    "searches_in",
    "split_offer",
    "tokenize",
]
