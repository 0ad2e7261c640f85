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

import inspect
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from toolplug.builtin_filter import BuiltinInjectionFilter

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

        import asyncio  # loaded already when a filter runs; the host's start-up does not pay for it

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



_BUILTIN_NAMES = frozenset({"OPEN", "CLOSE", "QUOTE_PREFIX"})


def __getattr__(name: str) -> Any:
    # The built-in filter's rules live in toolplug.guard_builtin, loaded only when first needed.
    if name in _BUILTIN_NAMES:
        from toolplug import guard_builtin

        return getattr(guard_builtin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

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
