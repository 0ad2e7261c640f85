"""Which of many literal strings occur in a text, found in one pass per first character.

The guard gates each group of foreign-script patterns on the non-ASCII letters of its gate words: a group
is scanned only where some of them occur. Asking ``part in text`` once per gate word reads the whole text
once for every word that is absent, and most are: on a long page in that script this is most of the
guard's time. One alternation of all the strings tried at every position costs a comparison per first
character at every position of the text. Instead the strings are grouped by their first character: per
group, one pattern of that character followed by a trie of the rest (looked ahead at, so overlapping starts
are all found). ``re`` skips to a literal first character in a tight loop, so each position of the text is
tried by one pattern only, and only where its character starts some string. Each match names the longest
string that starts there; every string that is a prefix of it also starts there. The result is exactly the
set of strings ``in`` finds.
"""

from __future__ import annotations

import re

_END = ""
"""The key of a trie node that marks the end of a string (no string's character is empty)."""

_Node = dict[str, "_Node"]
"""A trie node: the next characters of the strings through it, each to its own node."""


class LiteralSet:
    """A fixed set of non-empty strings; :meth:`found_in` says which of them occur in a text. The patterns
    are compiled the first time a text is searched, so a set for a script no page uses costs nothing."""

    __slots__ = ("_by_first", "strings")

    def __init__(self, strings: frozenset[str]) -> None:
        if "" in strings:
            raise ValueError("a literal set holds non-empty strings only")
        self.strings = strings
        self._by_first: list[tuple[str, bool, re.Pattern[str] | None]] | None = None

    def found_in(self, text: str) -> frozenset[str]:
        """The strings of this set that occur in ``text``, as ``string in text`` would say of each."""
        if self._by_first is None:
            self._by_first = _by_first_character(self.strings)
        found: set[str] = set()
        for first, alone, rest in self._by_first:
            if first not in text:  # one fast scan; most first characters of a script are in a long page
                continue
            if alone:
                found.add(first)
            if rest is None:
                continue
            for tail in set(rest.findall(text)):
                longest = first + tail
                found.update(longest[:length] for length in range(2, len(longest) + 1)
                             if longest[:length] in self.strings)
        return frozenset(found)


def _by_first_character(strings: frozenset[str]) -> list[tuple[str, bool, re.Pattern[str] | None]]:
    """Per first character of ``strings``: whether that character alone is one of them, and a pattern that
    matches the character where the longest of the rest of theirs follows (group 1: that rest)."""
    tails: dict[str, set[str]] = {}
    for string in strings:
        tails.setdefault(string[0], set()).add(string[1:])
    groups = []
    for first, rests in sorted(tails.items()):
        longer = frozenset(rest for rest in rests if rest)
        pattern = re.compile(re.escape(first) + "(?=(" + _trie_pattern(longer) + "))") if longer else None
        groups.append((first, "" in rests, pattern))
    return groups


def _trie_pattern(strings: frozenset[str]) -> str:
    """An alternation of ``strings`` as a trie: a position is tried against each first character once, and
    the longest string that starts there is matched (an optional tail is greedy)."""
    root: _Node = {}
    for string in strings:
        node = root
        for character in string:
            node = node.setdefault(character, {})
        node[_END] = {}
    return _node_pattern(root)


def _node_pattern(node: _Node) -> str:
    """The pattern of the strings below ``node`` (without its own prefix); empty where none go on."""
    branches = [re.escape(character) + _node_pattern(child)
                for character, child in sorted(node.items()) if character != _END]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    return "(?:" + body + ")?" if _END in node else body
