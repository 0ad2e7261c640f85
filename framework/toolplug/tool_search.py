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
import itertools
import json
import math
import re
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
_MAX_RESULTS_CAP = 20


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

_WORD = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|[0-9]+|[^\W\d_]+")
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "can",
        "do",
        "does",
        "for",
        "from",
        "get",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "me",
        "my",
        "of",
        "on",
        "or",
        "our",
        "please",
        "show",
        "some",
        "that",
        "the",
        "their",
        "them",
        "this",
        "to",
        "was",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
    ]
)
# Query words that mean one of the catalogue's common verbs; applied to queries only.
_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "add": ("create", "new"),
    "make": ("create", "new"),
    "new": ("create",),
    "start": ("create",),
    "book": ("create", "reservation", "booking"),
    "reserve": ("create", "reservation"),
    "schedule": ("create",),
    "write": ("create",),
    "draft": ("create",),
    "send": ("create", "share"),
    "submit": ("create",),
    "file": ("create",),
    "log": ("create",),
    "record": ("create",),
    "save": ("create",),
    "buy": ("create", "order"),
    "order": ("create",),
    "cancel": ("delete",),
    "remove": ("delete",),
    "revoke": ("delete",),
    "terminate": ("delete",),
    "drop": ("delete",),
    "stop": ("delete",),
    "end": ("delete",),
    "change": ("update",),
    "edit": ("update",),
    "modify": ("update",),
    "set": ("update",),
    "move": ("update",),
    "rename": ("update",),
    "adjust": ("update",),
    "extend": ("update",),
    "turn": ("update",),
    "find": ("search",),
    "look": ("search",),
    "lookup": ("search",),
    "query": ("search",),
    "download": ("export",),
    "total": ("stats", "statistic"),
    "many": ("stats", "total"),
    "average": ("stats", "statistic"),
    "summary": ("stats", "statistic"),
    "give": ("share",),
    "invite": ("share",),
    "access": ("share",),
    "forward": ("share",),
    "show": ("get", "list"),
    "see": ("get", "list"),
    "view": ("get",),
    "display": ("get",),
    "check": ("get",),
    "status": ("get",),
    "detail": ("get",),
    "details": ("get",),
    "track": ("get",),
    "read": ("get",),
    "open": ("get", "create"),
    "which": ("list",),
    "all": ("list",),
    "recent": ("list",),
    "latest": ("list",),
    "upcoming": ("list",),
    "history": ("list",),
    "past": ("list",),
    "results": ("list", "stats"),
    "csv": ("export",),
    "pdf": ("export",),
    "post": ("create",),
    "publish": ("create",),
    "reply": ("create",),
    "remind": ("create", "reminder"),
    "enroll": ("create",),
    "register": ("create",),
    "generate": ("create",),
    "request": ("create",),
    "apply": ("create", "application"),
    "pay": ("update", "payment"),
    "rate": ("stats",),
    "statistics": ("stats",),
    "count": ("stats",),
    "report": ("stats",),
    "house": ("home",),
    "home": ("house",),
    "car": ("driving", "vehicle"),
    "holiday": ("vacation", "leave"),
    "vacation": ("leave", "holiday"),
    "phone": ("mobile", "call"),
    "meeting": ("event",),
    "appointment": ("visit", "booking"),
    "job": ("position",),
    "money": ("transfer", "payment"),
    "disable": ("archive",),
    "pause": ("archive",),
    "close": ("archive",),
    "hide": ("archive",),
}


_DOUBLED_KEEP = frozenset("lsz")
_INVARIANT = frozenset({"news", "series", "species", "analysis", "status", "always"})


def _undouble(stem: str) -> str:
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in _DOUBLED_KEEP:
        return stem[:-1]  # logged -> log, running -> run
    return stem


@functools.lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """A light English stemmer: plurals, -ing, -ed and a final -e, so that grade/grades/graded and
    create/created/creating meet."""
    if len(word) <= 3 or word in _INVARIANT:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "ches", "shes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    elif word.endswith("ing") and len(word) > 5:
        word = _undouble(word[:-3])
    elif word.endswith("ed") and len(word) > 4:
        word = _undouble(word[:-2])
    if word.endswith("e") and len(word) > 4:
        word = word[:-1]
    return word


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def tokenize(text: str) -> list[str]:
    """Lower-case word stems of ``text``: identifiers split at ``_`` and camelCase, stop words dropped,
    then each pair of neighbouring stems as one phrase term (``time off`` → ``time+off``)."""
    stems = [_stem(word) for word in _words(text) if word not in _STOP_WORDS]
    return stems + [f"{first}+{second}" for first, second in itertools.pairwise(stems)]


def _query_terms(query: str) -> Counter[str]:
    words = _words(query)
    terms: Counter[str] = Counter(tokenize(query))
    for first, second in itertools.pairwise(words):
        terms[first + second] += 1  # "on call" also asks for "oncall", "to do" for "todo"
    for word in words:
        for synonym in _SYNONYMS.get(word, ()):
            terms[_stem(synonym)] += _SYNONYM_WEIGHT  # type: ignore[assignment]
    return terms


_READ_VERBS = frozenset(
    _stem(word)
    for word in [
        "list",
        "get",
        "search",
        "find",
        "show",
        "read",
        "fetch",
        "lookup",
        "query",
        "retrieve",
        "view",
        "describe",
        "check",
        "look",
        "count",
    ]
)


def _action_verb(definition: ToolDefinition) -> str:
    """The stemmed first word of the description: tool descriptions open with their verb."""
    words = _words(definition.function.description_for_llm[:80])
    return _stem(words[0]) if words else ""


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


_DETERMINERS = frozenset(
    [
        "a",
        "an",
        "the",
        "my",
        "our",
        "your",
        "this",
        "that",
        "these",
        "those",
        "all",
        "some",
        "me",
        "us",
        "her",
        "him",
        "them",
        "it",
    ]
)


def _asks_for_action(query: str, terms: Mapping[str, float], verbs: frozenset[str]) -> bool:
    """True when the query names a tool verb, or opens as an imperative ("ship a parcel")."""
    if any(term in verbs for term in terms):
        return True
    words = _words(query[:80])
    return len(words) > 1 and words[1] in _DETERMINERS


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
    return [
        (definition.function.name, 3.0),
        (plugin.replace(".", " "), 1.0),
        (definition.title or "", 2.0),
        (definition.function.description_for_llm, 1.0),
        (" ".join(argument_names), 0.5),
        (" ".join(argument_texts), 0.3),
    ]


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
    """BM25 over the name, title, description and argument text of a set of tools."""

    K1 = 1.2
    B = 0.3

    def __init__(self, tools: Iterable[RegisteredTool]) -> None:
        self._tools: list[RegisteredTool] = list(tools)
        self._postings: dict[str, list[tuple[int, float]]] = {}
        self._lengths: list[float] = []
        self._verbs = [_action_verb(tool.definition) for tool in self._tools]
        self._verb_vocabulary = frozenset(self._verbs)
        fields = [
            [(tokenize(text), weight) for text, weight in _definition_fields(tool.definition, tool.plugin)]
            for tool in self._tools
        ]
        # words of the descriptions (field 3), to split identifiers such as "fooddelivery" against
        vocabulary = frozenset(term for tool_fields in fields for term in tool_fields[3][0] if "+" not in term)
        splits: dict[str, list[str]] = {}
        for index, tool_fields in enumerate(fields):
            weights: Counter[str] = Counter()
            length = 0.0
            for tokens, weight in tool_fields:
                terms = _split_compounds(tokens, vocabulary, splits)
                for term in terms:
                    weights[term] += weight  # type: ignore[assignment]
                if weight >= 1.0:  # argument text matches but does not dilute: long schemas are no worse
                    length += weight * len(terms)
            self._lengths.append(length or 1.0)
            for term, weight in weights.items():
                self._postings.setdefault(term, []).append((index, weight))
        self._average = sum(self._lengths) / len(self._lengths) if self._lengths else 1.0

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
        scores: dict[int, float] = {}
        count = len(self._tools)
        terms = _query_terms(query[:_MAX_QUERY_CHARS])
        for term, query_weight in terms.items():
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = math.log(1 + (count - len(postings) + 0.5) / (len(postings) + 0.5))
            for index, weight in postings:
                norm = self.K1 * (1 - self.B + self.B * self._lengths[index] / self._average)
                scores[index] = scores.get(index, 0.0) + query_weight * idf * weight * (self.K1 + 1) / (weight + norm)
        if not _asks_for_action(query, terms, self._verb_vocabulary):
            # No action asked for: a question about things ("unread emails") wants a lookup.
            for index in scores:
                if self._verbs[index] in _READ_VERBS:
                    scores[index] *= _LOOKUP_BONUS
        ranked = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        matches: list[SearchMatch] = []
        for index, score in ranked:
            tool = self._tools[index]
            if plugin and not (tool.plugin == plugin or tool.plugin.startswith(plugin + ".")):
                continue
            if tag and tag not in _tags(tool.definition):
                continue
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
            if len(matches) >= limit:
                break
        return matches


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
