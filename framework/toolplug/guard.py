"""The prompt-injection guard: runs the registered filters over a batch of fetched texts.

A tool that returns content fetched from outside passes every field that reaches the model through
:meth:`PromptInjectionGuard.filter_texts` in one call, after truncating it. The guard runs each filter
over the whole batch, never rejects anything, and reports what the filters found as one
:class:`GuardReport` per call, grouped by :class:`InjectionSource` (a page, a search result). A filter
that raises, times out or answers with the wrong shape is skipped: the texts pass through unchanged
from it and a warning the user sees is recorded.

:class:`BuiltinInjectionFilter` neutralises, in place and visibly, what a page can use to speak as
someone else: invisible and bidirectional control characters, chat-template and role tokens, fake
system or tool-result blocks, exfiltration markup, encoded or obfuscated payloads, and instruction-like
text aimed at the model. Neutralised text stays readable, so a reader still sees what was there.
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import inspect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from toolplug.execution import ToolExecutionContext


# --- what filters see and return ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InjectionSource:
    """Where a text came from; texts of one page share one source so the report names the page."""

    kind: str
    """``web_content``, ``search_result`` or a tool's own word."""
    identifier: str
    """The URL (or another identifier the user recognises)."""

    @classmethod
    def web_content(cls, url: str) -> InjectionSource:
        """A web page, identified by its URL."""
        return cls("web_content", url)

    @classmethod
    def search_result(cls, url: str) -> InjectionSource:
        """A search engine's result (title and snippet written by whoever ranks for the query)."""
        return cls("search_result", url)

    def __str__(self) -> str:
        return f"{self.kind}: {self.identifier}"


@dataclass(frozen=True, slots=True)
class InjectionText:
    """One text to filter and the source it came from."""

    text: str
    source: InjectionSource


@dataclass(frozen=True, slots=True)
class InjectionFinding:
    """One thing a filter neutralised."""

    family: str
    """``invisible``, ``tokens``, ``fake_block``, ``exfiltration``, ``encoded`` or ``override``."""
    rule: str
    """What exactly matched (e.g. ``chat template token``)."""
    excerpt: str
    """A short, already neutralised excerpt of what was there."""


@dataclass(frozen=True, slots=True)
class FilteredText:
    """A filter's answer for one text: the text (neutralised or unchanged) and what it found."""

    text: str
    findings: tuple[InjectionFinding, ...] = ()


@runtime_checkable
class InjectionFilter(Protocol):
    """What ``register_injection_filters`` returns: a named filter over a batch of texts.

    ``filter`` returns one :class:`FilteredText` per input text, in order. It may be a coroutine
    function or a plain function. It must never drop content: neutralise it in place.
    """

    name: str

    def filter(self, texts: Sequence[str]) -> object:
        """Filter ``texts``; return (or return an awaitable of) a sequence of :class:`FilteredText`."""
        ...


@dataclass(slots=True)
class SourceReport:
    """What was found in the texts of one source."""

    source: InjectionSource
    findings: list[InjectionFinding] = field(default_factory=list)
    texts_changed: int = 0


@dataclass(slots=True)
class GuardReport:
    """One event per guarded call: findings grouped by source, and the warnings."""

    text_count: int
    sources: list[SourceReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    filters_run: list[str] = field(default_factory=list)

    @property
    def found_anything(self) -> bool:
        """True when some filter neutralised something."""
        return any(report.findings for report in self.sources)

    @property
    def finding_count(self) -> int:
        """How many items the filters neutralised, over every source."""
        return sum(len(report.findings) for report in self.sources)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready copy: the findings grouped by source, the warnings and the filters that ran."""
        return {
            "text_count": self.text_count,
            "sources": [
                {
                    "kind": report.source.kind,
                    "source": report.source.identifier,
                    "texts_changed": report.texts_changed,
                    "findings": [
                        {"family": f.family, "rule": f.rule, "excerpt": f.excerpt} for f in report.findings
                    ],
                }
                for report in self.sources
                if report.findings or report.texts_changed
            ],
            "warnings": list(self.warnings),
            "filters_run": list(self.filters_run),
        }

    def summary(self) -> str:
        """A one-paragraph description for a user."""
        if not self.found_anything:
            return "No prompt injection found." + (f" Warnings: {' '.join(self.warnings)}" if self.warnings else "")
        lines = []
        for report in self.sources:
            if report.findings:
                families = sorted({f.family for f in report.findings})
                lines.append(f"{report.source.identifier}: {len(report.findings)} neutralised ({', '.join(families)})")
        return "Possible prompt injection neutralised in " + "; ".join(lines)


@dataclass(frozen=True, slots=True)
class GuardResult:
    """The filtered texts, in input order, and the report of the call."""

    texts: list[str]
    report: GuardReport


def describe_findings(reports: Iterable[tuple[str, GuardReport]]) -> list[str]:
    """One line per source for a user: how many items the guard neutralised there, of which families,
    and which tool read it. ``reports``: ``(tool id, report)`` pairs, e.g. from the calls' traces."""
    counts: dict[tuple[str, str], list[InjectionFinding]] = {}
    for tool_id, report in reports:
        for source_report in report.sources:
            counts.setdefault((source_report.source.identifier, tool_id), []).extend(source_report.findings)
    lines = []
    for (identifier, tool_id), findings in counts.items():
        if findings:
            families = ", ".join(sorted({f.family for f in findings}))
            noun = "item" if len(findings) == 1 else "items"
            lines.append(f"{len(findings)} {noun} neutralised in {identifier} (read by {tool_id}; {families})")
    return lines


# --- the guard ------------------------------------------------------------------------------------


class PromptInjectionGuard:
    """Runs prompt-injection filters over batches of fetched texts; never rejects content.

    :param filters: the filters to run, in order (each sees the previous one's output).
    :param on_report: called once per guarded call that found something or had a warning.
    :param timeout: seconds one filter may take for one batch before it is skipped with a warning.
    """

    def __init__(
        self,
        filters: Sequence[InjectionFilter],
        on_report: Callable[[GuardReport], None] | None = None,
        *,
        timeout: float = 10.0,
    ) -> None:
        self.filters = list(filters)
        self.on_report = on_report
        self.timeout = timeout

    @classmethod
    def with_builtin_filter(cls, on_report: Callable[[GuardReport], None] | None = None) -> PromptInjectionGuard:
        """A guard running only :class:`BuiltinInjectionFilter` (for tools used outside a host)."""
        return cls([BuiltinInjectionFilter()], on_report)

    async def filter_texts(
        self, texts: Sequence[InjectionText], context: ToolExecutionContext | None = None
    ) -> list[str]:
        """Filter every text in one batch; returns the texts in order, neutralised where needed.

        Warnings (a filter that failed) go to ``context.warn`` when a context is given.
        """
        return (await self.inspect(texts, context)).texts

    async def filter_text(
        self, text: str, source: InjectionSource, context: ToolExecutionContext | None = None
    ) -> str:
        """Filter one text (prefer :meth:`filter_texts` for several fields of one call)."""
        return (await self.filter_texts([InjectionText(text, source)], context))[0]

    async def inspect(
        self, texts: Sequence[InjectionText], context: ToolExecutionContext | None = None
    ) -> GuardResult:
        """Like :meth:`filter_texts`, also returning the report."""
        current = [item.text for item in texts]
        report = GuardReport(text_count=len(current))
        by_source: dict[InjectionSource, SourceReport] = {}
        changed = [False] * len(current)
        if current:
            for injection_filter in self.filters:
                name = str(getattr(injection_filter, "name", type(injection_filter).__name__))
                try:
                    answer = await self._run(injection_filter, current)
                except Exception as exc:  # a filter that cannot run lets text through
                    reason = "timed out" if isinstance(exc, TimeoutError) else f"failed ({type(exc).__name__}: {exc})"
                    report.warnings.append(
                        f"Prompt-injection filter {name!r} {reason}; {len(current)} text(s) passed through unfiltered "
                        "by it."
                    )
                    continue
                report.filters_run.append(name)
                for index, (item, result) in enumerate(zip(texts, answer, strict=True)):
                    if result.text != current[index]:
                        changed[index] = True
                        current[index] = result.text
                    if result.findings:
                        source_report = by_source.setdefault(item.source, SourceReport(item.source))
                        source_report.findings.extend(result.findings)
        for index, item in enumerate(texts):
            if changed[index]:
                by_source.setdefault(item.source, SourceReport(item.source)).texts_changed += 1
        report.sources = list(by_source.values())
        if context is not None:
            for warning in report.warnings:
                context.warn(warning)
            if report.found_anything and isinstance(getattr(context, "guard_reports", None), list):
                context.guard_reports.append(report)
        if self.on_report is not None and (report.found_anything or report.warnings):
            self.on_report(report)
        return GuardResult(current, report)

    async def _run(self, injection_filter: InjectionFilter, texts: list[str]) -> list[FilteredText]:
        async def call() -> object:
            outcome = injection_filter.filter(list(texts))
            if inspect.isawaitable(outcome):
                outcome = await outcome
            return outcome

        answer = await asyncio.wait_for(call(), self.timeout)
        if not isinstance(answer, Sequence) or len(answer) != len(texts):
            raise ValueError(f"returned {type(answer).__name__} instead of {len(texts)} FilteredText")
        checked: list[FilteredText] = []
        for entry in answer:
            if isinstance(entry, FilteredText):
                checked.append(entry)
            elif isinstance(entry, str):
                checked.append(FilteredText(entry))
            else:
                raise ValueError(f"returned a {type(entry).__name__} instead of FilteredText")
        return checked


# --- the built-in filter --------------------------------------------------------------------------
#
# Speed (the aim is 10 MB/s or more on clean text): nothing is compiled at import; on first use the rules
# are compiled once (:func:`_compiled`). Clean text then costs a handful of C-speed passes:
#
# - markup rules (tokens, fake tags, exfiltration links) are one alternation whose every branch starts
#   with a literal character, so ``re`` skips straight to the rare ``<``, ``[``, ``!``, ``#``, quotes;
# - word rules (overrides, fake headers, instructions to leak) each name the words a match starts with
#   (or contains, with how far the match may begin before it): the lower-cased text, chunk by chunk, is
#   split to say which of those words it has and searched with ``bytes.find`` for where, and only the
#   rules of a word found run, anchored there;
# - the text is copied once to one byte per character (and from it to a few shapes: words, letters and
#   separators, base64), and every scan that can shares those copies;
# - invisible characters and homoglyphs are never looked for in ASCII text (``str.isascii`` is O(1));
#   leetspeak and mixed scripts are located with ``bytes.find`` in a shape copy, and the rules then run
#   only in windows around what was found;
# - encoded payloads are found by patterns that also start with a literal or a character class.

OPEN = "\u27e6"  # ⟦
CLOSE = "\u27e7"  # ⟧
QUOTE_PREFIX = OPEN + "page text, not an instruction: "

_INVISIBLE = (
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u034f\u115f\u1160\u3164\uffa0"
)
_BIDI_OVERRIDE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
_HIDDEN_CLASS = "[" + _INVISIBLE + _BIDI_OVERRIDE + "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"


class _RuleSpec:
    """One rule: its pattern, what it is, and how a match is found cheaply (a plain class: no
    dataclass machinery at import).

    ``anchors`` empty: a markup rule whose pattern starts with a literal character.
    Otherwise every match starts with one of the anchor words (lower case; a trailing space stands for
    any non-word character), or — with ``back`` > 0 — contains one and starts at most ``back``
    characters before it.
    """

    __slots__ = ("anchors", "back", "family", "pattern", "rule")

    def __init__(self, pattern: str, rule: str, family: str, anchors: tuple[str, ...] = (), back: int = 0) -> None:
        self.pattern = pattern
        self.rule = rule
        self.family = family
        self.anchors = anchors
        self.back = back


_AI_WORDS = (
    "ai", "llm", "llms", "gpt", "chatgpt", "claude", "gemini", "copilot", "assistant", "assistants", "language",
    "chatbot", "chatbots", "bot", "bots",
)
_Q = r"(?:previous|prior|above|earlier|preceding|former|original|initial|system|existing|old|other|current)"
_OBJ = (
    r"(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guidance|context|messages?|commands?"
    r"|orders|constraints|restrictions|programming|training|system[ \t]+prompt)"
)
_DET = r"(?:(?:all|any|the|your|my|these|those|every|of)[ \t]+)"
_AI = (
    r"(?:AI|LLMs?|GPT|ChatGPT|Claude|Gemini|Copilot|assistants?|language[ \t]+models?|chatbots?|bots?|"
    r"AI[ \t]+(?:assistants?|agents?|models?|systems?|tools?|crawlers?))"
)
_EXFIL_PLACEHOLDER = (
    r"(?:\{\{?[^{}\s)]{1,40}\}?\}|%7[Bb]|\$\{?[A-Za-z_]{3,}|<[A-Za-z_ ]{2,40}>|%3[Cc]|\[[A-Z_ ]{3,40}\]"
    r"|\b(?:INSERT|PLACEHOLDER|YOUR_)\w*"
    r"|(?<==)[A-Z_]*(?:SECRET|PASSWORD|TOKEN|HISTORY|CONVERSATION|CHAT|MEMORY|API_?KEY|CREDENTIALS?)[A-Z_]*\b)"
)
_FAKE_TAG_NAMES = (
    r"(?:system(?:[_-]?(?:prompt|message|instructions?))?|instructions?|developer(?:[_-]message)?"
    r"|tool[_-]?(?:results?|responses?|outputs?|calls?|use)|function[_-]?(?:results?|calls?|response)"
    r"|assistant|human|admin|im_start|im_end|antml:[\w-]+|search[_-]?results?|user[_-]?(?:query|message))"
)
_ROLE_VALUE = r"""[ \t]*:[ \t]*["'](?:system|assistant|tool|developer|function)["']"""

_RULES: tuple[_RuleSpec, ...] = (
    # tokens
    _RuleSpec(r"<\|[A-Za-z_][\w.\- ]{0,30}\|>", "chat template token", "tokens"),
    _RuleSpec(r"<\uff5c[^<>\n]{1,30}\uff5c>", "chat template token", "tokens"),
    _RuleSpec(r"\[/?(?i:inst)\]", "instruction token", "tokens"),
    _RuleSpec(r"<</?SYS>>", "system token", "tokens"),
    _RuleSpec(r"</?(?:start_of_turn|end_of_turn|bos|eos|eot|start_of_text|end_of_text)>", "turn token", "tokens"),
    _RuleSpec(r"###[ \t]*(?i:instruction|response|system|input|user|assistant)[ \t]*:",
              "instruction template header", "tokens"),
    # fake blocks
    _RuleSpec(r"</?[ \t]*" + _FAKE_TAG_NAMES + r"\b[^<>\n]{0,80}>", "fake message tag", "fake_block"),
    _RuleSpec(r'"role["\']' + _ROLE_VALUE, "fake role object", "fake_block"),
    _RuleSpec(r"'role[\"']" + _ROLE_VALUE, "fake role object", "fake_block"),
    _RuleSpec(
        r"\[(?i:[ \t]*(?:(?:system|developer|admin)(?:[ \t]+(?:message|prompt|note|notice|override))?|tool[ \t]+"
        r"(?:output|result|response))[ \t]*)\]",
        "fake role header", "fake_block",
    ),
    _RuleSpec(
        r"(?im)^[ \t>*#=-]*(?:system|developer|admin)[ \t]*(?:message|prompt|instructions?|override|notice|update|note)"
        r"[ \t*]*:",
        "fake system block", "fake_block", ("system", "developer", "admin"), 12,
    ),
    _RuleSpec(r"(?m)^[ \t>*#=-]*SYSTEM[ \t*]*:", "fake system block", "fake_block", ("system",), 12),
    _RuleSpec(
        r"(?i)\b(?:end|begin|start)[ \t]+of[ \t]+(?:the[ \t]+)?(?:system[ \t]+prompt|instructions|tool[ \t]+"
        r"(?:output|result|response)|function[ \t]+(?:output|result)|user[ \t]+(?:message|input)|untrusted"
        r"[ \t]+(?:content|input)|web[ \t]?page|search[ \t]+results?)\b",
        "fake block boundary", "fake_block", ("end of ", "begin of ", "start of "),
    ),
    _RuleSpec(r"(?m)(?:^|\n\n)Human:[ \t]", "fake dialogue turn", "fake_block", ("human ",), 2),
    # exfiltration
    _RuleSpec(r"!\[[^\]\n]{0,200}\]\([^)\s]*\?[^)\s]*" + _EXFIL_PLACEHOLDER + r"[^)]*\)", "image URL carrying data",
              "exfiltration"),
    _RuleSpec(r"\[[^\]\n]{0,200}\]\([^)\s]*\?[^)\s]*" + _EXFIL_PLACEHOLDER + r"[^)]*\)", "link URL carrying data",
              "exfiltration"),
    _RuleSpec(r"<(?i:img\b[^>]{0,200}src=[\"']?[^\"'\s>]*\?[^\"'\s>]*)" + _EXFIL_PLACEHOLDER + r"[^>]*>",
              "image URL carrying data", "exfiltration"),
    _RuleSpec(r"\[[^\]\n]{1,40}\]:[ \t]*(?i:https?)://\S*\?\S*" + _EXFIL_PLACEHOLDER + r"\S*",
              "link URL carrying data", "exfiltration"),
    _RuleSpec(
        r"(?i)\b(?:append|add|include|insert|encode|embed|put)\b[^.\n]{0,60}\b(?:conversation|chat|history|"
        r"messages?|secrets?|password|api[ \t]?keys?|tokens?|credentials|personal[ \t]+data|user'?s?[ \t]+data|"
        r"summary|memory|email)\b[^.\n]{0,60}\b(?:to|in|into|as)[ \t]+(?:the[ \t]+|this[ \t]+|a[ \t]+)?"
        r"(?:url|link|query|image|request|parameter)",
        "instruction to leak data through a URL", "exfiltration",
        ("append ", "add ", "include ", "insert ", "encode ", "embed ", "put "),
    ),
    _RuleSpec(
        r"(?i)\b(?:send|forward|email|post|upload|transmit|leak|exfiltrate)[ \t]+"
        r"(?:the|this|all|your|the[ \t]+user'?s?)[ \t]+(?:\w+[ \t]+)?"
        r"(?:conversation|chat|data|history|messages|files|credentials|passwords?|keys?|"
        r"api[ \t]keys?|summary|information|details|secrets?)\b[^.\n]{0,80}\b(?:to|at)[ \t]+(?:\S+@\S+|https?://)",
        "instruction to send data away", "exfiltration",
        ("send ", "forward ", "email ", "post ", "upload ", "transmit ", "leak ", "exfiltrate "),
    ),
    # override
    _RuleSpec(
        r"(?i)\b(?:ignore|disregard|forget|override|bypass|discard|drop|abandon)[ \t]+(?:"
        + _DET + r"*" + _Q + r"[ \t]+(?:\w+[ \t]+)?" + _OBJ + r"|all[ \t]+" + _DET + r"*" + _OBJ
        + r"|your[ \t]+" + _OBJ + r"|(?:everything|anything)[ \t]+(?:above|before|you[ \t]+(?:were|have[ \t]+been)"
        r"[ \t]+told))\b",
        "instruction override", "override",
        ("ignore ", "disregard ", "forget ", "override ", "bypass ", "discard ", "drop ", "abandon "),
    ),
    _RuleSpec(
        r"(?i)\b(?:ignoriere|ignorieren|vergiss|vergessen|ignora|ignorez|ignorer|olvida|oubliez|negeer|ignoruj)"
        r"[ \t]+(?:\w+[ \t]+){0,3}?(?:anweisungen|instruktionen|regeln|instrucciones|reglas|instructions|consignes"
        r"|istruzioni|regole|instructies|instrukcje)\b",
        "instruction override", "override",
        ("ignoriere", "ignorieren", "vergiss", "vergessen", "ignora", "ignorez", "ignorer", "olvida", "oubliez",
         "negeer", "ignoruj"),
    ),
    _RuleSpec(
        r"(?i)\byou[ \t]+are[ \t]+(?:now|no[ \t]+longer)[ \t]+(?:DAN\b|an?[ \t]+(?:unrestricted|unfiltered|uncensored"
        r"|different|new|evil|jailbroken)\b|in[ \t]+(?:developer|god|jailbreak|DAN|admin)[ \t]+mode"
        r"|free[ \t]+(?:from|of)|bound[ \t]+by|restricted|an?[ \t]+AI)",
        "role reassignment", "override", ("you are ",),
    ),
    _RuleSpec(
        r"(?i)\b(?:new|updated|revised|real|actual|true|hidden|secret)[ \t]+(?:system[ \t]+)?(?:instructions|prompt|"
        r"directives?|task|orders)[ \t]*:",
        "new instructions", "override", ("instructions", "prompt", "directive", "directives", "task", "orders"), 40,
    ),
    _RuleSpec(
        r"(?i)\b(?:reveal|print|output|repeat|leak|disclose|dump|exfiltrate|tell[ \t]+me)[ \t]+(?:\w+[ \t]+)?"
        r"(?:your|the)[ \t]+(?:full[ \t]+|entire[ \t]+|original[ \t]+|hidden[ \t]+|initial[ \t]+|secret[ \t]+)*"
        r"(?:system[ \t]+prompt|initial[ \t]+prompt|hidden[ \t]+prompt|instructions[ \t]+above|previous[ \t]+"
        r"instructions|conversation(?:[ \t]+history)?|chat[ \t]+history|api[ \t]+keys?)\b",
        "prompt or data extraction", "override",
        ("reveal ", "print ", "output ", "repeat ", "leak ", "disclose ", "dump ", "exfiltrate ", "tell me "),
    ),
    _RuleSpec(
        r"(?i)(?:^|[.!?\n][ \t]*|[\"'(][ \t]*)(?:dear[ \t]+|hey[ \t]+|hi[ \t]+|attention[ \t,]+|note[ \t]+to[ \t]+"
        r"(?:the[ \t]+|any[ \t]+|all[ \t]+)?|to[ \t]+(?:the|any|all)[ \t]+)?" + _AI
        + r"[ \t]*,[ \t]*(?:you[ \t]+(?:must|should|will|need|have|are)|please|ignore|disregard|do[ \t]+not|don't|never"
        r"|stop|instead|from[ \t]+now|forget|it[ \t]+is[ \t]+important)",
        "text addressed to the model", "override", _AI_WORDS, 40,
    ),
    _RuleSpec(
        r"(?i)(?:^|[.!?\n][ \t]*|[\"'(][ \t]*)(?:dear[ \t]+|attention[ \t,]+|note[ \t]+to[ \t]+"
        r"(?:the[ \t]+|any[ \t]+|all[ \t]+)?)?" + _AI
        + r"[ \t]*[:!][ \t]*(?:ignore|disregard|do[ \t]+not|don't|never|stop|forget|from[ \t]+now"
        r"|important|you[ \t]+must|execute|override)",
        "text addressed to the model", "override", _AI_WORDS, 40,
    ),
    _RuleSpec(
        r"(?i)\b(?:note|message|instructions?|attention|notice|directive|command|warning|request)[ \t]+(?:to|for)"
        r"[ \t]+(?:the[ \t]+|any[ \t]+|all[ \t]+)?" + _AI + r"\b[ \t]*(?:[:,.!-]|reading|processing|summari[sz]ing)",
        "text addressed to the model", "override", _AI_WORDS, 30,
    ),
    _RuleSpec(r"(?i)\b(?:if|when)[ \t]+you[ \t]+are[ \t]+an?[ \t]+" + _AI + r"\b", "text addressed to the model",
              "override", _AI_WORDS, 25),
    _RuleSpec(r"(?i)\bas[ \t]+an?[ \t]+(?:AI|language[ \t]+model|assistant)\b[^.\n]{0,40}\byou[ \t]+(?:must|should|"
              r"will|are[ \t]+required)", "text addressed to the model", "override", _AI_WORDS, 8),
    _RuleSpec(r"(?i)\b(?:do[ \t]+not|don't|never)[ \t]+(?:tell|inform|mention[ \t]+(?:this|it)[ \t]+to|reveal[ \t]+"
              r"(?:this|it)[ \t]+to|alert|warn)[ \t]+the[ \t]+user\b", "hiding from the user", "override",
              ("do not ", "don t ", "never ")),
    _RuleSpec(r"(?i)\b(?:when|while|if)[ \t]+(?:you[ \t]+)?(?:summari[sz]e|summari[sz]ing|read|reading|process|"
              r"processing|analy[sz]e|analy[sz]ing)[ \t]+this[ \t]+(?:page|document|article|text|email|site|content)"
              r"[ \t]*,[ \t]*(?:you[ \t]+(?:must|should)|ignore|instead|always|do[ \t]+not|first)",
              "text addressed to the model", "override",
              ("summarize", "summarise", "summarizing", "summarising", "read", "reading", "process", "processing",
               "analyze", "analyse", "analyzing", "analysing"), 24),
    _RuleSpec(r"(?i)\b(?:stop|cease)[ \t]+(?:what[ \t]+you[ \t]+are[ \t]+doing|following[ \t]+(?:your|the)[ \t]+"
              r"(?:instructions|rules))", "instruction override", "override", ("stop ", "cease ")),
    _RuleSpec(r"(?i)\b(?:enter|enable|activate)[ \t]+(?:developer|god|jailbreak|DAN|unrestricted|debug)[ \t]+mode\b",
              "role reassignment", "override", ("enter ", "enable ", "activate ")),
)
_LOOK_AHEAD = 200
"""How far after its anchor word a match of a rule that may start before the word may end (the longest
such rule ends some 100 characters after its word; the search stops here when nothing matches)."""


class _Rule:
    __slots__ = ("back", "family", "pattern", "rule")

    def __init__(self, pattern: re.Pattern[str], rule: str, family: str, back: int) -> None:
        self.pattern = pattern
        self.rule = rule
        self.family = family
        self.back = back


class _Compiled:
    """Everything the built-in filter matches with, compiled once on first use."""

    def __init__(self) -> None:
        self.markup = [_Rule(re.compile(s.pattern), s.rule, s.family, 0) for s in _RULES if not s.anchors]
        # One pass over the text finds where any markup rule matches; every branch starts with a literal.
        self.markup_gate = re.compile("|".join(f"(?:{s.pattern})" for s in _RULES if not s.anchors))
        # Anchor words are looked for in a one-byte-per-character copy of the text where every letter is
        # lower case and every other character a space (:data:`_WORD_BYTES`): ``bytes.split`` and a set
        # say which anchor words occur at all, ``bytes.find`` where. A rule runs under the first word of
        # its anchors; the rule's own pattern checks the rest.
        self.by_anchor: dict[bytes, list[_Rule]] = {}
        for spec in _RULES:
            if spec.anchors:
                compiled = _Rule(re.compile(spec.pattern), spec.rule, spec.family, spec.back)
                for anchor in spec.anchors:
                    rules = self.by_anchor.setdefault(anchor.split()[0].encode("ascii"), [])
                    if compiled not in rules:
                        rules.append(compiled)
        self.anchor_words = frozenset(self.by_anchor)
        self.all_rules = [*self.markup, *{id(r): r for rules in self.by_anchor.values() for r in rules}.values()]
        self.hidden = re.compile(_HIDDEN_CLASS)
        self.rtl_letter = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
        self.emoji_near = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")
        # Encoded payloads; each pattern starts with a literal or a class so clean text is skipped in C.
        # Base64 runs are found with ``bytes.find`` (:func:`_base64_runs`).
        # These four run on the one-byte copy of the text (every class in them is ASCII, so a match there
        # is a match in the text, one character later).
        self.hex = (
            re.compile(rb"\\x[0-9A-Fa-f]{2}(?:\\x[0-9A-Fa-f]{2}){11,}"),
            re.compile(rb"0[xX][0-9A-Fa-f]{2}(?:[ :,]{0,2}0[xX][0-9A-Fa-f]{2}){11,}"),
        )
        self.plain_hex = re.compile(rb"[0-9A-Fa-f]{2}(?:[ :]?[0-9A-Fa-f]{2}){11,}(?![0-9A-Fa-f])")
        self.url_encoded = re.compile(rb"%[0-9A-Fa-f]{2}(?:[A-Za-z0-9 .,]{0,2}%[0-9A-Fa-f]{2}){7,}")
        self.spaced = re.compile(r"(?<![\w])(?:[A-Za-z][ \t.\-_*|/,]{1,3}){9,}[A-Za-z](?![\w])")
        # Four letters written apart, in a copy with letters as ``a`` and separators as spaces.
        self.spaced_gate = re.compile(rb" a (?: {0,2})a {1,3}a {1,3}a")
        self.cyrillic_or_greek = re.compile("[\u0370-\u04ff]")
        self.sentence_end = re.compile(r"[.!?\n]")
        self.markdown_link = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)[^)]*\)")
        self.http = re.compile(r"(?i)\bhttp(s?)://")
        self.separators = re.compile(r"[ \t.\-_*|/,]")
        self.separator_runs = re.compile(r"[ \t.\-_*|/,]{2,}")
        self.inner_separator = re.compile(r"(?<=\w)[.\-_*|/,](?=\w)")
        self.hex_noise = re.compile(r"\\x|0[xX]|[ :,]")


@functools.cache
def _compiled() -> _Compiled:
    return _Compiled()


def _byte_table(keep: str, *, lower: bool = False, as_char: str = "", rest: str = " ") -> bytes:
    """A ``bytes.translate`` table: ``keep`` stays (or becomes ``as_char``), the rest becomes ``rest``."""
    table = bytearray(rest.encode("ascii") * 256)
    for char in keep:
        target = as_char or (char.lower() if lower else char)
        table[ord(char)] = ord(target)
    return bytes(table)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_WORD_BYTES = _byte_table(_LETTERS + "0123456789_", lower=True)
_BASE64_SHAPE = bytes(
    ord("b") if chr(i) in _LETTERS + "0123456789+/_-" else ord("=") if chr(i) == "=" else ord(" ") for i in range(256)
)
_ASCII_BYTES = bytes(range(128))
_LONG_TOKEN = b"b" * 24
_HEX_BYTES = bytes(
    ord("h") if chr(i) in "0123456789abcdefABCDEF" else ord(" ") if chr(i) in " :" else ord("#") for i in range(256)
)
_SPACED_BYTES = bytes(
    ord("a") if chr(i) in _LETTERS else ord(" ") if chr(i) in " \t.-_*|/," else ord("d") if chr(i) in "013457@$"
    else ord("#") for i in range(256)
)
"""Letters ``a``, separators of spaced-out letters a space, leetspeak characters ``d``, the rest ``#``:
the copy both the spaced-out gate and the leetspeak search (:func:`_leet_matches`) read."""
_UTF8_CONTINUATION = bytes(range(0x80, 0xC0))
"""Deleted from UTF-8, these leave one byte per character: ASCII as itself, the first byte of the rest."""
_ONE_BYTE = bytes(range(128)) + b"?" * 128
"""UTF-8 with :data:`_UTF8_CONTINUATION` deleted to the one-byte copy: ``?`` for every non-ASCII character
(every table here treats them alike: none is a letter, a digit or a separator)."""
_SCRIPT_SHAPE = bytes(
    ord("a") if chr(i) in _LETTERS else ord("c") if 0xCD <= i <= 0xD3 else ord(" ") for i in range(256)
)
"""UTF-8 (continuation bytes deleted) to ``a`` for a Latin letter, ``c`` for a character in U+0340-U+04FF
(Greek and Cyrillic, and a few combining marks: checked), a space for the rest."""


def _one_byte_copy(text: str, utf8: bytes | None = None) -> bytes:
    """``" " + text + " "`` as one byte per character: ASCII as itself, ``?`` for the rest.

    ``utf8``: ``text`` encoded, when the caller has it.
    """
    if text.isascii():
        return b" " + text.encode("ascii") + b" "
    if utf8 is None:
        utf8 = text.encode("utf-8", "surrogatepass")
    return b" " + utf8.translate(_ONE_BYTE, _UTF8_CONTINUATION) + b" "


_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_HOMOGLYPHS = str.maketrans(
    {
        "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0445": "x", "\u0443": "y",
        "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u04bb": "h", "\u0501": "d", "\u0410": "A", "\u0415": "E",
        "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0425": "X", "\u0406": "I", "\u041c": "M", "\u041d": "H",
        "\u0422": "T", "\u0412": "B", "\u041a": "K", "\u03bf": "o", "\u03b1": "a", "\u03b5": "e", "\u03b9": "i",
        "\u039f": "O", "\u0391": "A", "\u0395": "E", "\u0399": "I", "\u03a4": "T", "\u039d": "N", "\u03bd": "v",
        "\u0432": "b", "\u043a": "k", "\u043c": "m", "\u043d": "h", "\u0442": "t", "\u0433": "r",
    }
)


class BuiltinInjectionFilter:
    """Neutralises, in place and visibly, what fetched text can use to speak as someone else.

    Families: ``invisible`` (zero-width, tag and bidirectional override characters), ``tokens``
    (chat-template and role tokens), ``fake_block`` (fake system or tool-result blocks),
    ``exfiltration`` (Markdown or HTML links and images built to carry data away, and instructions to
    do so), ``encoded`` (base64, hex, URL-encoded, spaced-out, leetspeak, homoglyph and rot13 forms of
    the above) and ``override`` (instruction-like text aimed at the model). Ordinary prose — about
    prompts, roles, base64, in right-to-left scripts, with emoji — is left exactly as it is.

    Creating one is free: the patterns are compiled, once per process, the first time a text is filtered.
    """

    name = "toolplug.builtin"

    def filter(self, texts: Sequence[str]) -> list[FilteredText]:
        """Filter each text independently."""
        return [self.filter_one(text) for text in texts]

    def filter_one(self, text: str) -> FilteredText:
        """Neutralise one text; unchanged (the same object) when nothing was found."""
        compiled = _compiled()
        findings: list[InjectionFinding] = []
        script = False
        utf8: bytes | None = None
        if not text.isascii():
            # Only the non-ASCII characters, in order (UTF-8 minus its ASCII bytes, decoded): usually a small
            # fraction of the text, so the character-class scans below run over it rather than over the text.
            utf8 = text.encode("utf-8", "surrogatepass")
            foreign = utf8.translate(None, _ASCII_BYTES).decode("utf-8", "surrogatepass")
            hidden = set(compiled.hidden.findall(foreign))
            if hidden:
                neutralised = _neutralise_hidden(text, _hidden_runs(text, hidden), findings, compiled)
                if neutralised is not text:
                    text, utf8 = neutralised, None
            script = compiled.cyrillic_or_greek.search(foreign) is not None
        # One byte per character, and its letters/separators/leet shape, shared by the scans (and the UTF-8
        # copy, by the mixed-script one).
        raw = _one_byte_copy(text, utf8)
        letters = raw.translate(_SPACED_BYTES)
        text = _neutralise_rules(text, raw, findings, compiled, script, utf8, letters)
        if findings:
            text = _neutralise_encoded(text, None, findings, compiled)
        else:
            text = _neutralise_encoded(text, raw, findings, compiled, letters)
        if not findings:
            return FilteredText(text)
        return FilteredText(text, tuple(findings))


def _excerpt(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _defang(text: str) -> str:
    """Make markup inert while keeping it readable: angle brackets, pipes in tokens, square brackets."""
    return (
        text.replace(OPEN, "[").replace(CLOSE, "]")
        .replace("<|", "\u2039|").replace("|>", "|\u203a").replace("<", "\u2039").replace(">", "\u203a")
        .replace("[INST]", "\u27e6INST\u27e7").replace("[/INST]", "\u27e6/INST\u27e7")
    )


def _quote(span: str) -> str:
    return QUOTE_PREFIX + _defang(span) + CLOSE


def _unlink(span: str, compiled: _Compiled) -> str:
    """A link or image that would carry data away, shown as text that no renderer fetches."""
    text = compiled.markdown_link.sub(lambda m: f"{m.group(1)} \u2014 {m.group(2)}", span)
    text = compiled.http.sub(r"hxxp\1://", _defang(text))
    return f"{OPEN}link not rendered, its URL would carry data away: {text}{CLOSE}"


def _hidden_runs(text: str, hidden: set[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of every maximal run of the characters ``hidden`` in ``text``: each character
    located with ``str.find`` (a ``memchr``-like scan), much faster than a character class over long
    non-ASCII text."""
    positions: list[int] = []
    for char in hidden:
        found = text.find(char)
        while found != -1:
            positions.append(found)
            found = text.find(char, found + 1)
    positions.sort()
    runs: list[tuple[int, int]] = []
    for position in positions:
        if runs and runs[-1][1] == position:
            runs[-1] = (runs[-1][0], position + 1)
        else:
            runs.append((position, position + 1))
    return runs


def _neutralise_hidden(
    text: str, runs: list[tuple[int, int]], findings: list[InjectionFinding], compiled: _Compiled
) -> str:
    """``text`` with its hidden runs neutralised; ``text`` itself when every run stays (emoji joiners,
    embeddings in right-to-left text), so the caller need not copy it again."""
    out: list[str] = []
    position = 0
    has_rtl: list[bool] = []  # looked up the first time a bidirectional control needs it
    for start, end in runs:
        replacement = _neutralise_run(text, start, end, has_rtl, findings, compiled)
        if replacement != text[start:end]:
            out.append(text[position:start])
            out.append(replacement)
            position = end
    if not out:
        return text
    out.append(text[position:])
    return "".join(out)


def _is_tag(code: int) -> bool:
    return 0xE0000 <= code <= 0xE007F


def _neutralise_run(
    text: str, start: int, end: int, has_rtl: list[bool], findings: list[InjectionFinding], compiled: _Compiled
) -> str:
    """Neutralise one run of hidden characters ``text[start:end]`` (runs are short: a loop is fine)."""
    out: list[str] = []
    i = start
    n = end
    while i < n:
        ch = text[i]
        code = ord(ch)
        if _is_tag(code):
            j = i
            while j < n and _is_tag(ord(text[j])):
                j += 1
            # A flag emoji (black flag + tag letters + cancel tag) is the one legitimate use.
            if i > 0 and text[i - 1] == "\U0001f3f4" and ord(text[j - 1]) == 0xE007F:
                out.append(text[i:j])
            else:
                hidden = "".join(chr(ord(c) - 0xE0000) for c in text[i:j] if 0x20 <= ord(c) - 0xE0000 < 0x7F)
                findings.append(InjectionFinding("invisible", "hidden tag characters", _excerpt(hidden)))
                out.append(f"{OPEN}hidden text: {_defang(hidden)}{CLOSE}")
            i = j
            continue
        if 0xE0100 <= code <= 0xE01EF:
            j = i
            while j < n and 0xE0100 <= ord(text[j]) <= 0xE01EF:
                j += 1
            findings.append(InjectionFinding("invisible", "variation selectors", f"{j - i} characters"))
            out.append(f"{OPEN}{j - i} invisible characters{CLOSE}")
            i = j
            continue
        if ch in _BIDI_OVERRIDE:
            # Embeddings and isolates are ordinary in right-to-left text; overrides never are.
            if not has_rtl:
                has_rtl.append(compiled.rtl_letter.search(text) is not None)
            if has_rtl[0] and ch not in "\u202d\u202e":
                out.append(ch)
            else:
                findings.append(InjectionFinding("invisible", "bidirectional control", f"U+{code:04X}"))
                out.append(f"{OPEN}U+{code:04X}{CLOSE}")
            i += 1
            continue
        if ch in _INVISIBLE:
            j = i
            while j < n and text[j] in _INVISIBLE:
                j += 1
            run = text[i:j]
            before = text[i - 1] if i else ""
            after = text[j] if j < len(text) else ""
            if len(run) == 1 and run in "\u200c\u200d" and (
                compiled.emoji_near.match(before or " ") or compiled.emoji_near.match(after or " ")
                or not before.isascii() or not after.isascii()
            ):
                out.append(run)  # joiners inside emoji sequences and non-Latin scripts
            elif len(run) == 1 and run == "\ufeff" and i == 0:
                pass  # a byte-order mark at the start is an encoding artefact
            elif len(run) == 1 and not (before.isalnum() and after.isalnum()):
                out.append(run)  # a lone break opportunity between words hides nothing
            else:
                findings.append(InjectionFinding("invisible", "zero-width characters", f"{len(run)} characters"))
                # Inside a word the characters only split it to slip past filters: drop them so the
                # word (and whatever rule it trips) shows; a long run is a hidden message: mark it.
                if len(run) > 2:
                    out.append(f"{OPEN}{len(run)} invisible characters{CLOSE}")
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


Span = tuple[int, int, str, str]


def _rule_spans(text: str, compiled: _Compiled, offset: int = 0, words: bytes | None = None) -> list[Span]:
    """Every rule match in ``text`` as ``(start + offset, end + offset, family, rule)``.

    ``words``: ``" " + text + " "`` one byte per character through :data:`_WORD_BYTES`, when the caller
    already has it.
    """
    spans: set[Span] = set()
    gate = compiled.markup_gate.search(text)
    while gate is not None:
        position = gate.start()
        for rule in compiled.markup:
            match = rule.pattern.match(text, position)
            if match is not None and match.end() > position:
                spans.add((position + offset, match.end() + offset, rule.family, rule.rule))
        gate = compiled.markup_gate.search(text, position + 1)
    if words is None:
        words = _one_byte_copy(text).translate(_WORD_BYTES)  # words[i + 1] is text[i], lower case, others spaces
    # Where anchor words occur, chunk by chunk (a long text is cut at spaces into pieces of about
    # _CHUNK characters): ``bytes.split`` and a set say which anchor words a chunk has (C speed), a
    # ``bytes.find`` per such word, bounded to the chunk, where. A chunk has few of them, so this costs
    # about one pass over the text whatever its length (one alternation of all the words present costs
    # a regex step at every space: twice as much on long text, which has most of them). The space before
    # the word is at ``position``: the word is text[position].
    anchor_words = compiled.anchor_words
    by_anchor = compiled.by_anchor
    size = len(words)
    start = 0
    while start < size - 1:
        end = words.find(b" ", start + _CHUNK) if start + _CHUNK < size - 1 else -1
        if end == -1:
            end = size - 1  # the copy ends with a space
        # Words between the spaces at ``start`` and ``end`` (both in the chunk: a word is in exactly one).
        for word in anchor_words.intersection(words[start:end].split()):
            rules = by_anchor[word]
            needle = b" " + word + b" "
            position = words.find(needle, start, end + 1)
            while position != -1:
                _anchored(text, position, rules, offset, spans)
                position = words.find(needle, position + 1, end + 1)
        start = end
    return sorted(spans)


_CHUNK = 2048


def _anchored(text: str, position: int, rules: list[_Rule], offset: int, spans: set[Span]) -> None:
    """The matches of the rules of an anchor word found at ``text[position]``."""
    for rule in rules:
        if not rule.back:
            match = rule.pattern.match(text, position)
            if match is not None and match.end() > position:
                spans.add((position + offset, match.end() + offset, rule.family, rule.rule))
            continue
        end = min(len(text), position + _LOOK_AHEAD)
        for match in rule.pattern.finditer(text, max(0, position - rule.back), end):
            if match.start() > position:
                break
            if match.end() > match.start():
                spans.add((match.start() + offset, match.end() + offset, rule.family, rule.rule))


_VIEW_MARGIN = 240


def _merged_windows(size: int, matches: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Stretches of a text of ``size`` characters around ``matches`` (sorted ``(start, end)``), merged."""
    windows: list[tuple[int, int]] = []
    for match_start, match_end in matches:
        start = max(0, match_start - _VIEW_MARGIN)
        end = min(size, match_end + _VIEW_MARGIN)
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], end)
        else:
            windows.append((start, end))
    return windows


def _all_finds(haystack: bytes, needle: bytes, shift: int = 0) -> list[int]:
    """Every position (plus ``shift``) where ``needle`` starts in ``haystack``, overlaps included."""
    found: list[int] = []
    position = haystack.find(needle)
    while position != -1:
        found.append(position + shift)
        position = haystack.find(needle, position + 1)
    return found


def _leet_matches(shape: bytes) -> list[tuple[int, int]]:
    """Where a leetspeak character stands next to letters, as ``(start, end)`` in the text, given the
    :data:`_SPACED_BYTES` copy of ``" " + text + " "`` (``a`` letter, ``d`` leet character).

    What ``re.finditer`` of ``[leet](?:(?<=[A-Za-z][leet])[A-Za-z]|[A-Za-z][leet])`` gives (a leet
    character between letters, or a letter between leet characters), found with ``bytes.find``.
    """
    matches: list[tuple[int, int]] = []
    last = 0
    for position in sorted({*_all_finds(shape, b"ada", 1), *_all_finds(shape, b"dad")}):
        if position < last:
            continue
        last = position + (2 if shape[position - 1] == 97 and shape[position + 1] == 97 else 3)
        matches.append((position - 1, last - 1))
    return matches


def _mixed_script_matches(text: str, utf8: bytes) -> list[tuple[int, int]]:
    """Where a Greek or Cyrillic letter touches a Latin one, as ``(start, end)`` of the pair in ``text``
    (``utf8``: ``text`` encoded), found with ``bytes.find`` in a one-byte-per-character shape."""
    shape = utf8.translate(_SCRIPT_SHAPE, _UTF8_CONTINUATION)
    matches: list[tuple[int, int]] = []
    for other in sorted({*_all_finds(shape, b"ac", 1), *_all_finds(shape, b"ca")}):
        if "\u0370" <= text[other] <= "\u04ff":
            matches.append((other, other + 1) if shape[other - 1:other] == b"a" else (other, other + 2))
    return matches


def _view_spans(
    text: str, compiled: _Compiled, raw: bytes | None = None, words: bytes | None = None, script: bool | None = None,
    utf8: bytes | None = None, letters: bytes | None = None,
) -> list[Span]:
    """Rule matches in re-spellings of ``text`` (leetspeak, homoglyphs, rot13) that the plain text lacks.

    ``raw``, ``words`` and ``letters``: the one-byte copies of ``" " + text + " "`` (as is, through
    :data:`_WORD_BYTES`, through :data:`_SPACED_BYTES`) when the caller has them; ``script``: whether
    ``text`` has Cyrillic or Greek letters, when the caller knows; ``utf8``: ``text`` encoded, when the
    caller has it.
    """
    spans: list[Span] = []
    if raw is None:
        raw = _one_byte_copy(text)

    def scan(start: int, end: int, view: str) -> None:
        for s, e, _family, rule in _rule_spans(view, compiled, start):
            if text[s:e] != view[s - start:e - start]:
                spans.append((s, e, "encoded", f"obfuscated {rule}"))

    # A letter next to a leetspeak character, located with ``bytes.find`` in the letters/leet/other copy.
    if letters is None:
        letters = raw.translate(_SPACED_BYTES)
    for start, end in _merged_windows(len(text), _leet_matches(letters)):
        scan(start, end, text[start:end].translate(_LEET))
    if script is None:
        script = not text.isascii() and compiled.cyrillic_or_greek.search(text) is not None
    if script:
        # A Latin letter next to a Cyrillic or Greek one.
        if utf8 is None:
            utf8 = text.encode("utf-8", "surrogatepass")
        for start, end in _merged_windows(len(text), _mixed_script_matches(text, utf8)):
            scan(start, end, text[start:end].translate(_HOMOGLYPHS))
    if words is None:
        words = raw.translate(_WORD_BYTES)
    if b"rot13" in words or b"rot 13" in words:
        scan(0, len(text), codecs.encode(text, "rot13"))
    return spans


def _neutralise_rules(
    text: str, raw: bytes, findings: list[InjectionFinding], compiled: _Compiled, script: bool,
    utf8: bytes | None = None, letters: bytes | None = None,
) -> str:
    words = raw.translate(_WORD_BYTES)
    spans = _rule_spans(text, compiled, 0, words)
    spans.extend(_view_spans(text, compiled, raw, words, script, utf8, letters))
    if not spans:
        return text
    spans.sort()
    out: list[str] = []
    position = 0
    for start, end, family, rule in _merge(spans):
        if family == "override" or (family == "encoded" and "override" in rule) or (family == "exfiltration" and (
            "instruction" in rule
        )):
            start, end = _sentence(text, start, end, compiled)
        if start < position:
            start = position
        if start >= end:
            continue
        out.append(text[position:start])
        span = text[start:end]
        defanged = _defang(span)
        inline = family in ("tokens", "fake_block") and "role object" not in rule and defanged != span
        if family == "exfiltration" and "URL carrying data" in rule:
            replacement = _unlink(span, compiled)
        else:
            replacement = defanged if inline else _quote(span)
        out.append(replacement)
        findings.append(InjectionFinding(family, rule, _excerpt(replacement)))
        position = end
    out.append(text[position:])
    return "".join(out)


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for span in spans:
        if merged and span[0] < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], span[1]), last[2], last[3])
        else:
            merged.append(span)
    return merged


def _sentence(text: str, start: int, end: int, compiled: _Compiled) -> tuple[int, int]:
    """Widen a match to the sentence around it, so the whole instruction is quoted."""
    left = max(text.rfind(".", 0, start), text.rfind("\n", 0, start), text.rfind("!", 0, start),
               text.rfind("?", 0, start))
    left = max(left + 1, start - 300)
    while left < start and text[left] in " \t":
        left += 1
    match = compiled.sentence_end.search(text, end, min(len(text), end + 300))
    right = match.end() if match else min(len(text), end + 300)
    if right > end and text[right - 1] == "\n":
        right -= 1
    return left, right


def _looks_malicious(decoded: str, compiled: _Compiled) -> bool:
    return bool(_rule_spans(decoded, compiled)) or bool(_view_spans(decoded, compiled))


def _printable(decoded: str) -> bool:
    if not decoded:
        return False
    good = sum(1 for c in decoded if c.isprintable() or c in "\n\t")
    return good / len(decoded) > 0.9 and any(c.isalpha() for c in decoded)


def _neutralise_encoded(
    text: str, raw: bytes | None, findings: list[InjectionFinding], compiled: _Compiled, letters: bytes | None = None
) -> str:
    """Neutralise encoded payloads; ``raw`` and ``letters`` as for :func:`_view_spans` (``None`` when
    ``text`` changed)."""
    import base64
    import binascii
    import urllib.parse

    if raw is None:
        raw = _one_byte_copy(text)
    replacements: list[tuple[int, int, str, str]] = []
    shape = raw.translate(_BASE64_SHAPE)  # b for the alphabet, = kept, space for the rest
    for start, end in _base64_runs(shape):
        token_text = text[start:end].replace("-", "+").replace("_", "/")
        try:
            decoded = base64.b64decode(token_text + "=" * (-len(token_text) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if _printable(decoded) and _looks_malicious(decoded, compiled):
            replacements.append((start, end, "base64", decoded))
    # The patterns run over the one-byte copy (``raw[i + 1]`` is ``text[i]``). The first two start with a
    # literal (``re`` skips to it faster than ``in`` would answer); the third runs when the hex shape has
    # 24 digits in a row or twelve pairs apart.
    hex_patterns = list(compiled.hex)
    hexes = raw.translate(_HEX_BYTES)
    if b"h" * 24 in hexes or b"hh hh hh hh hh hh hh hh hh hh hh hh" in hexes:
        hex_patterns.append(compiled.plain_hex)
    for pattern in hex_patterns:
        for match in pattern.finditer(raw):
            digits = compiled.hex_noise.sub("", text[match.start() - 1:match.end() - 1])
            try:
                decoded = bytes.fromhex(digits[: len(digits) // 2 * 2]).decode("utf-8")
            except (ValueError, UnicodeDecodeError):
                continue
            if _printable(decoded) and _looks_malicious(decoded, compiled):
                replacements.append((match.start() - 1, match.end() - 1, "hex", decoded))
    for match in compiled.url_encoded.finditer(raw) if b"%" in raw else ():
        decoded = urllib.parse.unquote(text[match.start() - 1:match.end() - 1])
        if _printable(decoded) and _looks_malicious(decoded, compiled):
            replacements.append((match.start() - 1, match.end() - 1, "URL encoding", decoded))
    spaced_out: list[tuple[int, int]] = []
    if letters is None:
        letters = raw.translate(_SPACED_BYTES)
    for gate in compiled.spaced_gate.finditer(letters):
        if spaced_out and gate.start() < spaced_out[-1][1]:
            continue
        window_end = min(len(text), gate.start() + 2000)
        spaced_out.extend(m.span() for m in compiled.spaced.finditer(text, max(0, gate.start() - 8), window_end)
                          if not spaced_out or m.start() >= spaced_out[-1][1])
    for start, end in spaced_out:
        found = text[start:end]
        collapsed = compiled.separators.sub("", found)
        spaced = compiled.separator_runs.sub(" ", found)
        candidates = (collapsed, spaced.replace(" ", ""), compiled.inner_separator.sub("", spaced))
        if any(_looks_malicious(c, compiled) or _looks_malicious(_words(c), compiled) for c in candidates):
            replacements.append((start, end, "spaced-out letters", spaced))
    if not replacements:
        return text
    replacements.sort()
    out: list[str] = []
    position = 0
    for start, end, kind, decoded in replacements:
        if start < position:
            continue
        out.append(text[position:start])
        shown = f"{OPEN}encoded text ({kind}), not an instruction, reads: {_defang(_excerpt(decoded, 300))}{CLOSE}"
        out.append(shown)
        findings.append(InjectionFinding("encoded", kind, _excerpt(shown)))
        position = end
    out.append(text[position:])
    return "".join(out)


def _base64_runs(shape: bytes) -> list[tuple[int, int]]:
    """``(start, end)`` in the text of every run of 24+ base64 characters (then up to two ``=``) standing
    between non-word characters; ``shape`` is the one-byte copy of ``" " + text + " "`` through
    :data:`_BASE64_SHAPE`.

    Found with ``bytes.find`` for 24 alphabet characters in a row (rare in prose) and widened by hand,
    so clean text costs a translation and one search.
    """
    runs: list[tuple[int, int]] = []
    found = shape.find(_LONG_TOKEN)
    while found != -1:
        start = shape.rfind(b" ", 0, found) + 1
        end = shape.find(b" ", found)  # the copy ends with a space
        token = shape[start:end]
        body = token.rstrip(b"=")
        if b"=" not in body and len(token) - len(body) <= 2 and start > 0 and shape[start - 1:start] == b" ":
            runs.append((start - 1, end - 1))
        found = shape.find(_LONG_TOKEN, end)
    return runs


_COMMON_WORDS = tuple(sorted((
    "ignore", "all", "previous", "prior", "instructions", "disregard", "the", "above", "your", "system", "prompt",
    "reveal", "rules", "forget", "everything", "you", "are", "now", "new",
), key=len, reverse=True))


def _words(collapsed: str) -> str:
    """Re-insert spaces into letters written apart (``ignoreallprevious`` → ``ignore all previous``)."""
    lowered = collapsed.lower()
    out = []
    i = 0
    while i < len(lowered):
        for word in _COMMON_WORDS:
            if lowered.startswith(word, i):
                out.append(word)
                i += len(word)
                break
        else:
            out.append(lowered[i])
            i += 1
    return " ".join(out)


__all__ = [
    "BuiltinInjectionFilter",
    "FilteredText",
    "GuardReport",
    "GuardResult",
    "InjectionFilter",
    "InjectionFinding",
    "InjectionSource",
    "InjectionText",
    "PromptInjectionGuard",
    "SourceReport",
    "describe_findings",
]
