"""``python -m asr_adapters.cli``: the ``asr`` command."""

from ._main import main

main(prog_name="asr")
