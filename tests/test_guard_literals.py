"""The guard's one-pass search for many literal strings finds exactly what ``in`` finds for each."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from toolplug import guard_builtin
from toolplug.guard_literals import LiteralSet

_LETTERS = "甲乙丙丁"


# REQ: WEB-9
@given(st.frozensets(st.text(alphabet=_LETTERS, min_size=1, max_size=5), max_size=12),
       st.text(alphabet=_LETTERS + " ", max_size=60))
@example(frozenset({"甲乙", "甲乙丙丁"}), "甲乙丙丁").via("a prefix of a longer string found at one place")
@example(frozenset({"乙丙", "甲乙丙"}), "甲乙丙").via("a string found only inside a longer one that starts earlier")
@example(frozenset({"甲乙", "甲乙丙"}), "甲乙丁").via("a longer string that starts the same but is not there")
@example(frozenset({"甲", "甲乙", "丙"}), "乙甲乙").via("a string of one character that starts longer ones")
def test_a_literal_set_finds_what_in_finds(strings: frozenset[str], text: str) -> None:
    assert LiteralSet(strings).found_in(text) == {string for string in strings if string in text}


# REQ: WEB-9
def test_a_literal_set_quotes_characters_a_pattern_would_read() -> None:
    strings = frozenset({"a.b", "(x", "[?]", "a|b"})
    assert LiteralSet(strings).found_in("zz(x a|b [?]") == {"(x", "a|b", "[?]"}


# REQ: WEB-9
def test_an_empty_string_is_refused_where_the_set_is_made() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        LiteralSet(frozenset({"", "a"}))


# REQ: WEB-9
def test_every_script_group_gates_on_the_parts_of_its_own_words() -> None:
    # a gate word whose part is missing from its script's set would never open its group's scan
    compiled = guard_builtin._compiled()
    for script, words, _pattern, _leads in compiled.other_scripts:
        strings = compiled.script_parts[script.pattern].strings
        assert {part for _word, part in words} <= strings
