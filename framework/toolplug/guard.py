"""The prompt-injection guard: runs the registered filters over a batch of fetched texts (WEB-9).

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
import base64
import binascii
import codecs
import inspect
import re
import urllib.parse
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

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

OPEN = "\u27e6"  # ⟦
CLOSE = "\u27e7"  # ⟧
QUOTE_PREFIX = OPEN + "page text, not an instruction: "

_TAGS = range(0xE0000, 0xE0080)
_INVISIBLE = (
    "\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff\u180e\u034f\u115f\u1160\u3164\uffa0"
)
_BIDI_OVERRIDE = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
# One quick test for "anything invisible at all" keeps clean text on the fast path.
_ANY_HIDDEN = re.compile(
    "[" + _INVISIBLE + _BIDI_OVERRIDE + "\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
_HIDDEN_RUN = re.compile(
    "[" + _INVISIBLE + _BIDI_OVERRIDE + "\U000e0000-\U000e007f\U000e0100-\U000e01ef]+"
)
_RTL_LETTER = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_EMOJI_NEAR = re.compile("[\u2600-\u27bf\U0001f000-\U0001faff\ufe0f]")

_TOKEN_PATTERNS: list[tuple[str, str]] = [
    (r"<\|[A-Za-z_][\w.\- ]{0,30}\|>", "chat template token"),
    (r"<\uff5c[^<>\n]{1,30}\uff5c>", "chat template token"),
    (r"\[/?INST\]", "instruction token"),
    (r"<</?SYS>>", "system token"),
    (r"</?(?:start_of_turn|end_of_turn|bos|eos|eot|start_of_text|end_of_text)>", "turn token"),
    (r"(?m)^[ \t]*###[ \t]*(?:Instruction|Response|System)[ \t]*:", "instruction template header"),
]
_FAKE_BLOCK_PATTERNS: list[tuple[str, str]] = [
    (
        r"</?[ \t]*(?:system(?:[_-]?(?:prompt|message|instructions?))?|instructions?|developer(?:[_-]message)?"
        r"|tool[_-]?(?:results?|responses?|outputs?|calls?|use)|function[_-]?(?:results?|calls?|response)"
        r"|assistant|human|admin|im_start|im_end|antml:[\w-]+|search[_-]?results?|user[_-]?(?:query|message))"
        r"\b[^<>\n]{0,80}>",
        "fake message tag",
    ),
    (r"""["']role["'][ \t]*:[ \t]*["'](?:system|assistant|tool|developer|function)["']""", "fake role object"),
    (
        r"(?i)\[[ \t]*(?:(?:system|developer|admin)(?:[ \t]+(?:message|prompt|note|notice|override))?|tool[ \t]+"
        r"(?:output|result|response))[ \t]*\]",
        "fake role header",
    ),
    (
        r"(?im)^[ \t>*#=-]*(?:system|developer|admin)[ \t]*(?:message|prompt|instructions?|override|notice|update|note)"
        r"[ \t*]*:",
        "fake system block",
    ),
    (r"(?m)^[ \t>*#=-]*SYSTEM[ \t*]*:", "fake system block"),
    (
        r"(?i)\b(?:end|begin|start)[ \t]+of[ \t]+(?:the[ \t]+)?(?:system[ \t]+prompt|instructions|tool[ \t]+"
        r"(?:output|result|response)|function[ \t]+(?:output|result)|user[ \t]+(?:message|input)|untrusted"
        r"[ \t]+(?:content|input)|web[ \t]?page|search[ \t]+results?)\b",
        "fake block boundary",
    ),
    (r"(?m)(?:^|\n\n)Human:[ \t]", "fake dialogue turn"),
]
_EXFIL_PLACEHOLDER = (
    r"(?:\{\{?[^{}\s)]{1,40}\}?\}|%7[Bb]|\$\{?[A-Za-z_]{3,}|<[A-Za-z_ ]{2,40}>|%3[Cc]|\[[A-Z_ ]{3,40}\]"
    r"|\b(?:INSERT|PLACEHOLDER|YOUR_)\w*)"
)
_EXFIL_PATTERNS: list[tuple[str, str]] = [
    (r"!\[[^\]\n]{0,200}\]\([^)\s]*\?[^)\s]*" + _EXFIL_PLACEHOLDER + r"[^)]*\)", "image URL carrying data"),
    (r"(?<!!)\[[^\]\n]{0,200}\]\([^)\s]*\?[^)\s]*" + _EXFIL_PLACEHOLDER + r"[^)]*\)", "link URL carrying data"),
    (r"(?i)<img\b[^>]{0,200}src=[\"']?[^\"'\s>]*\?[^\"'\s>]*" + _EXFIL_PLACEHOLDER + r"[^>]*>",
     "image URL carrying data"),
    (r"(?im)^[ \t]*\[[^\]\n]{1,40}\]:[ \t]*https?://\S*\?\S*" + _EXFIL_PLACEHOLDER + r"\S*", "link URL carrying data"),
    (
        r"(?i)\b(?:append|add|include|insert|encode|embed|put)\b[^.\n]{0,60}\b(?:conversation|chat|history|"
        r"messages?|secrets?|password|api[ \t]?keys?|tokens?|credentials|personal[ \t]+data|user'?s?[ \t]+data|"
        r"summary|memory|email)\b[^.\n]{0,60}\b(?:to|in|into|as)[ \t]+(?:the[ \t]+|this[ \t]+|a[ \t]+)?"
        r"(?:url|link|query|image|request|parameter)",
        "instruction to leak data through a URL",
    ),
    (
        r"(?i)\b(?:send|forward|email|post|upload|transmit|leak|exfiltrate)[ \t]+"
        r"(?:the|this|all|your|the[ \t]+user'?s?)[ \t]+(?:\w+[ \t]+)?"
        r"(?:conversation|chat|data|history|messages|files|credentials|passwords?|keys?|"
        r"api[ \t]keys?|summary|information|details|secrets?)\b[^.\n]{0,80}\b(?:to|at)[ \t]+(?:\S+@\S+|https?://)",
        "instruction to send data away",
    ),
]
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
_OVERRIDE_PATTERNS: list[tuple[str, str]] = [
    (
        r"(?i)\b(?:ignore|disregard|forget|override|bypass|discard|drop|abandon)[ \t]+(?:"
        + _DET + r"*" + _Q + r"[ \t]+(?:\w+[ \t]+)?" + _OBJ + r"|all[ \t]+" + _DET + r"*" + _OBJ
        + r"|your[ \t]+" + _OBJ + r"|(?:everything|anything)[ \t]+(?:above|before|you[ \t]+(?:were|have[ \t]+been)"
        r"[ \t]+told))\b",
        "instruction override",
    ),
    (
        r"(?i)\byou[ \t]+are[ \t]+(?:now|no[ \t]+longer)[ \t]+(?:DAN\b|an?[ \t]+(?:unrestricted|unfiltered|uncensored"
        r"|different|new|evil|jailbroken)\b|in[ \t]+(?:developer|god|jailbreak|DAN|admin)[ \t]+mode"
        r"|free[ \t]+(?:from|of)|bound[ \t]+by|restricted|an?[ \t]+AI)",
        "role reassignment",
    ),
    (r"(?i)\b(?:new|updated|revised|real|actual|true|hidden|secret)[ \t]+(?:system[ \t]+)?(?:instructions|prompt|"
     r"directives?|task|orders)[ \t]*:", "new instructions"),
    (
        r"(?i)\b(?:reveal|print|output|repeat|leak|disclose|dump|exfiltrate|tell[ \t]+me)[ \t]+(?:\w+[ \t]+)?"
        r"(?:your|the)[ \t]+(?:full[ \t]+|entire[ \t]+|original[ \t]+|hidden[ \t]+|initial[ \t]+|secret[ \t]+)*"
        r"(?:system[ \t]+prompt|initial[ \t]+prompt|hidden[ \t]+prompt|instructions[ \t]+above|previous[ \t]+"
        r"instructions|conversation(?:[ \t]+history)?|chat[ \t]+history|api[ \t]+keys?)\b",
        "prompt or data extraction",
    ),
    (
        r"(?i)(?:^|[.!?\n][ \t]*|[\"'(][ \t]*)(?:dear[ \t]+|hey[ \t]+|hi[ \t]+|attention[ \t,]+|note[ \t]+to[ \t]+"
        r"(?:the[ \t]+|any[ \t]+|all[ \t]+)?|to[ \t]+(?:the|any|all)[ \t]+)?" + _AI
        + r"[ \t]*,[ \t]*(?:you[ \t]+(?:must|should|will|need|have|are)|please|ignore|disregard|do[ \t]+not|don't|never"
        r"|stop|instead|from[ \t]+now|forget|it[ \t]+is[ \t]+important)",
        "text addressed to the model",
    ),
    (
        r"(?i)(?:^|[.!?\n][ \t]*|[\"'(][ \t]*)(?:dear[ \t]+|attention[ \t,]+|note[ \t]+to[ \t]+"
        r"(?:the[ \t]+|any[ \t]+|all[ \t]+)?)?" + _AI
        + r"[ \t]*[:!][ \t]*(?:ignore|disregard|do[ \t]+not|don't|never|stop|forget|from[ \t]+now"
        r"|important|you[ \t]+must|execute|override)",
        "text addressed to the model",
    ),
    (
        r"(?i)\b(?:note|message|instructions?|attention|notice|directive|command|warning|request)[ \t]+(?:to|for)"
        r"[ \t]+(?:the[ \t]+|any[ \t]+|all[ \t]+)?" + _AI + r"\b[ \t]*(?:[:,.!-]|reading|processing|summari[sz]ing)",
        "text addressed to the model",
    ),
    (r"(?i)\b(?:if|when)[ \t]+you[ \t]+are[ \t]+an?[ \t]+" + _AI + r"\b", "text addressed to the model"),
    (r"(?i)\bas[ \t]+an?[ \t]+(?:AI|language[ \t]+model|assistant)\b[^.\n]{0,40}\byou[ \t]+(?:must|should|will|"
     r"are[ \t]+required)", "text addressed to the model"),
    (r"(?i)\b(?:do[ \t]+not|don't|never)[ \t]+(?:tell|inform|mention[ \t]+(?:this|it)[ \t]+to|reveal[ \t]+(?:this|it)"
     r"[ \t]+to|alert|warn)[ \t]+the[ \t]+user\b", "hiding from the user"),
    (r"(?i)\b(?:when|while|if)[ \t]+(?:you[ \t]+)?(?:summari[sz]e|summari[sz]ing|read|reading|process|processing|"
     r"analy[sz]e|analy[sz]ing)[ \t]+this[ \t]+(?:page|document|article|text|email|site|content)[ \t]*,[ \t]*"
     r"(?:you[ \t]+(?:must|should)|ignore|instead|always|do[ \t]+not|first)", "text addressed to the model"),
    (r"(?i)\b(?:stop|cease)[ \t]+(?:what[ \t]+you[ \t]+are[ \t]+doing|following[ \t]+(?:your|the)[ \t]+"
     r"(?:instructions|rules))", "instruction override"),
    (r"(?i)\b(?:enter|enable|activate)[ \t]+(?:developer|god|jailbreak|DAN|unrestricted|debug)[ \t]+mode\b",
     "role reassignment"),
]


def _compile(patterns: list[tuple[str, str]], family: str) -> list[tuple[re.Pattern[str], str, str]]:
    return [(re.compile(pattern), rule, family) for pattern, rule in patterns]


_MECHANICAL = (
    _compile(_TOKEN_PATTERNS, "tokens") + _compile(_FAKE_BLOCK_PATTERNS, "fake_block")
    + _compile(_EXFIL_PATTERNS, "exfiltration")
)
_HEURISTIC = _compile(_OVERRIDE_PATTERNS, "override")
_ALL_RULES = _MECHANICAL + _HEURISTIC

# Cheap gates: most text never contains any of these, so most rules are never tried.
_GATE = re.compile(
    r"(?i)<|\[|\{|!\[|\bsystem|human:|\bend of|\bbegin|\bstart of|ignor|disregard|forget|overrid|bypass|discard|"
    r"abandon|\bdrop\b|you are|instructions?\b|prompt|directive|reveal|print|output|repeat|leak|disclos|dump|"
    r"exfiltrat|tell me|\bai\b|llm|gpt|claude|gemini|copilot|assistant|language model|chatbot|\bbots?\b|don't|"
    r"do not|never|summari|analy|\bstop\b|\bcease\b|developer|jailbreak|append|include|insert|encode|embed|"
    r"\bsend\b|forward|email|upload|transmit|\bpost\b|role|###|\badd\b|\bput\b|\bnew\b|secret|hidden|real|"
    r"actual|true|revised|updated|enable|enter|activate|dear|note|attention|message|read|process"
)
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{24,}={0,2}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])(?:(?:\\x|0x)?[0-9A-Fa-f]{2}[ :]?){16,}")
_URL_ENCODED = re.compile(r"(?:%[0-9A-Fa-f]{2}[A-Za-z0-9 .,]{0,2}){8,}")
_SPACED = re.compile(r"(?<![\w])(?:[A-Za-z][ \t.\-_*|]{1,3}){9,}[A-Za-z](?![\w])")
_LEET_GATE = re.compile(r"[A-Za-z][013457@$][A-Za-z]")
_CYRILLIC_OR_GREEK = re.compile("[\u0370-\u04ff]")
_HEX_GATE = re.compile(r"\\x[0-9A-Fa-f]|0x[0-9A-Fa-f]{2}|[0-9A-Fa-f]{32}|(?:[0-9A-Fa-f]{2}[ :]){15}")
_SPACED_GATE = re.compile(r"[A-Za-z][ .\-_*|]{1,3}[A-Za-z][ .\-_*|]{1,3}[A-Za-z][ .\-_*|]{1,3}[A-Za-z][ .\-_*|]{1,3}[A-Za-z]\b")
_LEET = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_MIXED_SCRIPT = re.compile(r"[A-Za-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][A-Za-z]")
_HOMOGLYPHS = str.maketrans(
    {
        "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0445": "x", "\u0443": "y",
        "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u04bb": "h", "\u0501": "d", "\u0410": "A", "\u0415": "E",
        "\u041e": "O", "\u0420": "P", "\u0421": "C", "\u0425": "X", "\u0406": "I", "\u041c": "M", "\u041d": "H",
        "\u0422": "T", "\u0412": "B", "\u041a": "K", "\u03bf": "o", "\u03b1": "a", "\u03b5": "e", "\u03b9": "i",
        "\u039f": "O", "\u0391": "A", "\u0395": "E", "\u0399": "I", "\u03a4": "T", "\u039d": "N", "\u03bd": "v",
    }
)
_ROT13_GATE = re.compile(r"(?i)\brot[ -]?13\b")


class BuiltinInjectionFilter:
    """Neutralises, in place and visibly, what fetched text can use to speak as someone else.

    Families: ``invisible`` (zero-width, tag and bidirectional override characters), ``tokens``
    (chat-template and role tokens), ``fake_block`` (fake system or tool-result blocks),
    ``exfiltration`` (Markdown or HTML links and images built to carry data away, and instructions to
    do so), ``encoded`` (base64, hex, URL-encoded, spaced-out, leetspeak, homoglyph and rot13 forms of
    the above) and ``override`` (instruction-like text aimed at the model). Ordinary prose — about
    prompts, roles, base64, in right-to-left scripts, with emoji — is left exactly as it is.
    """

    name = "toolplug.builtin"

    def filter(self, texts: Sequence[str]) -> list[FilteredText]:
        """Filter each text independently."""
        return [self.filter_one(text) for text in texts]

    def filter_one(self, text: str) -> FilteredText:
        """Neutralise one text; unchanged (the same object) when nothing was found."""
        findings: list[InjectionFinding] = []
        if _ANY_HIDDEN.search(text):
            text = _neutralise_hidden(text, findings)
        text = _neutralise_rules(text, findings)
        text = _neutralise_encoded(text, findings)
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


_MARKDOWN_LINK = re.compile(r"!?\[([^\]\n]*)\]\(([^)\s]*)[^)]*\)")


def _unlink(span: str) -> str:
    """A link or image that would carry data away, shown as text that no renderer fetches."""
    text = _MARKDOWN_LINK.sub(lambda m: f"{m.group(1)} \u2014 {m.group(2)}", span)
    text = re.sub(r"(?i)\bhttp(s?)://", r"hxxp\1://", _defang(text))
    return f"{OPEN}link not rendered, its URL would carry data away: {text}{CLOSE}"


def _neutralise_hidden(text: str, findings: list[InjectionFinding]) -> str:
    out: list[str] = []
    position = 0
    has_rtl = _RTL_LETTER.search(text) is not None
    for run in _HIDDEN_RUN.finditer(text):
        out.append(text[position:run.start()])
        out.append(_neutralise_run(text, run.start(), run.end(), has_rtl, findings))
        position = run.end()
    out.append(text[position:])
    return "".join(out)


def _neutralise_run(text: str, start: int, end: int, has_rtl: bool, findings: list[InjectionFinding]) -> str:
    """Neutralise one run of hidden characters ``text[start:end]``."""
    out: list[str] = []
    i = start
    n = end
    while i < n:
        ch = text[i]
        code = ord(ch)
        if code in _TAGS:
            j = i
            while j < n and ord(text[j]) in _TAGS:
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
            if has_rtl and ch not in "\u202d\u202e":
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
                _EMOJI_NEAR.match(before or " ") or _EMOJI_NEAR.match(after or " ") or not before.isascii()
                or not after.isascii()
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


_ANCHORS = (
    "<", "{", "%7b", "%3c", "${", "[inst", "[/inst", "[system", "[developer", "[admin", "[tool", "###", "\"role",
    "'role", "system", "developer", "admin", "human:", "end of", "begin of", "start of", "ignor", "disregard",
    "forget", "overrid", "bypass", "discard", "abandon", "you are now", "you are no longer", "instruction", "prompt",
    "directive", "llm", "gpt", "claude", "gemini", "copilot", "assistant", "language model", "chatbot",
    "the user", "this page", "this document", "this article", "this text", "this email", "this site",
    "this content", "conversation", "chat history", "secret", "password", "api key", "credential", "personal data",
    "user's data", "user data", "jailbreak", "insert", "placeholder", "your_", "cease", "stop what",
)
_CASED_ANCHORS = ("AI", "SYSTEM", "[A", "[B", "[C", "[D", "[E", "[H", "[M", "[P", "[S", "[U")
_WINDOW = 400


def _windows(text: str) -> list[tuple[int, int]]:
    """Stretches of text around the words every rule needs; the rest cannot match and is skipped."""
    lower = text.lower()
    hits: list[int] = []
    for anchors, haystack in ((_ANCHORS, lower), (_CASED_ANCHORS, text)):
        for anchor in anchors:
            position = haystack.find(anchor)
            while position != -1:
                hits.append(position)
                position = haystack.find(anchor, position + _WINDOW)
    if not hits:
        return []
    hits.sort()
    windows: list[tuple[int, int]] = []
    for hit in hits:
        start = text.rfind("\n", 0, max(hit - _WINDOW, 0)) + 1
        end = min(len(text), hit + _WINDOW)
        newline = text.find("\n", end)
        if newline != -1 and newline - end <= _WINDOW:
            end = newline
        if windows and start <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], end))
        else:
            windows.append((start, end))
    return windows


def _spans(text: str, rules: Sequence[tuple[re.Pattern[str], str, str]]) -> list[tuple[int, int, str, str]]:
    spans = []
    for start, end in _windows(text):
        for pattern, rule, family in rules:
            for match in pattern.finditer(text, start, end):
                if match.end() > match.start():
                    spans.append((match.start(), match.end(), family, rule))
    return spans


def _views(text: str) -> list[str]:
    """Same-length re-spellings of ``text`` in which obfuscated words read plainly."""
    views = []
    if _LEET_GATE.search(text):
        views.append(text.translate(_LEET))
    if not text.isascii() and _CYRILLIC_OR_GREEK.search(text) and _MIXED_SCRIPT.search(text):
        views.append(text.translate(_HOMOGLYPHS))
    if _ROT13_GATE.search(text):
        views.append(codecs.encode(text, "rot13"))
    return views


def _neutralise_rules(text: str, findings: list[InjectionFinding]) -> str:
    spans = _spans(text, _ALL_RULES)
    for view in _views(text):
        spans.extend((s, e, "encoded", f"obfuscated {rule}") for s, e, _family, rule in _spans(view, _ALL_RULES)
                     if text[s:e] != view[s:e])
    if not spans:
        return text
    spans.sort()
    out: list[str] = []
    position = 0
    for start, end, family, rule in _merge(spans):
        if family == "override" or (family == "encoded" and "override" in rule) or (family == "exfiltration" and (
            "instruction" in rule
        )):
            start, end = _sentence(text, start, end)
        if start < position:
            start = position
        if start >= end:
            continue
        out.append(text[position:start])
        span = text[start:end]
        defanged = _defang(span)
        inline = family in ("tokens", "fake_block") and "role object" not in rule and defanged != span
        if family == "exfiltration" and "URL carrying data" in rule:
            replacement = _unlink(span)
        else:
            replacement = defanged if inline else _quote(span)
        out.append(replacement)
        findings.append(InjectionFinding(family, rule, _excerpt(replacement)))
        position = end
    out.append(text[position:])
    return "".join(out)


def _merge(spans: list[tuple[int, int, str, str]]) -> list[tuple[int, int, str, str]]:
    merged: list[tuple[int, int, str, str]] = []
    for span in spans:
        if merged and span[0] < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], span[1]), last[2], last[3])
        else:
            merged.append(span)
    return merged


_SENTENCE_END = re.compile(r"[.!?\n]")


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a match to the sentence around it, so the whole instruction is quoted."""
    left = max(text.rfind(".", 0, start), text.rfind("\n", 0, start), text.rfind("!", 0, start),
               text.rfind("?", 0, start))
    left = max(left + 1, start - 300)
    while left < start and text[left] in " \t":
        left += 1
    match = _SENTENCE_END.search(text, end, min(len(text), end + 300))
    right = match.end() if match else min(len(text), end + 300)
    if right > end and text[right - 1] == "\n":
        right -= 1
    return left, right


def _looks_malicious(decoded: str) -> bool:
    return any(pattern.search(decoded) for pattern, _rule, _family in _ALL_RULES)


def _printable(decoded: str) -> bool:
    if not decoded:
        return False
    good = sum(1 for c in decoded if c.isprintable() or c in "\n\t")
    return good / len(decoded) > 0.9 and any(c.isalpha() for c in decoded)


def _neutralise_encoded(text: str, findings: list[InjectionFinding]) -> str:
    replacements: list[tuple[int, int, str, str]] = []
    for match in _BASE64.finditer(text):
        token = match.group(0)
        raw = token.replace("-", "+").replace("_", "/")
        try:
            decoded = base64.b64decode(raw + "=" * (-len(raw) % 4), validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if _printable(decoded) and _looks_malicious(decoded):
            replacements.append((match.start(), match.end(), "base64", decoded))
    for match in _HEX.finditer(text) if _HEX_GATE.search(text) else ():
        digits = re.sub(r"\\x|0x|[ :]", "", match.group(0))
        try:
            decoded = bytes.fromhex(digits[: len(digits) // 2 * 2]).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            continue
        if _printable(decoded) and _looks_malicious(decoded):
            replacements.append((match.start(), match.end(), "hex", decoded))
    for match in _URL_ENCODED.finditer(text) if "%" in text else ():
        decoded = urllib.parse.unquote(match.group(0))
        if _printable(decoded) and _looks_malicious(decoded):
            replacements.append((match.start(), match.end(), "URL encoding", decoded))
    for match in _SPACED.finditer(text) if _SPACED_GATE.search(text) else ():
        collapsed = re.sub(r"[ \t.\-_*|]", "", match.group(0))
        spaced = re.sub(r"[ \t.\-_*|]{2,}", " ", match.group(0))
        candidates = (collapsed, spaced.replace(" ", ""), re.sub(r"(?<=\w)[.\-_*|](?=\w)", "", spaced))
        if any(_looks_malicious(c) or _looks_malicious(_words(c)) for c in candidates):
            replacements.append((match.start(), match.end(), "spaced-out letters", spaced))
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


_COMMON_WORDS = (
    "ignore", "all", "previous", "prior", "instructions", "disregard", "the", "above", "your", "system", "prompt",
    "reveal", "rules", "forget", "everything", "you", "are", "now", "new",
)


def _words(collapsed: str) -> str:
    """Re-insert spaces into letters written apart (``ignoreallprevious`` → ``ignore all previous``)."""
    lowered = collapsed.lower()
    out = []
    i = 0
    while i < len(lowered):
        for word in sorted(_COMMON_WORDS, key=len, reverse=True):
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
]
