"""The built-in prompt-injection filter's entry point, kept apart so that registering it costs nothing.

A host registers the filter at start-up; the guard's types and the filter's rules
(:mod:`toolplug.guard_builtin`) are imported with the first text filtered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from toolplug.guard import FilteredText


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
        from toolplug.guard_builtin import neutralise  # its rules load with the first text, never at start-up

        return neutralise(text)
