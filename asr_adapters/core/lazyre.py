"""A regular expression compiled when it is first used, not when its module is imported.

Detection imports every agent's ``sniff`` module for every input, and a given head fails most
agents at their first test, so most of their patterns are never searched: compiling each at
import (Python's ``re`` compiles in Python, about 0.2-0.5 M instructions a pattern) was part of
every ``asr convert``'s start-up (issue 28, target 3).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import AnyStr, Generic


class LazyPattern(Generic[AnyStr]):
    """``re.compile(source, flags)`` on the first ``search``/``match``/``fullmatch``/``finditer``/``sub``."""

    __slots__ = ("_compiled", "_flags", "_source")

    def __init__(self, source: AnyStr, flags: int = 0) -> None:
        self._source: AnyStr = source
        self._flags = flags
        self._compiled: re.Pattern[AnyStr] | None = None

    def compiled(self) -> re.Pattern[AnyStr]:
        """The compiled pattern (``re.Pattern.pattern`` would be its source text)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._source, self._flags)
        return compiled

    def search(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().search(string, pos, endpos)

    def match(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().match(string, pos, endpos)

    def fullmatch(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[AnyStr] | None:
        return self.compiled().fullmatch(string, pos, endpos)

    def finditer(self, string: AnyStr, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[AnyStr]]:
        return self.compiled().finditer(string, pos, endpos)

    def sub(self, repl: AnyStr | Callable[[re.Match[AnyStr]], AnyStr], string: AnyStr, count: int = 0) -> AnyStr:
        return self.compiled().sub(repl, string, count)

    def __repr__(self) -> str:
        return f"LazyPattern({self._source!r}, {self._flags})"
