"""The ``asr`` group: every verb is a module of this package, imported when it is named.

Bare ``asr`` prints this help. Shell completion (bash, zsh, fish): see the README.
"""

from __future__ import annotations

import gc
import importlib
from typing import ClassVar

import click

from ..version import __version__


class _Commands(click.Group):
    """The ``asr`` group. A command's module is imported when the command is named (or when
    the help lists them), so ``asr convert`` does not load the batch machinery, the viewer
    (jinja2, markdown-it) or the exporters."""

    #: command name -> (module of this package, the command's name in it)
    verbs: ClassVar[dict[str, tuple[str, str]]] = {
        "agents": (".agents", "agents"),
        "batch": (".batch", "batch"),
        "convert": (".convert", "convert"),
        "discover": (".discover", "discover"),
        "export": (".export", "export"),
        "index": (".index", "index_command"),
        "redact": (".redact", "redact_command"),
        "schema": (".schema", "schema"),
        "search": (".search", "search_command"),
        "show": (".show", "show"),
        "stats": (".stats", "stats"),
        "validate": (".validate", "validate"),
    }

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.verbs})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = super().get_command(ctx, cmd_name)
        where = self.verbs.get(cmd_name)
        if command is None and where is not None:
            module, name = where
            # A command's imports make tens of thousands of objects that live until exit (modules,
            # classes, click's commands): the cyclic collector walked them again and again while
            # importing and once more at exit, about a tenth of a small ``asr convert``. It is off
            # while they import, and what exists then is frozen (never walked again): issue 28.
            collecting = gc.isenabled()
            gc.disable()
            try:
                command = getattr(importlib.import_module(module, __package__), name)
            finally:
                if collecting:
                    gc.freeze()
                    gc.enable()
            self.add_command(command, cmd_name)
        return command


@click.group(
    cls=_Commands,
    invoke_without_command=True,
    epilog="Run asr COMMAND --help for a command's options and exit status.",
)
@click.version_option(__version__, prog_name="asr")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Convert agent session logs to Agent Session Record (ASR) streams, and check them."""
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())
        ctx.exit(0)
