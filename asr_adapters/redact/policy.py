"""The redaction policy and the ``Redactor`` that applies it as records stream (the package's
docstring says what redaction does)."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ASRError
from .placeholder import PLACEHOLDER

__all__ = ["PLACEHOLDER", "Policy", "PolicyError", "Redactor", "redact_records"]

#: A 32-hex-digit key in this variable makes placeholders the same from run to run (and
#: across the workers of one ``asr batch``, which are given the run's key either way).
KEY_VARIABLE = "ASR_REDACT_KEY"


class PolicyError(ASRError):
    """A redaction option that cannot be used (a regex that does not compile, a bad key)."""


@dataclass(frozen=True)
class Policy:
    """What to redact. Secrets always; the rest on request. Picklable: ``asr batch`` hands it,
    key included, to its workers so one run gives one placeholder per secret."""

    paths: bool = False
    emails: bool = False
    patterns: tuple[str, ...] = ()
    drop_opaque: bool = False
    key: bytes = field(default=b"", repr=False)
    #: the user names ``paths`` hides wherever they appear as a word (default: this account's)
    user_names: tuple[str, ...] = ()

    @classmethod
    def make(
        cls,
        *,
        paths: bool = False,
        emails: bool = False,
        patterns: Iterable[str] = (),
        drop_opaque: bool = False,
        key: bytes | None = None,
    ) -> Policy:
        """A policy with this run's key (``ASR_REDACT_KEY`` when set, else random) and, for
        ``paths``, the running account's name."""
        patterns = tuple(patterns)
        for regex in patterns:
            try:
                compiled = re.compile(regex)
            except re.error as exc:
                raise PolicyError(f"--redact-pattern {regex!r}: not a regular expression: {exc}") from None
            if compiled.search(""):
                raise PolicyError(f"--redact-pattern {regex!r}: matches empty text; it would redact nothing")
        if key is None:
            key = _run_key()
        names: tuple[str, ...] = ()
        if paths:
            names = tuple(sorted({n for n in (_account(), Path.home().name) if n}))
        return cls(paths, emails, patterns, drop_opaque, key, names)


def _run_key() -> bytes:
    given = os.environ.get(KEY_VARIABLE)
    if given:
        try:
            key = bytes.fromhex(given)
        except ValueError:
            raise PolicyError(f"{KEY_VARIABLE}: not hexadecimal") from None
        if len(key) < 16:
            raise PolicyError(f"{KEY_VARIABLE}: at least 32 hex digits (16 bytes)")
        return key
    import secrets  # here, not at import: every command imports this package for its options

    return secrets.token_bytes(32)


def _account() -> str:
    import getpass  # as for secrets above (getpass loads termios)

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container)
        return ""


class Redactor:
    """One run's redaction: ``record(r)`` / ``records(rs)`` redact in place as records go by;
    ``report()`` counts what was replaced per kind and per record type (never a secret)."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy = policy if policy is not None else Policy.make()
        try:  # imported here: detect-secrets (the redact extra) only for a command that redacts
            from .detectors import Detector, optional_patterns
        except ImportError as exc:
            raise PolicyError(
                f"redaction needs detect-secrets and ahocorasick-rs: pip install 'asr-adapters[redact]' ({exc})"
            ) from None
        from .scan import Scanner
        from .walk import RecordRedactor

        extra = optional_patterns(
            paths=self.policy.paths,
            emails=self.policy.emails,
            user_names=self.policy.user_names,
            custom=self.policy.patterns,
        )
        self._walker = RecordRedactor(Scanner(Detector(extra), self.policy.key), self.policy.drop_opaque)

    def record(self, record: Any) -> Any:
        return self._walker.redact(record)

    def records(self, records: Iterable[Any]) -> Iterator[Any]:
        redact = self._walker.redact
        for record in records:
            yield redact(record)

    def report(self) -> dict[str, Any]:
        walker = self._walker
        by_kind: Counter[str] = Counter()
        for counts in walker.by_type.values():
            by_kind.update(counts)
        return {
            "records": walker.records,
            "recordsRedacted": walker.redacted_records,
            "redactions": sum(by_kind.values()),
            "byKind": dict(sorted(by_kind.items())),
            "byRecordType": {t: dict(sorted(c.items())) for t, c in sorted(walker.by_type.items())},
            "opaqueDropped": walker.opaque_dropped,
            "policy": {
                "secrets": True,
                "paths": self.policy.paths,
                "emails": self.policy.emails,
                "patterns": len(self.policy.patterns),
                "dropOpaque": self.policy.drop_opaque,
            },
        }

    def merge(self, report: dict[str, Any]) -> None:
        """Add a worker's ``report()`` to this one (``asr batch``)."""
        walker = self._walker
        walker.records += int(report.get("records", 0))
        walker.redacted_records += int(report.get("recordsRedacted", 0))
        walker.opaque_dropped += int(report.get("opaqueDropped", 0))
        for kind, counts in (report.get("byRecordType") or {}).items():
            walker.by_type.setdefault(kind, Counter()).update(counts)

    def summary(self) -> str:
        """The one line for stderr."""
        report = self.report()
        kinds = ", ".join(f"{kind} {count}" for kind, count in report["byKind"].items()) or "none found"
        line = (
            f"redacted {report['redactions']} in {report['recordsRedacted']} of {report['records']} records ({kinds})"
        )
        if report["opaqueDropped"]:
            line += f"; {report['opaqueDropped']} opaque values dropped"
        return line


def redact_records(records: Iterable[Any], policy: Policy | None = None) -> Iterator[Any]:
    """``records`` (dicts) redacted under ``policy`` (default: secrets, a random key)."""
    return Redactor(policy).records(records)
