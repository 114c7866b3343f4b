"""The ``asr show`` command: thin over ``asr_adapters.view``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from ..outputs import text_output, text_stdout
from ..redact.options import finish, redact_options
from ..view.browse import open_page, show_at, split_target
from .params import one_line_errors


@click.command()
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=False))
@click.option("-o", "--output", type=click.Path(), help="The page to write (a folder for a site); stdout if absent.")
@click.option(
    "--format", "fmt", type=click.Choice(["html", "markdown"]), default="html", show_default=True, help="Page format."
)
@click.option("--agent", help="The agent that wrote PATH, when PATH is a native file (default: detect it).")
@click.option(
    "--open",
    "open_it",
    is_flag=True,
    help="Open the page in the default browser (without -o, a page written to a new temporary folder).",
)
@redact_options
def show(
    path: str,
    output: str | None,
    fmt: str,
    agent: str | None,
    open_it: bool,
    redactor: Any,
    redact_report: str | None,
) -> None:
    """Show a session as a page a person reads.

    PATH is an ASR stream or any native file the converters read (converted on the fly); a
    folder of streams (a batch archive) becomes a static site in the folder OUTPUT, with an
    index of every session. PATH#RECORD (the link asr search prints) opens the page at that
    record with --open. The page is self-contained (no network, works from file://).

    Exit codes: 0 written; 1 the source could not be read or converted; 2 usage error (the
    output is the input, a block device); 3 the output cannot be written (read-only place, full
    disk, a link inside SITE_DIR). A FIFO, socket or character device given as OUTPUT is
    written into as stdout is.
    """
    from ..view import render_site, write_page

    path, record = split_target(path)
    if not os.path.lexists(path):
        raise click.BadParameter(f"{path!r} does not exist", param_hint="'PATH'")
    with one_line_errors(path):
        if Path(path).is_dir():
            if output is None or fmt != "html":
                raise click.UsageError("a folder becomes an HTML site: give -o SITE_DIR (and no --format markdown)")
            rows = render_site(path, output, redactor=redactor)
            click.echo(f"asr: wrote {len(rows)} page(s) and {os.path.join(output, 'index.html')}", err=True)
            target = os.path.join(output, "index.html")
        elif output is None and open_it and fmt == "html":
            page = show_at(path, record, agent=agent, redactor=redactor)
            click.echo(f"asr: wrote {page}", err=True)
            finish(redactor, redact_report, path)
            return
        elif output is None:
            with text_stdout() as stream:
                write_page(path, stream, fmt=fmt, agent=agent, redactor=redactor)
            finish(redactor, redact_report, path)
            return
        else:
            target = output
            with text_output(Path(output), Path(path)) as handle:  # whole or nothing, never the input
                write_page(path, handle, fmt=fmt, agent=agent, redactor=redactor)
    finish(redactor, redact_report, path)
    if open_it:
        open_page(target, record)
