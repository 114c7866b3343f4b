"""The ``asr`` command: one module per verb, each thin over the library, assembled in ``_main``.

A verb's module is imported only when that verb is named (or listed by ``asr --help``), so
``asr convert`` loads neither the batch machinery nor the viewer nor the exporters (issue 28).
"""

import gc

# Start-up makes tens of thousands of objects that live until exit (modules, classes, click's
# commands): the cyclic collector would walk them again and again while they import. It is off
# while click and the group import, and what exists then is frozen (never walked again); a
# verb's own imports get the same in ``_main`` (issue 28).
_collecting = gc.isenabled()
gc.disable()
try:
    from ._main import main
finally:
    if _collecting:
        gc.freeze()
        gc.enable()

__all__ = ["main"]
