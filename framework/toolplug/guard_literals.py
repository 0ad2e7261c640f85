"""Which of many literal strings occur in a text, found in one pass.

The guard gates each group of foreign-script patterns on the non-ASCII letters of its gate words: a group
is scanned only where some of them occur. Asking ``part in text`` once per gate word reads the whole text
once for every word that is absent, and most are: on a long page in that script this is most of the
guard's time. One regular expression built as a trie of all the strings, looked for at every position,
reads the text once and names the longest string that starts at each position; every string that is a
prefix of one of those also starts there. The result is exactly the set of strings ``in`` finds.
"""

from __future__ import annotations

import re

_END = ""
"""The key of a trie node that marks the end of a string (no string's character is empty)."""

_Node = dict[str, "_Node"]
"""A trie node: the next characters of the strings through it, each to its own node."""


class LiteralSet:
    """A fixed set of non-empty strings; :meth:`found_in` says which of them occur in a text. The pattern
    is compiled the first time a text is searched, so a set for a script no page uses costs nothing."""

    __slots__ = ("_pattern", "strings")

    def __init__(self, strings: frozenset[str]) -> None:
        if "" in strings:
            raise ValueError("a literal set holds non-empty strings only")
        self.strings = strings
        self._pattern: re.Pattern[str] | None = None

    def found_in(self, text: str) -> frozenset[str]:
        """The strings of this set that occur in ``text``, as ``string in text`` would say of each."""
        if not self.strings:
            return frozenset()
        if self._pattern is None:
            self._pattern = re.compile("(?=(" + _trie_pattern(self.strings) + "))")
        found: set[str] = set()
        for longest in set(self._pattern.findall(text)):
            found.update(longest[:length] for length in range(1, len(longest) + 1)
                         if longest[:length] in self.strings)
        return frozenset(found)


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
