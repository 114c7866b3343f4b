"""The validator: every MUST of the spec excerpt that a stream alone can show, and the profile."""

from .stream import Finding, StreamValidator, validate, validate_records

__all__ = ["Finding", "StreamValidator", "validate", "validate_records"]
