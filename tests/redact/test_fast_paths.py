"""The scan's fast ways must find what the plain ways they stand for find, on any text.

The telltale search (redact/telltales.py) decides which kinds' patterns run on a text: its
automata must choose exactly what the trie-shaped regexes they replaced chose (kept here as
the reference), on any text, lone surrogates included, and the lines it gives the keyword
patterns must be those one ``str.find`` per keyword gives. The base64 runs found with
``bytes.find`` must be the regex's, and the line breaks the wrapped-token search looks at must
be those the plain regex meets with a token character before them."""

from __future__ import annotations

import base64
import binascii
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from asr_adapters.redact import base64_runs, scan
from asr_adapters.redact.detectors import Detector, optional_patterns
from asr_adapters.redact.telltales import (
    _FAMILIES,
    _NOT_ASCII_LOWERED,
    KEYWORDS,
    Telltales,
    _folded,
    _lines_found,
    anchored,
    lines_with,
    starts,
)

SECRETS = Detector()
EVERYTHING = Detector(optional_patterns(paths=True, emails=True, user_names=("alice",)))
#: pieces of text made of the telltales and what stands beside them, so that generated texts
#: hold many, overlapping and cut ("sk-us", "awsecret", "ACCA", a keyword across a line break)
PROBES = sorted({probe for literal, folded, _kinds in _FAMILIES for probe in (*literal, *folded)})
PIECES = [*PROBES, *(p.upper() for p in PROBES), *(p[: len(p) // 2] for p in PROBES if len(p) > 3)]
PIECES += ["\n", " ", '"', "'", ":", "=", "x", "1", "é", "\u212a", "İ", "ſ", "\ud800", "-", "_", "/", "."]
PIECES += ["api_\u212aey", "\u0130BM", "a\u212aIA"]  # the Kelvin sign lowers to k, İ to i and a dot
TEXTS = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


def _trie(words: list[str]) -> str:
    """The trie-shaped regex the telltales were searched with before the automata."""
    if not words:
        return ""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[0], []).append(word[1:])
    branches = []
    for head, tails in sorted(heads.items()):
        rest = [t for t in tails if t]
        inner = _trie(rest) if rest else ""
        if inner:
            branches.append(re.escape(head) + (f"(?:{inner})?" if "" in tails else f"(?:{inner})"))
        else:
            branches.append(re.escape(head))
    return "|".join(branches)


def _by_regexes(telltales: Telltales, text: str) -> set[int]:
    """``chosen`` as it was: every literal probe (one character ones too) in one trie regex
    over the text, the folded ones in another over ``text.lower()`` (or, for a text holding a
    letter ``bytes.lower`` would not fold, over ``_folded(text)``: İ, the Kelvin sign, ı, ſ); a
    match names the families of every probe it holds."""
    families = telltales._families
    literal = sorted({probe for family in families for probe in family[0]})
    folded = sorted({probe for family in families for probe in family[1]})
    met: set[int] = set()
    lowered = _folded(text) if any(c in text for c in _NOT_ASCII_LOWERED) else text.lower()
    for probes, where, column in ((literal, text, 0), (folded, lowered, 1)):
        if not probes:
            continue
        for found in re.findall(_trie(probes), where):
            met |= {n for n, family in enumerate(families) if any(p in found for p in family[column])}
    chosen = set(telltales.always)
    for family in met:
        _literal, _folded_probes, members, probe_regex = families[family]
        if probe_regex is None or probe_regex.search(text):
            chosen |= members
    return chosen


@settings(max_examples=600, deadline=None)
@given(TEXTS)
def test_the_automata_choose_what_the_regexes_choose(text: str) -> None:
    for detector in (SECRETS, EVERYTHING):
        assert detector._telltales.chosen(text) == _by_regexes(detector._telltales, text)


@settings(max_examples=600, deadline=None)
@given(TEXTS)
def test_the_keyword_lines_are_those_str_find_gives(text: str) -> None:
    lowered = text.lower()
    assert lines_with(text, lowered, KEYWORDS) == _lines_found(text, KEYWORDS)


def test_a_text_with_a_lone_surrogate_is_still_searched() -> None:
    text = "\ud800 the token: ghp_" + "A1b2C3d4" * 5
    hits = SECRETS.find(text)
    assert [h.kind for h in hits] == ["github-token"]
    assert text[hits[0].start : hits[0].end].startswith("ghp_A1b2")


#: base64 runs and wrapped tokens: pieces of token characters of every length around 24 and 16,
#: with line breaks, indentation, padding and letters that are not ASCII between them
RUN_PIECES = ["A" * 23, "b" * 24, "x", "Ab1+/_-", "=", "==", "\n", "\r\n", "  ", "é", "\ud800", "€", ".", " ", "K"]
RUNS = st.lists(st.sampled_from(RUN_PIECES), max_size=20).map("".join)
_PLAIN_WRAPPED = re.compile(r"\n(?=[ \t]*(?P<right>[A-Za-z0-9+/=_.-]{1,400}))")


@settings(max_examples=800, deadline=None)
@given(RUNS)
def test_the_base64_runs_are_the_regexes(text: str) -> None:
    expected = [m.span() for m in base64_runs.RUN.finditer(text)]
    assert [m.span() for m in base64_runs.runs(text)] == expected


@settings(max_examples=800, deadline=None)
@given(RUNS)
def test_the_wrapped_line_breaks_are_those_with_a_token_character_before(text: str) -> None:
    expected = []
    for match in _PLAIN_WRAPPED.finditer(text):
        newline = match.start()
        end = newline - 1 if newline and text[newline - 1] == "\r" else newline
        if end and text[end - 1] in scan._TOKEN_CHARS:
            expected.append((newline, match["right"]))
    assert [(m.start(), m["right"]) for m in scan._WRAPPED.finditer(text)] == expected


#: texts for the patterns tried only where their words begin: the words in every case, cut,
#: run into one another, and what stands between a name and its value
ANCHOR_WORDS = sorted({word for p in SECRETS.patterns for word in p.starts if word.isascii()})
ANCHOR_PIECES = [*ANCHOR_WORDS, *(w.upper() for w in ANCHOR_WORDS), *(w.title() for w in ANCHOR_WORDS)]
ANCHOR_PIECES += [w[: len(w) // 2] for w in ANCHOR_WORDS]
ANCHOR_PIECES += ['"', "'", "`", ":", "=", "==", " ", "\n", "Bearer ", "x", "Ab12Cd34Ef56", ";", ",", "=>", "!="]
ANCHOR_PIECES += [
    ': "Ab12Cd34Ef56"',
    ": Bearer Ab12Cd34Ef56",
    "='Ab12Cd34Ef56'",
    ' = "Ab12Cd34Ef56";',
    ":Ab12Cd34Ef56",
] * 8  # often enough after a word
ANCHOR_PIECES += ["é", "─", "的", "\u212a", "ſ", "ı", "İ", "\ud800", "Ñ", "ñ"]  # not ASCII: some lower apart
ANCHOR_PIECES += [w.replace("s", "ſ") for w in ANCHOR_WORDS if "s" in w] + ["prıvate_key", "Kpass", "İd_key"]
ANCHOR_TEXTS = st.lists(st.sampled_from(ANCHOR_PIECES), max_size=24).map("".join)


@settings(max_examples=1000, deadline=None)
@given(ANCHOR_TEXTS, st.integers(0, 40), st.integers(0, 400))
@example("Proxy-Authorization: Bearer Ab12Cd34Ef56", 0, 400)
@example('db_password_x = "Ab12Cd34Ef56";', 3, 400)
@example('─ paſſword = "Ab12Cd34Ef56";', 0, 400)
@example('─ prıvate_key = "Ab12Cd34Ef56";', 0, 400)
@example('─ İd_key: "Ab12Cd34Ef56"', 0, 400)
def test_a_pattern_tried_where_its_words_begin_finds_what_finditer_finds(text: str, start: int, end: int) -> None:
    end = min(max(start, end), len(text))
    for pattern in (p for p in SECRETS.patterns if p.starts):
        places = starts(pattern.starts, text, text.lower())
        if places is None:  # searched at every character, as before
            continue
        expected = [m.span() for m in pattern.regex.finditer(text, start, end)]
        assert [m.span() for m in anchored(pattern.regex, text, places, start, end)] == expected, pattern.kind


def test_the_keyword_regexes_are_tried_where_their_words_begin() -> None:
    """detect-secrets' keyword regexes that begin with their keywords are the ones anchored
    (a change of its regexes' shape turns that off rather than making it wrong)."""
    anchored_ones = [p for p in SECRETS.patterns if p.kind == "secret-keyword" and p.starts]
    assert len(anchored_ones) == 4
    assert all({"password", "api_key", "apikey", "secret", "pwd"} <= set(p.starts) for p in anchored_ones)


def _decoded_plainly(run: str) -> str | None:
    """``base64_runs.decoded`` without its first test of each group of four."""
    stripped = run.rstrip("=")
    if len(stripped) % 4 == 1:
        return None
    try:
        raw = base64.b64decode(
            stripped + "=" * (-len(stripped) % 4), altchars=b"-_" if "-" in run or "_" in run else None, validate=True
        )
    except (binascii.Error, ValueError):
        return None
    return raw.decode("ascii") if len(raw) >= 12 and base64_runs.PRINTABLE.fullmatch(raw) else None


@settings(max_examples=800, deadline=None)
@given(st.binary(min_size=12, max_size=60), st.booleans(), st.booleans())
def test_a_base64_run_decodes_as_before(data: bytes, text: bool, urlsafe: bool) -> None:
    if text:  # printable ASCII, which the scan reads
        data = bytes(32 + b % 95 for b in data)
    run = (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()
    for form in (run, run.rstrip("="), run[1:], run[:-3]):
        assert base64_runs.decoded(form) == _decoded_plainly(form)


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(["alice", "a.b", "x-y", "dev_9", "Zoë"]), st.lists(st.integers(0, 11), max_size=14))
def test_a_user_name_word_is_found_where_the_lookbehind_first_regex_finds_it(name: str, picks: list[int]) -> None:
    pieces = [name, name[:2], "/", ".", "-", "_", " ", "a", "1", "\n", "é", name.upper()]
    text = "".join(pieces[i] for i in picks)
    plain = re.compile(rf"(?<![A-Za-z0-9_.-]){re.escape(name)}(?![A-Za-z0-9_-])")
    (pattern,) = [p for p in optional_patterns(paths=True, user_names=(name,)) if p.group == 0]
    assert [m.span() for m in pattern.regex.finditer(text)] == [m.span() for m in plain.finditer(text)]
