"""What an archive holds, read from its streams directly (never through the index), to choose
phrases whose right answer is known: words only a person typed, words only injected text has,
bytes only ciphertext has."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

#: Words as FTS5's unicode61 tokenizer sees them (letters and digits; `_` separates).
WORD = re.compile(r"[^\W_]+")


@dataclass
class Part:
    session: str
    path: str
    record_id: str
    author: str | None
    origin: str | None
    copied: bool
    text: str


def streams(archive: Path) -> list[Path]:
    return sorted(archive.rglob("*.asr.jsonl"))


def records(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, "rb") as handle:
        for line in handle:
            if line.strip():
                yield orjson.loads(line)


def message_parts(archive: Path) -> list[Part]:
    """Every text part of every message, with its effective author and origin (ASR-224)."""
    found = []
    for path in streams(archive):
        session = ""
        for record in records(path):
            if record["type"] == "session":
                session = record["session"]
            if record["type"] != "message":
                continue
            for name in ("content", "displayContent"):
                for part in record.get(name) or []:
                    if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                        found.append(
                            Part(
                                session,
                                str(path.relative_to(archive)),
                                record["id"],
                                part.get("author") if isinstance(part.get("author"), str) else record.get("author"),
                                part.get("origin") if isinstance(part.get("origin"), str) else record.get("origin"),
                                "copiedFrom" in record,
                                part["text"],
                            )
                        )
    return found


def all_strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from all_strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)


def phrase_pattern(words: list[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![^\W_])" + r"[\W_]+".join(map(re.escape, words)) + r"(?![^\W_])", re.IGNORECASE)


def windows(text: str, size: int = 4) -> Iterator[list[str]]:
    words = [w for w in WORD.findall(text) if w.isascii()]
    for start in range(0, max(0, len(words) - size + 1)):
        window = words[start : start + size]
        if all(len(w) >= 3 for w in window) and not any(w.isdigit() for w in window):
            yield window


def human_only_phrase(archive: Path) -> tuple[list[str], Part]:
    """Four words that occur in a person's words in exactly one session and nowhere else in the
    archive (no other part, no record of any kind)."""
    parts = message_parts(archive)
    human = [p for p in parts if p.author == "human" and not p.copied]
    others = [p.text for p in parts if not (p.author == "human" and not p.copied)]
    everything = [
        s for path in streams(archive) for r in records(path) if r["type"] != "message" for s in all_strings(r)
    ]
    tried = 0
    for part in human:
        for window in windows(part.text):
            tried += 1
            if tried > 400:
                break
            pattern = phrase_pattern(window)
            holders = {p.session for p in human if pattern.search(p.text)}
            if len(holders) != 1:
                continue
            if any(pattern.search(t) for t in others) or any(pattern.search(s) for s in everything):
                continue
            return window, part
    raise AssertionError(f"{archive}: no phrase only a person typed, in one session")


#: What ciphertext looks like (base64 of either alphabet); a sample trimmed to "[trimmed]" is not.
CIPHERTEXT = re.compile(r"[A-Za-z0-9+/_=-]{16,}")

INJECTED_MARKERS = ("AGENTS.md", "system-reminder", "<environment_context>", "CLAUDE.md", "<INSTRUCTIONS>")


def injected_only_phrase(archive: Path) -> tuple[list[str], Part]:
    """Four words of injected instruction text (AGENTS.md, a system reminder) that no part a
    person wrote contains."""
    parts = message_parts(archive)
    human = [p.text for p in parts if p.author == "human"]
    injected = [
        p
        for p in parts
        if p.author == "harness"
        and p.origin == "injected"
        and not p.copied
        and any(m in p.text for m in INJECTED_MARKERS)
    ]
    assert injected, f"{archive}: no injected AGENTS.md or system-reminder text"
    for part in injected:
        for window in windows(part.text):
            pattern = phrase_pattern(window)
            if not any(pattern.search(t) for t in human):
                return window, part
    raise AssertionError(f"{archive}: every injected phrase also occurs in a person's words")


def opaque_values(archive: Path) -> list[str]:
    """Ciphertext and signatures: opaque parts' data, reasoning opaque data and signatures, sealed
    tool arguments."""
    found = []
    for path in streams(archive):
        for record in records(path):
            for name in ("content", "displayContent"):
                for part in record.get(name) or []:
                    if not isinstance(part, dict):
                        continue
                    if part.get("type") == "opaque" and isinstance(part.get("data"), str):
                        found.append(part["data"])
                    if part.get("type") == "reasoning":
                        opaque = part.get("opaque")
                        if isinstance(opaque, dict) and isinstance(opaque.get("data"), str):
                            found.append(opaque["data"])
                        if isinstance(part.get("signature"), str):
                            found.append(part["signature"])
            if record["type"] == "tool_call" and isinstance(record.get("input"), dict):
                for name in record.get("opaqueInput") or []:
                    value = record["input"].get(name)
                    if isinstance(value, dict) and isinstance(value.get("data"), str):
                        found.append(value["data"])
    return [v for v in found if CIPHERTEXT.fullmatch(v)]


def message_counts(archive: Path) -> dict[str, tuple[int, int]]:
    """Per stream (relative path): message records and their content + displayContent parts."""
    counts = {}
    for path in streams(archive):
        messages = parts = 0
        for record in records(path):
            if record["type"] == "message":
                messages += 1
                for name in ("content", "displayContent"):
                    parts += sum(1 for p in record.get(name) or [] if isinstance(p, dict))
        counts[path.relative_to(archive).as_posix()] = (messages, parts)
    return counts
