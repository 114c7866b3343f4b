"""The ``asr`` command: one module per verb, each thin over the library, assembled in ``_main``.

A verb's module is imported only when that verb is named (or listed by ``asr --help``), so
``asr convert`` loads neither the batch machinery nor the viewer nor the exporters (issue 28).
"""

from ._main import main

__all__ = ["main"]
