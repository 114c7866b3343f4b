"""Which kinds a text may hold, from the substrings each kind's secrets begin with or stand
beside (its telltales): the detector runs only those kinds' patterns (``detectors.Detector``).

Most text of a session holds no telltale, so most text costs these searches and no pattern:
one trie-shaped regex over the text for the case-sensitive telltales, one over its lower-cased
copy for the others, and ``in`` for the one-character ones (a colon, a dot: met in almost every
text, they would make the trie stop at every other character).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ahocorasick_rs import MATCHKIND_LEFTMOST_LONGEST, MATCHKIND_STANDARD, AhoCorasick, BytesAhoCorasick

if TYPE_CHECKING:
    from .detectors import Pattern

#: What a text must hold for a family of kinds to be looked for: substrings (the second
#: tuple: in the text lower-cased), each found by one fast search, so that most text of a
#: session, which holds none, costs a few dozen substring searches and no regex. A kind not
#: listed always runs (a few single regexes, and the user's own patterns).
_FAMILIES: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    # the patterns whose regex is not a fast search: a literal, then a regex that is one
    ((":",), (), ("telegram-token",)),
    ((".",), (), ("discord-token",)),
    (("-us",), (), ("mailchimp-key",)),
    (("AC", "SK"), (), ("twilio-key",)),
    (("PRIVATE KEY", "PuTTY-User-Key"), (), ("private-key",)),
    # detect-secrets' keyword list, in the lower-cased text
    (
        (),
        (
            "password", "passwd", "pwd", "secret", "api_key", "apikey", "auth_key", "authkey", "service_key",
            "servicekey", "account_key", "accountkey", "db_key", "dbkey", "database_key", "privkey", "priv_key",
            "private_key", "privatekey", "client_key", "clientkey", "db_pass", "dbpass", "database_pass",
            "databasekey", "databasepass",
            "key_pass", "keypass", "contrase",
        ),
        ("secret-keyword",),
    ),
    (
        ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "API_KEY", "PRIVATE_KEY", "PRIVATEKEY", "ACCESS_KEY",
         "ACCESSKEY", "CREDENTIAL", "AUTH"),
        (),
        ("secret-assignment",),
    ),
    ((), ("authorization", "api-key", "x-auth-token"), ("auth-header",)),
    ((), ("aws_secret", "awssecret", "aws-secret"), ("aws-secret-key",)),
    ((), ("aws",), ("aws-secret-key",)),
    (("=",), (), ("url-secret-param",)),
    (("_authToken",), (), ("npm-token",)),
    ((), ("bearer",), ("bearer-token",)),
    (("A3T", "ABIA", "ACCA", "AKIA", "ASIA"), (), ("aws-access-key",)),
    (("://",), (), ("url-password",)),
    (("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), (), ("github-token",)),
    (
        ("glpat-", "gldt-", "glft-", "glsoat-", "glrt-", "glcbt-", "glimt-", "glptt-", "glagent-", "gloas-",
         "GR1348941"),
        (),
        ("gitlab-token",),
    ),
    ((), ("xox",), ("slack-token",)),
    (("hooks.slack.com",), (), ("slack-webhook",)),
    (("k_live_",), (), ("stripe-key",)),
    (("sk-",), (), ("openai-key", "anthropic-key")),
    (("AIza",), (), ("google-api-key",)),
    (("hf_",), (), ("huggingface-token",)),
    (("eyJ",), (), ("jwt",)),
    (("pypi-AgE",), (), ("pypi-token",)),
    (("SG.",), (), ("sendgrid-key",)),
    (("AccountKey=",), (), ("azure-storage-key",)),
    (("sq0csp-",), (), ("square-oauth",)),
    (("AKC", "AP"), (), ("artifactory-token",)),
    # detect-secrets' IBM, Cloudant and SoftLayer plugins: where the text names the service
    ((), ("cloudant",), ("cloudant-key",)),
    ((), ("softlayer",), ("softlayer-key",)),
    ((), ("ibm", "iam_", "iam-"), ("ibm-cloud-key",)),
    (("/home/", "/Users/", "Users\\"), (), ("user-name",)),
    (("@",), (), ("email",)),
)  # fmt: skip
ANCHORED = frozenset(kind for _literal, _folded, kinds in _FAMILIES for kind in kinds)
#: a second test for the families whose literal is common (regexes that start with a literal)
_PROBE_REGEX = {
    "artifactory-token": re.compile(r"AKC[a-zA-Z0-9]{10}|AP[\dA-F][a-zA-Z0-9]{8}"),
    "mailchimp-key": re.compile(r"-us\d"),
    "url-secret-param": re.compile(r"[?&][A-Za-z_-]{2,24}="),
    "telegram-token": re.compile(r":[0-9A-Za-z_-]{35}"),
    "discord-token": re.compile(r"\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}"),
}


class Telltales:
    """The telltale search of one detector's patterns (``always``: the indexes of those that
    run on every text)."""

    def __init__(self, patterns: Sequence[Pattern], always: frozenset[int]) -> None:
        self.always = always
        families = [
            (
                literal,
                folded,
                frozenset(n for n, p in enumerate(patterns) if p.kind in kinds and n not in always),
                _PROBE_REGEX.get(kinds[0]),
            )
            for literal, folded, kinds in _FAMILIES
        ]
        families = [family for family in families if family[2]]  # kinds this policy has
        self._families = families
        # every probe of every family in one automaton, searched once per text (and once more,
        # lower-cased, for the folded ones), leftmost-longest and without overlaps as the trie
        # regex it replaces did; what it finds names the families (and those of the probes it
        # holds). A one-character probe is asked with ``in``: wherever the search would meet it,
        # alone or inside a longer probe, the text holds it, and the families of a longer probe
        # include those of every probe inside it (``_owners``).
        literal = {probe for family in families for probe in family[0]}
        folded = {probe for family in families for probe in family[1]}
        self._chars = [
            (char, frozenset(n for n, family in enumerate(families) if char in family[0]))
            for char in sorted(probe for probe in literal if len(probe) == 1)
        ]
        longer = sorted(probe for probe in literal if len(probe) > 1)
        folded_probes = sorted(folded)
        literal_owners = _owners(set(longer), [family[0] for family in families])
        folded_owners = _owners(folded, [family[1] for family in families])
        # the automata search the text's UTF-8 (a lone surrogate as surrogatepass writes it):
        # every probe is ASCII, and a character that is not stands between probes in the bytes
        # as in the text; what they find is given by the probe's place in these lists
        self._literal_search = _automaton(longer)
        self._folded_search = _automaton(folded_probes)
        self._literal_owners = [literal_owners[probe] for probe in longer]
        self._folded_owners = [folded_owners[probe] for probe in folded_probes]

    def chosen(self, text: str) -> set[int]:
        """The indexes of the patterns to run on ``text``: the always-run ones, and those of
        each family whose telltale it holds."""
        met: set[int] = set()
        for char, owners in self._chars:
            if char in text:
                met |= owners
        data = text.encode("utf-8", "surrogatepass")
        if self._literal_search is not None:
            for found in {found for found, _start, _end in self._literal_search.find_matches_as_indexes(data)}:
                met |= self._literal_owners[found]
        if self._folded_search is not None:
            # the lower-cased text's UTF-8: its ASCII letters lowered, unless a letter that is
            # not ASCII lowers to one (İ, the Kelvin sign) or matches one case-insensitively
            # (ı, ſ): then the text folded as ``_folded`` folds it
            if not text.isascii() and any(c in text for c in _NOT_ASCII_LOWERED):
                lowered = _folded(text).encode("utf-8", "surrogatepass")
            else:
                lowered = data.lower()
            for found in {found for found, _start, _end in self._folded_search.find_matches_as_indexes(lowered)}:
                met |= self._folded_owners[found]
        chosen = set(self.always)
        for family in met:
            _literal, _folded_probes, members, probe_regex = self._families[family]
            if probe_regex is None or probe_regex.search(text):
                chosen |= members
        return chosen


#: the automata built, by their probes: one per process for a policy (a DFA takes a few
#: million instructions to build; ``asr show`` of a site or a bench makes many redactors)
_AUTOMATA: dict[tuple[str, ...], BytesAhoCorasick] = {}


def _automaton(words: list[str]) -> BytesAhoCorasick | None:
    if not words:
        return None
    key = tuple(words)
    automaton = _AUTOMATA.get(key)
    if automaton is None:
        automaton = BytesAhoCorasick([word.encode("ascii") for word in words], matchkind=MATCHKIND_LEFTMOST_LONGEST)
        _AUTOMATA[key] = automaton
    return automaton


def _owners(words: set[str], families: list[tuple[str, ...]]) -> dict[str, frozenset[int]]:
    """For each probe: the families of every probe it holds (the trie takes the longest
    probe where several begin, ``ACCA`` where ``AC`` is one too, and a match is not searched
    again: ``api_key`` holds ``key``)."""
    owners: dict[str, set[int]] = {word: set() for word in words}
    for n, probes in enumerate(families):
        for probe in probes:
            for word in words:
                if probe in word:
                    owners[word].add(n)
    return {word: frozenset(found) for word, found in owners.items()}


def lines_with(text: str, lowered: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """The lines of ``text`` that hold one of ``words`` (in ``lowered``, its lower-cased copy),
    each once, in order: from every place a word starts (one automaton, overlaps included), or
    by ``_lines_found`` for a text whose lower-cased copy is not aligned with it (``İ`` lowers
    to two characters) or that the automaton cannot take (a lone surrogate)."""
    if len(lowered) != len(text) or (not text.isascii() and any(c in text for c in _FOLDED_APART)):
        return _lines_found(text, words)
    search = _KEYWORD_SEARCH if words is KEYWORDS else AhoCorasick(list(words), matchkind=MATCHKIND_STANDARD)
    try:
        found = search.find_matches_as_indexes(lowered, overlapping=True)
    except UnicodeEncodeError:
        return _lines_found(text, words)
    spans = []
    line_end = -1
    for _word, at, _end in sorted(found, key=_start):
        if at < line_end:
            continue  # this line is taken
        start = text.rfind("\n", 0, at) + 1
        line_end = text.find("\n", at)
        if line_end < 0:
            line_end = len(text)
        spans.append((start, line_end))
    return spans


def _start(match: tuple[int, int, int]) -> int:
    return match[1]


def _lines_found(text: str, words: tuple[str, ...]) -> list[tuple[int, int]]:
    """The lines of ``text`` that hold one of ``words``, each line folded on its own
    (``_folded``): for a text whose lower-cased copy is not aligned with it (``İ`` lowers to two
    characters), no position in that copy is taken as one of the text."""
    spans = []
    start, size = 0, len(text)
    while True:
        end = text.find("\n", start)
        end = size if end < 0 else end
        line = _folded(text[start:end])
        if any(word in line for word in words):
            spans.append((start, end))
        if end == size:
            return spans
        start = end + 1


def _folded(text: str) -> str:
    """``text`` lower-cased, and the letters that match an ASCII letter case-insensitively
    without lowering to it (``ı``, ``ſ``; ``İ`` lowers to ``i`` and a dot) made that letter."""
    lowered = text.lower()
    if lowered.isascii():
        return lowered
    return lowered.replace("\u0131", "i").replace("\u017f", "s").replace("\u0307", "")


#: detect-secrets' keywords (the secret-keyword family's telltales): its keyword regexes are
#: searched in the lines that hold one
KEYWORDS = next(folded for _literal, folded, kinds in _FAMILIES if kinds == ("secret-keyword",))
_KEYWORD_SEARCH = AhoCorasick(list(KEYWORDS), matchkind=MATCHKIND_STANDARD)


#: one automaton per set of words a pattern's matches begin with (``Pattern.starts``)
_STARTS: dict[tuple[str, ...], AhoCorasick] = {}


#: the letters that match one of an ASCII word's letters case-insensitively (Python's ``re``)
#: but do not lower-case to it: ``ı`` matches ``i``, ``ſ`` matches ``s`` (and ``İ``, which
#: matches ``i``, lowers to two characters: the lower-cased copy is then not aligned)
_FOLDED_APART = ("ı", "ſ")
#: the letters whose folding ``bytes.lower`` of the UTF-8 would miss
_NOT_ASCII_LOWERED = ("\u0130", "\u212a", *_FOLDED_APART)


def starts(words: tuple[str, ...], text: str, lowered: str) -> list[int] | None:
    """Every place in ``text`` where one of ``words`` begins as a case-insensitive regex meets
    it (found in ``lowered``, its lower-cased copy), overlaps included, in order; None for a
    text where the lower-cased copy cannot say (not aligned, a letter of ``_FOLDED_APART``, a
    lone surrogate the automaton cannot take)."""
    if not text.isascii() and (len(lowered) != len(text) or any(c in text for c in _FOLDED_APART)):
        return None
    search = _STARTS.get(words)
    if search is None:
        search = _STARTS[words] = AhoCorasick(list(words), matchkind=MATCHKIND_STANDARD)
    try:
        found = search.find_matches_as_indexes(lowered, overlapping=True)
    except UnicodeEncodeError:
        return None
    return sorted({at for _word, at, _end in found})


def anchored(regex: re.Pattern[str], text: str, places: list[int], start: int, end: int) -> Iterator[re.Match[str]]:
    """``regex.finditer(text, start, end)`` for a regex whose matches begin at one of
    ``places`` (and are never empty): tried there only, the next from where the last ended."""
    resume = start
    for at in places[bisect.bisect_left(places, start) :]:
        if at >= end:
            return
        if at < resume:
            continue
        match = regex.match(text, at, end)
        if match is not None:
            yield match
            resume = match.end()


def leading_words(regex: re.Pattern[str]) -> tuple[str, ...]:
    """The words a detect-secrets keyword regex begins with (its first group, a choice of
    lower-case words, ``api_?key`` standing for ``api_key`` and ``apikey``), or none when it
    does not begin so or is not case-insensitive (then it is searched at every character)."""
    head = re.match(r"\(([a-zñ_?|]+)\)", regex.pattern)
    if head is None or not regex.flags & re.IGNORECASE:
        return ()
    words: list[str] = []
    for word in head.group(1).split("|"):
        if word.replace("_?", "").count("?") or word.count("_?") > 1:
            return ()
        words += [word.replace("_?", "_"), word.replace("_?", "")] if "_?" in word else [word]
    return tuple(words)
