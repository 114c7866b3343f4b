"""The validator: every MUST of the spec excerpt that a stream alone can show, and the profile.

Calling this subpackage calls ``validate`` (``asr_adapters.validate(path)``; see ``_callable``).
"""

from .._callable import make_callable
from .reading import validate
from .stream import Finding, StreamValidator, validate_records

__all__ = ["Finding", "StreamValidator", "validate", "validate_records"]

make_callable(__name__, "validate")
