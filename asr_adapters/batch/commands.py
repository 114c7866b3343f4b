"""The ``asr batch`` and ``asr discover`` commands (thin over the batch library)."""

from __future__ import annotations

import click


@click.command()
def batch() -> None:
    """Convert every session under folders (not built yet)."""
    raise click.UsageError("asr batch is not built yet")


@click.command()
def discover() -> None:
    """List the sessions found in every agent's home (not built yet)."""
    raise click.UsageError("asr discover is not built yet")
