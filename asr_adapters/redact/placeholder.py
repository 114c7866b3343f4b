"""The placeholder a secret becomes, for readers (the viewer marks it) and for the redactor."""

import re

#: hex digits of the keyed hash a placeholder carries
HASH_CHARS = 10
#: ``[REDACTED:<kind>:<hash>]``
PLACEHOLDER = re.compile(r"\[REDACTED:([a-z0-9-]+):([0-9a-f]{10})\]")
