"""Patterns of the guard compiled on first use.

The guard holds a few hundred patterns; a host that reads ordinary pages needs only some of them, and
compiling all of them up front is most of the first call's cost. :func:`deferred` stands in for
:func:`re.compile`: it returns a :class:`DeferredPattern`, which compiles its pattern the first time it is
used. :func:`settle` tells the deferred patterns among an object's attributes where they live, so that on
first use each puts the compiled pattern in its own place: from then on the attribute *is* the compiled
pattern, and a steady scan pays nothing for the deferral.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any, cast


class DeferredPattern:
    """A pattern compiled the first time one of its methods is called (the same methods and results as
    the compiled pattern's)."""

    __slots__ = ("_compiled", "flags", "name", "owner", "source")

    def __init__(self, source: str, flags: int = 0) -> None:
        self.source = source
        self.flags = flags
        self.owner: object | None = None
        self.name = ""
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> str:
        """The pattern as written, as :attr:`re.Pattern.pattern`."""
        return self.source

    def resolve(self) -> re.Pattern[str]:
        """The compiled pattern; the owner's attribute (see :func:`settle`) becomes that pattern."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.source, self.flags)
            if self.owner is not None and getattr(self.owner, self.name, None) is self:
                setattr(self.owner, self.name, compiled)
        return compiled

    def search(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.resolve().search(string, pos, endpos)

    def match(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.resolve().match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.resolve().fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.resolve().finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.resolve().findall(string, pos, endpos)

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        return self.resolve().sub(repl, string, count)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.resolve().split(string, maxsplit)


def deferred(source: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(source, flags)``, compiled on first use (typed as the pattern it stands for)."""
    return cast("re.Pattern[str]", DeferredPattern(source, flags))


def compiled_now(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` compiled now, when it is a deferred one (for a caller that keeps it elsewhere)."""
    if isinstance(pattern, DeferredPattern):
        return pattern.resolve()
    return pattern


def settle(owner: object) -> None:
    """Give each deferred pattern among ``owner``'s attributes its place, so that it replaces itself there
    with the compiled pattern on first use."""
    names = list(getattr(owner, "__dict__", {}))
    names += [name for cls in type(owner).__mro__ for name in getattr(cls, "__slots__", ())]
    for name in names:
        value = getattr(owner, name, None)
        if isinstance(value, DeferredPattern) and value.owner is None:
            value.owner, value.name = owner, name
