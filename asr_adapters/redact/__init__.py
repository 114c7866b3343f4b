"""Redaction: share a session without sharing its secrets (docs/redaction.md).

A ``Redactor`` transforms records as they stream, before anything is written: every secret in
a record's text, tool inputs, results, display content, vendor data, plans, paths and titles
becomes ``[REDACTED:<kind>:<keyed hash>]``, the field's ``capture`` says ``redacted`` with the
count and kinds, and nothing else in the record changes. ``asr convert``, ``batch``, ``show``,
``export`` and ``index`` take it through ``--redact``; ``asr redact STREAM`` applies it to a
stream already written.
"""

import typing as _typing

from .._lazy import lazy_names

# Every command that writes takes the --redact options (``options``), so this package is imported
# by ``asr convert`` too: the policy and the redactor (a frozen dataclass, secrets, getpass) load
# at their first use, when a command redacts.
_LAZY = {
    "PLACEHOLDER": ".placeholder",  # a compiled pattern: not made by every command
    "Policy": ".policy",
    "PolicyError": ".policy",
    "Redactor": ".policy",
    "redact_records": ".policy",
}
__getattr__, __dir__ = lazy_names(__name__, _LAZY, [])

if _typing.TYPE_CHECKING:
    from .placeholder import PLACEHOLDER
    from .policy import Policy, PolicyError, Redactor, redact_records

__all__ = ["PLACEHOLDER", "Policy", "PolicyError", "Redactor", "redact_records"]
