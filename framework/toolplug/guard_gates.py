"""First-character gates for the guard's long alternations of foreign-script patterns.

A pattern whose every match starts with a character of a known set ``S`` matches exactly where
``(?=[S])(?:pattern)`` does: the look-ahead only refuses positions where the pattern cannot start. Put before
each branch of an alternation (and before the whole when every branch has one), it lets the regular
expression engine refuse most positions of a long text with one class test instead of trying every branch
(each often opening with several look-behinds). The set is read from the parsed pattern; where it cannot be
known for certain (a branch that may match the empty string, or start with any character, a class of
categories, a back-reference, case-insensitive letters), that branch keeps no gate, and so does the whole.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

_parser: Any = importlib.import_module("re._parser")
_compiler: Any = importlib.import_module("re._compiler")
_constants: Any = importlib.import_module("re._constants")

_ZERO_WIDTH = frozenset(("AT", "ASSERT", "ASSERT_NOT"))
_REPEATS = frozenset(("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"))
_GROUPS = frozenset(("SUBPATTERN", "ATOMIC_GROUP"))
_IGNORECASE = int(re.IGNORECASE)

_MULTILINE = int(re.MULTILINE)
_CATEGORIES = ("CATEGORY_WORD", "CATEGORY_NOT_WORD", "CATEGORY_DIGIT", "CATEGORY_NOT_DIGIT", "CATEGORY_SPACE",
               "CATEGORY_NOT_SPACE")
_CATEGORY_ESCAPES = ("\\w", "\\W", "\\d", "\\D", "\\s", "\\S")

Ranges = set[tuple[int, int, bool]]
"""Characters as ``(first, last, case-insensitive)`` code point ranges."""


class _Unknown(Exception):
    """The first characters of a branch cannot be known for certain."""


class _Gate:
    """Where a branch can match: at a character of ``first``, or (when the branch opens with a condition on
    what precedes it) after a character of ``after``, at a line start (``lines``) or the text's start."""

    __slots__ = ("after", "first", "lines", "start")

    def __init__(self) -> None:
        self.first: Ranges = set()
        self.after: Ranges = set()
        self.lines = False
        self.start = False

    def update(self, other: _Gate) -> None:
        self.first |= other.first
        self.after |= other.after
        self.lines = self.lines or other.lines
        self.start = self.start or other.start

    def source(self) -> str:
        """The gate as a zero-width pattern."""
        parts = [_lookaround("?=", self.first)] if self.first else []
        if self.after:
            parts.append(_lookaround("?<=", self.after))
        if self.lines:
            parts.append("(?m:^)")
        elif self.start:
            parts.append(r"\A")
        return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def first_characters(source: str) -> str | None:
    """A zero-width pattern that holds wherever a match of ``source`` can start (before a character it can
    start with, or where its opening condition on the preceding text holds), or None when that is not known
    for certain (see the module's docstring)."""
    gate = _gate(source)
    return None if gate is None else gate.source()


def compile_gated(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """``re.compile("|".join(patterns))`` with each branch behind its gate where it has one, and the whole behind
    the union of the gates when every branch has one: the same matches, found faster. The gates are read from
    the parsed pattern and put into it, and the tree is compiled: the patterns are parsed once."""
    source = "|".join(patterns)
    try:
        tree = _parser.parse(source)
        if int(tree.state.flags) & ~int(re.UNICODE):
            return re.compile(source)
        data = tree.data
        if len(data) == 1 and str(data[0][0]) == "BRANCH":
            whole: _Gate | None = _Gate()
            for branch in data[0][1][1]:
                gate = _tree_gate(branch)
                if gate is not None:
                    branch.data.insert(0, _gate_node(gate, tree.state))
                if gate is None:
                    whole = None
                elif whole is not None:
                    whole.update(gate)
        else:
            whole = _tree_gate(tree)
        if whole is not None:
            data.insert(0, _gate_node(whole, tree.state))
        compiled: re.Pattern[str] = _compiler.compile(tree)
    except (re.error, AttributeError, TypeError, ValueError, IndexError, RecursionError):
        return re.compile(source)
    return compiled


def _tree_gate(items: Any) -> _Gate | None:
    try:
        opening = _opening(items, 0)
        if opening is not None:
            return opening
        gate = _Gate()
        nullable = _first(items, 0, gate.first)
    except _Unknown:
        return None
    return None if nullable or not gate.first else gate


def _gate_node(gate: _Gate, state: Any) -> tuple[Any, Any]:
    """The gate as an item of a parsed pattern (what :meth:`_Gate.source` would parse into)."""
    k = _constants

    def sub(*items: tuple[Any, Any]) -> Any:
        return _parser.SubPattern(state, list(items))

    def either(choices: list[Any]) -> Any:
        return choices[0] if len(choices) == 1 else sub((k.BRANCH, (None, choices)))

    def classes(ranges: Ranges) -> Any:
        def item(low: int, high: int) -> tuple[Any, Any]:
            if low < 0:
                return k.CATEGORY, getattr(k, _CATEGORIES[-1 - low])
            return (k.LITERAL, low) if low == high else (k.RANGE, (low, high))

        exact = [item(low, high) for low, high, folded in sorted(ranges) if not folded]
        folded = [item(low, high) for low, high, folded in sorted(ranges) if folded]
        choices = [sub((k.IN, exact))] if exact else []
        if folded:
            choices.append(sub((k.SUBPATTERN, (None, _IGNORECASE, 0, sub((k.IN, folded))))))
        return either(choices)

    choices = [sub((k.ASSERT, (1, classes(gate.first))))] if gate.first else []
    if gate.after:
        choices.append(sub((k.ASSERT, (-1, classes(gate.after)))))
    if gate.lines:
        choices.append(sub((k.SUBPATTERN, (None, _MULTILINE, 0, sub((k.AT, k.AT_BEGINNING))))))
    elif gate.start:
        choices.append(sub((k.AT, k.AT_BEGINNING_STRING)))
    node = either(choices)
    return k.SUBPATTERN, (None, 0, 0, node)


def _gate(source: str) -> _Gate | None:
    try:
        parsed = _parser.parse(source)
        if int(parsed.state.flags) & ~int(re.UNICODE):
            return None  # global inline flags: the gate could not be put before the pattern
        opening = _opening(parsed, 0)
        if opening is not None:
            return opening
        gate = _Gate()
        nullable = _first(parsed, 0, gate.first)
    except (_Unknown, re.error, AttributeError, TypeError, ValueError, IndexError):
        return None
    return None if nullable or not gate.first else gate


def _opening(items: Any, flags: int) -> _Gate | None:
    """The condition a sequence opens with, when its first item is one (``^``, or a look-behind at one
    character, or a choice of such), as a gate; else None."""
    if not len(items):
        return None
    op, av = items[0]
    name = str(op)
    if name == "SUBPATTERN" and av[0] is None:
        return _opening(av[3], (flags | av[1]) & ~av[2])
    choices = av[1] if name == "BRANCH" else [[items[0]]]
    gate = _Gate()
    for choice in choices:
        if len(choice) != 1:
            return None
        op, av = choice[0]
        name = str(op)
        if name == "AT" and str(av) == "AT_BEGINNING":
            gate.lines = gate.lines or bool(flags & _MULTILINE)
            gate.start = True
        elif name == "AT" and str(av) == "AT_BEGINNING_STRING":
            gate.start = True
        elif name == "ASSERT" and av[0] == -1 and len(av[1]) == 1 and str(av[1][0][0]) in ("LITERAL", "IN"):
            try:
                _first(av[1], flags, gate.after)  # one character, the one before the match
            except _Unknown:
                return None
        else:
            return None
    return gate


def _first(items: Any, flags: int, into: Ranges) -> bool:
    """Adds the first characters of a sequence of parsed items to ``into``; whether it can match empty."""
    return all(_first_of(str(op), av, flags, into) for op, av in items)  # up to the first that cannot


def _first_of(op: str, av: Any, flags: int, into: Ranges) -> bool:
    """Adds the first characters of one parsed item to ``into``; whether it can match empty."""
    ignorecase = bool(flags & _IGNORECASE)
    if op in _ZERO_WIDTH:
        return True
    if op == "LITERAL":
        into.add((av, av, ignorecase))
        return False
    if op == "IN":
        for item, value in av:
            name = str(item)
            if name == "LITERAL":
                into.add((value, value, ignorecase))
            elif name == "RANGE":
                into.add((value[0], value[1], ignorecase))
            elif name == "CATEGORY" and str(value) in _CATEGORIES:
                code = -1 - _CATEGORIES.index(str(value))  # below every code point: rendered by _class
                into.add((code, code, False))
            else:
                raise _Unknown  # NEGATE
        return False
    if op == "BRANCH":
        nullable = False
        for branch in av[1]:
            nullable = _first(branch, flags, into) or nullable
        return nullable
    if op in _REPEATS:
        return _first(av[2], flags, into) or av[0] == 0
    if op == "SUBPATTERN":
        return _first(av[3], (flags | av[1]) & ~av[2], into)
    if op == "ATOMIC_GROUP":
        return _first(av, flags, into)
    raise _Unknown  # ANY, NOT_LITERAL, CATEGORY, GROUPREF, ...


def _lookaround(kind: str, ranges: Ranges) -> str:
    """``(?=[...])`` or ``(?<=[...])`` over ``ranges``; the case-insensitive ones in a ``(?i:...)`` class,
    which the engine compiles as it compiles those characters in the pattern (so it holds wherever they match)."""
    exact = sorted((low, high) for low, high, folded in ranges if not folded)
    folded = sorted((low, high) for low, high, folded in ranges if folded)
    classes = ([_class(exact)] if exact else []) + ([f"(?i:{_class(folded)})"] if folded else [])
    return f"({kind}" + "|".join(classes) + ")"


def _class(ranges: list[tuple[int, int]]) -> str:
    def char(code: int) -> str:
        return _CATEGORY_ESCAPES[-1 - code] if code < 0 else f"\\U{code:08x}"

    return "[" + "".join(char(low) if low == high else f"{char(low)}-{char(high)}" for low, high in ranges) + "]"


def required_characters(source: str) -> frozenset[str]:
    """Characters every match of ``source`` consumes (holds between its start and its end), as far as the parsed
    pattern shows them for certain: the literals of its top-level sequence, of the groups and repeats of one
    or more it opens, and those every branch of a choice requires. Empty when none is known (a case-insensitive
    literal, a class of several characters, a look-around or a back-reference requires nothing here)."""
    try:
        parsed = _parser.parse(source)
    except (re.error, RecursionError):
        return frozenset()
    return frozenset(chr(code) for code in _required(parsed, int(parsed.state.flags)))


def _required(items: Any, flags: int) -> set[int]:
    found: set[int] = set()
    for op, av in items:
        found |= _required_of(str(op), av, flags)
    return found


def _required_of(op: str, av: Any, flags: int) -> set[int]:
    if op == "LITERAL":
        return set() if flags & _IGNORECASE else {av}
    if op == "IN":
        single = len(av) == 1 and str(av[0][0]) == "LITERAL" and not flags & _IGNORECASE
        return {av[0][1]} if single else set()
    if op == "SUBPATTERN":
        return _required(av[3], (flags | av[1]) & ~av[2])
    if op == "ATOMIC_GROUP":
        return _required(av, flags)
    if op in _REPEATS:
        return _required(av[2], flags) if av[0] >= 1 else set()
    if op == "BRANCH":
        choices = [_required(choice, flags) for choice in av[1]]
        return set.intersection(*choices) if choices else set()
    return set()
