"""The producer version written into every session header."""

PRODUCER_NAME = "asr-adapters"
__version__ = "0.1.0"
